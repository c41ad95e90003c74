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
// bounds those bytes (docs/security.md, Unverified webhook bodies): a body is read only once
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

// Bodies are read into buffers of a few sizes, powers of two from 4 KiB to
// MaxWebhookBytes, kept for reuse: a flood of bodies that are refused
// leaves no garbage behind, which with Go's collector would let the heap
// grow to twice the budget before a collection (measured: 114 MiB over the
// base without reuse, after 100 connections of 2 MB closed at once).
const minBodyBuffer = 4 << 10

var bodyBuffers [10]sync.Pool // minBodyBuffer << i; the last is MaxWebhookBytes

// bodyClass returns the class of the smallest buffer that holds n bytes.
func bodyClass(n int64) int {
	c := 0
	for int64(minBodyBuffer)<<c < n {
		c++
	}
	return c
}

// webhookBody is a body read within the budget.
type webhookBody struct {
	data    []byte
	buf     *[]byte
	class   int
	release func() // gives its bytes back to the budget
}

// verified takes the body's bytes out of the budget of unverified bytes.
func (b *webhookBody) verified() {
	b.release()
	b.release = func() {}
}

// free gives the body's bytes back to the budget, and its buffer for reuse:
// nothing may hold data after it (decoding copies what it keeps).
func (b *webhookBody) free() {
	b.release()
	bodyBuffers[b.class].Put(b.buf)
}

// readWebhookBody reads a webhook's body within the budget. A body over
// MaxWebhookBytes is ETOOLARGE (before any byte is read when its length is
// declared); no room within webhookBodyWait is EUNAVAILABLE. The budget
// counts the buffer's size, the memory the body takes.
func (s *Server) readWebhookBody(w http.ResponseWriter, r *http.Request) (*webhookBody, error) {
	tooLarge := svc.Errorf(svc.ETOOLARGE, "the body is larger than %d MiB", MaxWebhookBytes>>20)
	n := int64(MaxWebhookBytes) // of a body of unknown length: the most it may be
	switch {
	case r.ContentLength > MaxWebhookBytes:
		return nil, tooLarge
	case r.ContentLength >= 0:
		n = r.ContentLength
	}
	class := bodyClass(n)
	ctx, cancel := context.WithTimeout(r.Context(), webhookBodyWait)
	defer cancel()
	release, err := s.bodies.reserve(ctx, subscriber(s.budgets.addrOf(r)), int64(minBodyBuffer)<<class)
	if err != nil {
		setRetryAfter(w, webhookBodyWait)
		return nil, svc.Errorf(svc.EUNAVAILABLE, "too many webhook bodies are being read; retry after the time in Retry-After")
	}
	buf, ok := bodyBuffers[class].Get().(*[]byte)
	if !ok {
		b := make([]byte, minBodyBuffer<<class)
		buf = &b
	}
	b := &webhookBody{buf: buf, class: class, release: release}
	// Read in place, never grown.
	k, err := io.ReadFull(r.Body, (*buf)[:n])
	b.data = (*buf)[:k]
	switch {
	case r.ContentLength < 0 && err == nil:
		var more [1]byte
		if _, err := io.ReadFull(r.Body, more[:]); err != io.EOF {
			b.free()
			return nil, tooLarge
		}
	case r.ContentLength < 0 && (errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF):
	case err != nil:
		b.free()
		return nil, svc.Errorf(svc.EINVALID, "the body could not be read")
	}
	return b, nil
}
