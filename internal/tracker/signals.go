package tracker

import (
	"context"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/window"
)

// signals are the counts kept beside the engine: add-to-carts, as distinct
// sessions per product. They are not in the snapshot file; every load
// reads them from the store, at the same moment as the engine's events, and
// they are swapped in with it, so that a recount (an erasure, a
// cancellation) leaves nothing of what it removed.
type signals struct {
	// carts counts each session once per product, at its latest
	// add-to-cart: the engine's viewer count, fed with carts.
	carts *window.Engine
}

func newSignals() *signals {
	return &signals{carts: window.New(svc.MaxCartWindow, 0)}
}

func (s *signals) addCart(ref svc.ProductRef, at time.Time, session *string, now time.Time) {
	id := ""
	if session != nil {
		id = *session
	}
	s.carts.AddView(ref, at, s.carts.SessionHash(id), now)
}

// load reads the signals' events from the store's reader.
func (s *signals) load(ctx context.Context, r svc.EventReader, now time.Time) error {
	return r.Carts(ctx, now.Add(-svc.MaxCartWindow), func(c svc.CartRecord) error {
		s.carts.AddView(c.Product, c.Time, s.carts.SessionHash(c.SessionID), now)
		return nil
	})
}

// sweep frees what aged out.
func (s *signals) sweep(now time.Time) {
	s.carts.Sweep(now)
}

// carts returns the distinct sessions that added the product to a cart in
// (now-w, now].
func (s *signals) cartsIn(ref svc.ProductRef, now time.Time, w time.Duration) int64 {
	return s.carts.Counts(ref, now, w, 0).Viewers
}
