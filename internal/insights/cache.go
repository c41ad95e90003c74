package insights

import (
	"context"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Cache keeps each brand's Figures for a while, so that a dashboard's
// pages and the experiment endpoint do not read the rollups on each
// request, and makes requests for a brand that come together share one
// reading (singleflight). The reading stops when every request waiting
// for it has gone.
//
// A request holds the Figures Brand gives it until it calls their
// Release, and the cache holds those it keeps: the buffers of a reading
// no one holds go to the next (a reading's products' counts were 4.4 MB
// at 100,000 products, and their garbage most of a page's memory,
// bench/RESULTS.md).
type Cache struct {
	Store Source
	Now   func() time.Time
	TTL   time.Duration
	// Stale is how long past TTL a brand's figures are still answered
	// while one reading, in the background, replaces them: no request
	// then waits for a reading but the first. 0: none.
	Stale time.Duration

	mu     sync.Mutex
	data   map[string]*Figures
	calls  map[string]*call // by brand: the reading in flight
	seq    int64
	group  singleflight.Group
	days   dayCache   // the viewers of whole days, for every reading
	ids    idCache    // the brands' products, for every reading
	titles titleCache // the brands' titles, likewise
	// Buffers of readings released (*[]packedCounts) and of the
	// products' orders (*[]topKey), for the next.
	counts, keys sync.Pool
}

// call is a reading in flight and how many requests wait for it.
type call struct {
	key     string // its singleflight key: a reading given up is never joined
	ctx     context.Context
	waiting int
	cancel  context.CancelFunc
	// background: started for stale figures, by no request; it ends on
	// its own timeout, not when its waiters leave.
	background bool
	// value: the figures read, held for each request waiting when the
	// reading ended; nil until then, or after an error.
	value *Figures
}

// refreshTimeout bounds a background reading.
const refreshTimeout = 30 * time.Second

// Brand returns the brand's figures, read again when older than TTL,
// held until the caller calls their Release.
func (c *Cache) Brand(ctx context.Context, brandID string) (*Figures, error) {
	now := c.Now()
	c.mu.Lock()
	f := c.data[brandID]
	if f != nil && now.Sub(f.At) < c.TTL && !now.Before(f.At) {
		f.holds++
		c.mu.Unlock()
		return f, nil
	}
	if c.calls == nil {
		c.calls, c.data = map[string]*call{}, map[string]*Figures{}
	}
	stale := f != nil && now.Sub(f.At) < c.TTL+c.Stale && !now.Before(f.At)
	cl := c.calls[brandID]
	if cl == nil {
		// Not the request's context: the reading is everyone's, and ends
		// when the last request waiting for it leaves.
		var readCtx context.Context
		var cancel context.CancelFunc
		if stale {
			readCtx, cancel = context.WithTimeout(context.WithoutCancel(ctx), refreshTimeout)
		} else {
			readCtx, cancel = context.WithCancel(context.WithoutCancel(ctx))
		}
		c.seq++
		cl = &call{key: brandID + "\x00" + strconv.FormatInt(c.seq, 10), ctx: readCtx, cancel: cancel, background: stale}
		c.calls[brandID] = cl
	}
	if stale {
		c.start(brandID, cl, now)
		f.holds++
		c.mu.Unlock()
		return f, nil
	}
	cl.waiting++
	ch := c.start(brandID, cl, now)
	c.mu.Unlock()
	select {
	case r := <-ch: // held for this request by the reading's end
		c.leave(brandID, cl, false)
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*Figures), nil
	case <-ctx.Done():
		c.leave(brandID, cl, true)
		return nil, ctx.Err()
	}
}

// start starts the reading of cl, or joins it: fn runs once per key.
// Called with mu held.
func (c *Cache) start(brandID string, cl *call, now time.Time) <-chan singleflight.Result {
	return c.group.DoChan(cl.key, func() (any, error) {
		defer cl.cancel()
		f, err := loadFigures(cl.ctx, c.Store, brandID, now)
		if f != nil {
			f.days, f.ids, f.titles, f.cache = &c.days, &c.ids, &c.titles, c
		}
		c.mu.Lock()
		if c.calls[brandID] == cl {
			delete(c.calls, brandID)
		}
		if err == nil {
			// Each request waiting now gets them; one that leaves
			// instead gives its hold back (leave).
			f.holds, cl.value = cl.waiting, f
			if c.TTL > 0 {
				if old := c.data[brandID]; old != nil {
					c.release(old)
				}
				c.data[brandID] = f
				f.holds++
			}
		}
		// A brand's figures hold its sketches' sums: those past use go,
		// rather than stay for every brand ever shown.
		for id, old := range c.data {
			if now.Sub(old.At) >= c.TTL+c.Stale {
				delete(c.data, id)
				c.release(old)
			}
		}
		c.mu.Unlock()
		return f, err
	})
}

// leave counts a request out; the last to give up stops the reading, and
// the next request starts another.
func (c *Cache) leave(brandID string, cl *call, gaveUp bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl.waiting--
	if gaveUp && cl.value != nil {
		c.release(cl.value) // held for it at the reading's end
	}
	if gaveUp && cl.waiting == 0 && !cl.background {
		cl.cancel()
		if c.calls[brandID] == cl {
			delete(c.calls, brandID)
		}
	}
}

// Forget drops a brand's figures, so that the next read sees every change.
func (c *Cache) Forget(brandID string) {
	c.mu.Lock()
	if f := c.data[brandID]; f != nil {
		delete(c.data, brandID)
		c.release(f)
	}
	c.mu.Unlock()
}

// release gives back a hold of f; the last gives its buffers to the
// readings to come. Called with mu held.
func (c *Cache) release(f *Figures) {
	switch f.holds--; {
	case f.holds > 0:
		return
	case f.holds < 0:
		panic("insights: Figures released more often than held")
	}
	p := &f.products
	p.Lock()
	if p.rows != nil {
		recycle(&c.counts, p.rows)
	}
	// Read again, f would have no product, rather than another's counts.
	p.refs, p.ids, p.rows, p.wide = nil, nil, nil, nil
	p.Unlock()
}

// countPool and keyPool are c's buffers of products' counts and of
// their orders (EachTop); nil without a Cache.
func (c *Cache) countPool() *sync.Pool {
	if c == nil {
		return nil
	}
	return &c.counts
}

func (c *Cache) keyPool() *sync.Pool {
	if c == nil {
		return nil
	}
	return &c.keys
}

// buffer returns an empty slice for n values: one of the pool's, when it
// has one that large.
func buffer[T any](pool *sync.Pool, n int) []T {
	if pool != nil {
		if b, _ := pool.Get().(*[]T); b != nil && cap(*b) >= n {
			return (*b)[:0]
		}
	}
	return make([]T, 0, n)
}

// recycle gives b to the pool, for buffer.
func recycle[T any](pool *sync.Pool, b []T) {
	if pool != nil {
		b = b[:0]
		pool.Put(&b)
	}
}
