package tracker

import (
	"context"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/binenc"
	"github.com/svc-project/svc/internal/prices"
)

// kept is what the snapshot keeps beside the counts (snapshot.Kept): the
// recent purchases, and the catalog's prices paid. A save cuts those the
// tracker holds when the last shard is cut; a restore fills those of a
// new beside, which is swapped in with the engine.
type kept struct {
	t    *Tracker
	side *beside // restored into; nil for a save, which cuts the tracker's
}

// Cut copies the recent purchases and prices, while the commit path is
// held: about 30 ms for 400,000 orders and 500,000 priced products
// (BenchmarkCut in internal/purchasefeed and internal/prices).
func (k kept) Cut() func([]byte) ([]byte, error) {
	feed, paid := k.t.beside.Load().purchases.Cut(), k.t.cat.PriceHistory().Cut()
	return func(b []byte) ([]byte, error) {
		f, err := feed.AppendBinary(nil)
		if err != nil {
			return nil, err
		}
		return paid.AppendBinary(binenc.AppendBytes(b, f))
	}
}

// Restore decodes what Cut's encoding wrote: all of it, or, refused,
// none.
func (k kept) Restore(b []byte) error {
	d := binenc.Decoder{B: b}
	feed := d.Bytes()
	if d.Err != nil {
		return d.Err
	}
	paid := prices.New()
	if err := paid.UnmarshalBinary(d.B); err != nil {
		return err
	}
	if err := k.side.purchases.UnmarshalBinary(feed); err != nil {
		return err
	}
	k.t.cat.SetPriceHistory(paid)
	return nil
}

// Load reads the recent purchases from the store, and the prices come
// from the restore's pass over the orders.
func (k kept) Load(ctx context.Context, r svc.EventReader) error {
	return k.side.purchases.Load(ctx, r, k.t.cfg.Now())
}

// Order adds a product of an order committed after the cut; its price
// comes from the restore's pass over the orders.
func (k kept) Order(p svc.RecentPurchase) { k.side.purchases.Add(p) }

// Cancel takes out what a cancellation after the cut removed.
func (k kept) Cancel(r svc.CancelRecord, now time.Time) {
	k.side.purchases.CancelLine(r)
	k.t.cat.Cancel(r, now)
}
