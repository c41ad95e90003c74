package dashboard

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Sign-in mail is limited per address, so that nobody fills a member's
// mailbox, and per client address, so that nobody mails many addresses
// from one place. The buckets are per node (as the API's rate limit):
// with n nodes behind a balancer a client gets at most n times as many.
var (
	linksPerAddress = limit{every: 5 * time.Minute, burst: 3}
	linksPerIP      = limit{every: time.Minute, burst: 10}
)

type limit struct {
	every time.Duration
	burst int
}

// limiter holds a token bucket (golang.org/x/time/rate, as the API's rate
// limit) per key, forgetting keys idle long enough to be full again.
type limiter struct {
	l     limit
	mu    sync.Mutex
	byKey map[string]*keyed
	swept time.Time
}

type keyed struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(l limit) *limiter { return &limiter{l: l, byKey: map[string]*keyed{}} }

// allow takes a token for key at now, if there is one.
func (x *limiter) allow(key string, now time.Time) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	full := x.l.every * time.Duration(x.l.burst) // idle this long, a bucket is full: forget it
	if now.Sub(x.swept) > time.Minute {
		for k, b := range x.byKey {
			if now.Sub(b.seen) > full {
				delete(x.byKey, k)
			}
		}
		x.swept = now
	}
	b := x.byKey[key]
	if b == nil {
		b = &keyed{lim: rate.NewLimiter(rate.Every(x.l.every), x.l.burst)}
		x.byKey[key] = b
	}
	b.seen = now
	return b.lim.AllowN(now, 1)
}
