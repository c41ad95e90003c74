package dashboard

import (
	"time"

	"golang.org/x/time/rate"

	"github.com/svc-project/svc/internal/keyedrate"
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

// limiter holds a token bucket per key (internal/keyedrate, as the API's
// rate limit).
type limiter struct{ b *keyedrate.Buckets[string] }

func newLimiter(l limit) *limiter {
	return &limiter{keyedrate.New[string](rate.Every(l.every), l.burst)}
}

// allow takes a token for key at now, if there is one.
func (x *limiter) allow(key string, now time.Time) bool { return x.b.Get(key, now).AllowN(now, 1) }
