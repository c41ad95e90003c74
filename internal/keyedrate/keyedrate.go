// Package keyedrate keeps a token bucket (golang.org/x/time/rate) per key:
// per client address for the API's rate limit and budgets, per brand, per
// email address for sign-in mail. It forgets the buckets of keys idle long
// enough to be full again, so that memory stays bounded and forgetting
// gives nobody more tokens than waiting would.
package keyedrate

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// minIdle is how long a key is kept at least once it is idle.
const minIdle = 5 * time.Minute

// Buckets holds a token bucket per key.
type Buckets[K comparable] struct {
	limit rate.Limit
	burst int
	idle  time.Duration // a key idle this long has a full bucket: forgotten
	mu    sync.Mutex
	byKey map[K]*bucket
	swept time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// New returns buckets refilled at limit tokens a second, holding burst
// (at least 1).
func New[K comparable](limit rate.Limit, burst int) *Buckets[K] {
	burst = max(burst, 1)
	idle := minIdle
	if limit > 0 {
		idle = max(idle, time.Duration(float64(burst)/float64(limit)*float64(time.Second)))
	}
	return &Buckets[K]{limit: limit, burst: burst, idle: idle, byKey: make(map[K]*bucket)}
}

// Get returns k's bucket at now: a full one when k is new or was forgotten.
func (x *Buckets[K]) Get(k K, now time.Time) *rate.Limiter {
	x.mu.Lock()
	defer x.mu.Unlock()
	if now.Sub(x.swept) > time.Minute {
		for key, b := range x.byKey {
			if now.Sub(b.seen) > x.idle {
				delete(x.byKey, key)
			}
		}
		x.swept = now
	}
	b := x.byKey[k]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(x.limit, x.burst)}
		x.byKey[k] = b
	}
	b.seen = now
	return b.lim
}

// Len is how many keys are kept.
func (x *Buckets[K]) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.byKey)
}
