package sqlstore

import "github.com/svc-project/svc"

// A change feed reads stored rows back into the Writes that Append
// answered when they committed; these are the same for every store.

// Write is the stored view as Append answered it, with its product's ref:
// what a ChangeFeed hands over.
func (r *ViewRow) Write(brandID string, ref svc.ProductRef) *svc.Write {
	v := r.Event(brandID)
	w := &svc.Write{View: v, Result: svc.WriteResult{Status: svc.StatusAccepted, EventID: v.Meta.EventID}}
	w.Result.Lines = w.Lines([]svc.ProductRef{ref})
	return w
}

// Write is the stored cart as Append answered it, with its product's ref.
func (r *CartRow) Write(brandID string, ref svc.ProductRef) *svc.Write {
	c := r.Event(brandID)
	w := &svc.Write{Cart: c, Result: svc.WriteResult{Status: svc.StatusAccepted, EventID: c.Meta.EventID}}
	w.Result.Lines = w.Lines([]svc.ProductRef{ref})
	return w
}

// FeedOrders gathers the order lines a change feed reads, one row per
// line and an order's lines together, into the Writes Append answered.
// An order comes as it was ordered, its cancelled units included: its
// cancellations come apart, so that each counts once.
type FeedOrders struct {
	Writes []*svc.Write
	// Keys holds what the store gave with each order's first line (its
	// row id, its transaction), in the order of Writes.
	Keys  []int64
	cur   *svc.PurchaseEvent
	curID int64
	refs  []svc.ProductRef
}

// Line adds a line scanned into r, with its product's ref, the order's
// brand and the units cancelled since it was ordered.
func (f *FeedOrders) Line(r *OrderRow, ref svc.ProductRef, brandID string, cancelled, key int64) {
	if f.cur == nil || r.ID != f.curID {
		f.Flush()
		f.cur, f.curID, f.refs = r.Event(brandID), r.ID, nil
		f.Keys = append(f.Keys, key)
	}
	it := r.Item()
	it.Quantity = new(*it.Quantity + cancelled)
	f.cur.Order.Items = append(f.cur.Order.Items, it)
	f.refs = append(f.refs, ref)
}

// Flush ends the order being read: call it after the last line.
func (f *FeedOrders) Flush() {
	if f.cur != nil {
		f.Writes = append(f.Writes, &svc.Write{Purchase: f.cur, Result: svc.WriteResult{Status: svc.StatusAccepted,
			EventID: f.cur.Meta.EventID, Lines: svc.LinesOf(f.cur, f.refs)}})
		f.cur = nil
	}
}
