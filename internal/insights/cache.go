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
}

// refreshTimeout bounds a background reading.
const refreshTimeout = 30 * time.Second

// Brand returns the brand's figures, read again when older than TTL.
func (c *Cache) Brand(ctx context.Context, brandID string) (*Figures, error) {
	now := c.Now()
	c.mu.Lock()
	f := c.data[brandID]
	if f != nil && now.Sub(f.At) < c.TTL && !now.Before(f.At) {
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
		c.mu.Unlock()
		return f, nil
	}
	cl.waiting++
	ch := c.start(brandID, cl, now)
	c.mu.Unlock()
	select {
	case r := <-ch:
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
			f.days, f.ids, f.titles = &c.days, &c.ids, &c.titles
		}
		c.mu.Lock()
		if c.calls[brandID] == cl {
			delete(c.calls, brandID)
		}
		if err == nil && c.TTL > 0 {
			c.data[brandID] = f
		}
		// A brand's figures hold its sketches' sums: those past use go,
		// rather than stay for every brand ever shown.
		for id, old := range c.data {
			if now.Sub(old.At) >= c.TTL+c.Stale {
				delete(c.data, id)
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
	delete(c.data, brandID)
	c.mu.Unlock()
}
