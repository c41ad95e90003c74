package tracker

import (
	"context"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/carts"
	"github.com/svc-project/svc/internal/purchasefeed"
)

// beside is what is kept beside the engine: add-to-carts and the recent
// purchases of each brand. Every load reads them at the same moment as
// the engine's events, and swaps them in with it, so that a recount after
// an erasure leaves nothing of what it removed: the carts from the store,
// the recent purchases from the snapshot file when a restore has it
// (kept.go), else from the store. Cancellations take out what they remove
// as they come, with the engine (applyCancels).
type beside struct {
	carts     *carts.Counter
	purchases *purchasefeed.Feed
}

func newBeside() *beside {
	return &beside{carts: carts.New(), purchases: purchasefeed.New()}
}

// loader is load as a snapshot.Loader's Beside: they load beside the
// products and the counts.
func (s *beside) loader(now time.Time) func(context.Context, svc.EventReader) error {
	return func(ctx context.Context, r svc.EventReader) error { return s.load(ctx, r, now) }
}

// load reads their events from the store's reader.
func (s *beside) load(ctx context.Context, r svc.EventReader, now time.Time) error {
	if err := s.carts.Load(ctx, r, now); err != nil {
		return err
	}
	return s.purchases.Load(ctx, r, now)
}

// cartsLoader loads the carts alone, for a restore, which restores the
// recent purchases as kept.
func (s *beside) cartsLoader(now time.Time) func(context.Context, svc.EventReader) error {
	return func(ctx context.Context, r svc.EventReader) error { return s.carts.Load(ctx, r, now) }
}

// sweep frees what aged out.
func (s *beside) sweep(now time.Time) {
	s.carts.Sweep(now)
	s.purchases.Sweep(now.Add(-svc.MaxRecentWindow))
}

// RecentActivity returns the recent purchases brand b's feed may show, of
// one product or of every product, newest first, under the brand's privacy
// rules (docs/honesty.md). A product never seen has none.
func (t *Tracker) RecentActivity(q svc.RecentQuery, b *svc.Brand) []svc.RecentItem {
	var ref svc.ProductRef
	if q.ProductID != "" {
		var ok bool
		if ref, ok = t.products.Ref(q.BrandID, q.ProductID); !ok {
			return nil
		}
	}
	return t.beside.Load().purchases.Activity(b, ref, t.cat, t.cfg.Now())
}
