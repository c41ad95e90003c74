package tracker

import (
	"context"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/purchasefeed"
	"github.com/svc-project/svc/internal/window"
)

// signals are what is kept beside the engine: add-to-carts, as distinct
// sessions per product, and the recent purchases of each brand, with
// where they went. They are not in the snapshot file: every load reads
// them from the store, at the same moment as the engine's events, and
// swaps them in with it, so that a recount after an erasure leaves nothing
// of what it removed. Cancellations take out what they remove as they
// come, with the engine (applyCancels).
type signals struct {
	// carts counts each session once per product, at its latest
	// add-to-cart: the engine's viewer count, fed with carts.
	carts  *window.Engine
	recent *purchasefeed.Feed
}

func newSignals() *signals {
	return &signals{carts: window.New(svc.MaxCartWindow, 0), recent: purchasefeed.New()}
}

// addPurchase records the products of an accepted order for the feed,
// which keeps the keyed ones.
func (s *signals) addPurchase(e *svc.PurchaseEvent, lines []svc.Line) {
	country, city := deref(e.Context.Country), deref(e.Context.City)
	if country == "" {
		city = "" // a city without its country is no place to show
	}
	ps := make([]svc.RecentPurchase, len(lines))
	for i, l := range lines {
		ps[i] = svc.RecentPurchase{BrandID: e.BrandID, Order: e.Meta.EventID, Product: l.Product, Time: e.Meta.Time,
			Units: l.Units, Country: country, City: city, Keyed: e.Meta.Keyed}
	}
	s.recent.Add(ps...) // together: the feed counts an order's lines as one order
}

// cancelPurchase takes what a cancellation removed out of the feed: the
// order's product goes when none of it is left.
func (s *signals) cancelPurchase(r svc.CancelRecord) {
	units := r.Units
	if r.Orders > 0 {
		units = 0 // the whole line
	}
	s.recent.Cancel(r.OrderEventID, r.Product, units)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (s *signals) addCart(ref svc.ProductRef, at time.Time, session *string, now time.Time) {
	id := ""
	if session != nil {
		id = *session
	}
	s.carts.AddView(ref, at, s.carts.SessionHash(id), now)
}

// loader is load as a snapshot.Loader's Beside: the signals load beside
// the products and the counts.
func (s *signals) loader(now time.Time) func(context.Context, svc.EventReader) error {
	return func(ctx context.Context, r svc.EventReader) error { return s.load(ctx, r, now) }
}

// load reads the signals' events from the store's reader.
func (s *signals) load(ctx context.Context, r svc.EventReader, now time.Time) error {
	err := r.Carts(ctx, now.Add(-svc.MaxCartWindow), func(c svc.CartRecord) error {
		s.carts.AddView(c.Product, c.Time, s.carts.SessionHash(c.SessionID), now)
		return nil
	})
	if err != nil {
		return err
	}
	err = r.RecentPurchases(ctx, now.Add(-svc.MaxRecentWindow), func(p svc.RecentPurchase) error {
		if p.Country == "" {
			p.City = ""
		}
		s.recent.Add(p)
		return nil
	})
	s.carts.Trim()
	s.recent.Trim()
	return err
}

// sweep frees what aged out.
func (s *signals) sweep(now time.Time) {
	s.carts.Sweep(now)
	s.recent.Sweep(now.Add(-svc.MaxRecentWindow))
}

// carts returns the distinct sessions that added the product to a cart in
// (now-w, now].
func (s *signals) cartsIn(ref svc.ProductRef, now time.Time, w time.Duration) int64 {
	return s.carts.Counts(ref, now, w, 0).Viewers
}
