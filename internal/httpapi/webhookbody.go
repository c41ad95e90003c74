package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/svc-project/svc"
)

// A webhook's body must be read whole before its signature can be checked,
// so anyone can make the server hold bodies it will refuse. webhookBodies
// bounds those bytes (docs/security.md, Bounds): a body is read only once
// its bytes are reserved, per client address and overall, and the
// reservation is given back as soon as the signature is checked. A request
// over a bound waits for room, up to webhookBodyWait, and is then refused
// with 503 and Retry-After; while it waits its body stays in the kernel's
// socket buffers, not in the server.
const (
	// MaxWebhookBytesInFlight bounds the unverified webhook bytes the
	// server holds at once: 16 bodies of the largest size, thousands of
	// ordinary ones (a platform's order webhook is some kilobytes).
	MaxWebhookBytesInFlight = 32 << 20
	// MaxWebhookBytesPerAddress bounds them per client address (an IPv6
	// /64), so that one address cannot take the whole budget.
	MaxWebhookBytesPerAddress = 8 << 20
	webhookBodyWait           = 5 * time.Second
)

// webhookBodies is the budget of unverified webhook bytes.
type webhookBodies struct {
	total, perAddress int64
	all               *semaphore.Weighted
	held              atomic.Int64 // bytes reserved now

	mu    sync.Mutex
	addrs map[netip.Addr]*addressBodies
}

type addressBodies struct {
	sem   *semaphore.Weighted
	users int // requests reserving or holding: the entry goes with the last
}

func newWebhookBodies(total, perAddress int64) *webhookBodies {
	return &webhookBodies{total: total, perAddress: perAddress, all: semaphore.NewWeighted(total), addrs: map[netip.Addr]*addressBodies{}}
}

// reserve waits for n bytes of addr's budget and of the overall one, and
// returns the function that gives them back; an error when ctx ends first.
func (b *webhookBodies) reserve(ctx context.Context, addr netip.Addr, n int64) (release func(), err error) {
	b.mu.Lock()
	a := b.addrs[addr]
	if a == nil {
		a = &addressBodies{sem: semaphore.NewWeighted(b.perAddress)}
		b.addrs[addr] = a
	}
	a.users++
	b.mu.Unlock()
	leave := func() {
		b.mu.Lock()
		if a.users--; a.users == 0 {
			delete(b.addrs, addr)
		}
		b.mu.Unlock()
	}
	if err := a.sem.Acquire(ctx, n); err != nil {
		leave()
		return nil, err
	}
	if err := b.all.Acquire(ctx, n); err != nil {
		a.sem.Release(n)
		leave()
		return nil, err
	}
	b.held.Add(n)
	return func() {
		b.held.Add(-n)
		b.all.Release(n)
		a.sem.Release(n)
		leave()
	}, nil
}

// Held returns the unverified webhook bytes reserved now.
func (b *webhookBodies) Held() int64 { return b.held.Load() }

// readWebhookBody reads a webhook's body within the budget, and returns it
// with the function that gives its bytes back. A body over MaxWebhookBytes
// is ETOOLARGE (before any byte is read when its length is declared); no
// room within webhookBodyWait is EUNAVAILABLE.
func (s *Server) readWebhookBody(w http.ResponseWriter, r *http.Request) ([]byte, func(), error) {
	tooLarge := svc.Errorf(svc.ETOOLARGE, "the body is larger than %d MiB", MaxWebhookBytes>>20)
	n := int64(MaxWebhookBytes) + 1 // of a body of unknown length: one more byte tells one too large
	switch {
	case r.ContentLength > MaxWebhookBytes:
		return nil, nil, tooLarge
	case r.ContentLength >= 0:
		n = r.ContentLength
	}
	ctx, cancel := context.WithTimeout(r.Context(), webhookBodyWait)
	defer cancel()
	release, err := s.bodies.reserve(ctx, subscriber(s.budgets.addrOf(r)), max(n, 1))
	if err != nil {
		setRetryAfter(w, webhookBodyWait)
		return nil, nil, svc.Errorf(svc.EUNAVAILABLE, "too many webhook bodies are being read; retry after the time in Retry-After")
	}
	// The buffer is the reservation: read in place, never grown.
	body := make([]byte, n)
	k, err := io.ReadFull(r.Body, body)
	switch {
	case r.ContentLength < 0 && err == nil:
		release()
		return nil, nil, tooLarge
	case r.ContentLength < 0 && (errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF):
		return body[:k], release, nil
	case err != nil:
		release()
		return nil, nil, svc.Errorf(svc.EINVALID, "the body could not be read")
	}
	return body, release, nil
}
