// Package carts counts add-to-carts: the distinct sessions that added a
// product to a cart in a window ending now, each counted once per product
// at its latest add-to-cart, over the last svc.MaxCartWindow. It is the
// window engine's viewer count, fed with carts; it does no I/O: the
// tracker feeds it the carts the store accepted, and rebuilds it from the
// store's reader with the counts.
package carts

import (
	"context"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/window"
)

// Counter holds the carts of the last svc.MaxCartWindow. It is safe for
// concurrent use.
type Counter struct{ e *window.Engine }

// New returns an empty counter.
func New() *Counter { return &Counter{e: window.New(svc.MaxCartWindow, 0)} }

// Add counts a session's add-to-cart of the product at at; one without a
// session (nil) counts no one.
func (c *Counter) Add(ref svc.ProductRef, at time.Time, session *string, now time.Time) {
	id := ""
	if session != nil {
		id = *session
	}
	c.e.AddView(ref, at, c.e.SessionHash(id), now)
}

// Load reads the carts of the last svc.MaxCartWindow before now from the
// store's reader, as a start or a recount does.
func (c *Counter) Load(ctx context.Context, r svc.EventReader, now time.Time) error {
	defer c.e.Trim()
	return r.Carts(ctx, now.Add(-svc.MaxCartWindow), func(cr svc.CartRecord) error {
		c.e.AddView(cr.Product, cr.Time, c.e.SessionHash(cr.SessionID), now)
		return nil
	})
}

// Sweep frees what aged out.
func (c *Counter) Sweep(now time.Time) { c.e.Sweep(now) }

// In returns the distinct sessions that added the product to a cart in
// (now-w, now].
func (c *Counter) In(ref svc.ProductRef, now time.Time, w time.Duration) int64 {
	return c.e.Counts(ref, now, w, 0).Viewers
}
