package svc

import (
	"bytes"
	"context"
	"fmt"
	"time"
)

// CancelEvent cancels an order, or refunds some of its units
// (docs/spec.md, Order cancellation). Items nil cancels the whole order;
// otherwise each item takes out up to its quantity of the product's units.
type CancelEvent struct {
	BrandID string
	OrderID string
	Items   []CancelItem

	Meta EventMeta // EventID and ReceivedAt; a cancellation is always keyed

	// IfCounted takes out only orders stored already, and records nothing
	// for an order not seen yet (a platform's "not counted yet", such as a
	// WooCommerce order whose first payment failed): when that order comes
	// it counts.
	IfCounted bool

	// IdempotencyKey and BodyHash work as a Write's: a repeat answers the
	// first answer again.
	IdempotencyKey string
	BodyHash       [32]byte
	Result         CancelResult // set by CancelOrder
}

// CancelItem is the quantity of one product to take out of an order.
type CancelItem struct {
	ProductID string
	Quantity  *int64
}

// CancelResult is what became of a cancellation.
type CancelResult struct {
	// Err is ECONFLICT when the idempotency key was used with another body.
	Err error
	// Status is StatusAccepted when the cancellation took units out of the
	// order, or recorded it before the order came; StatusDuplicate when
	// nothing of what it names was left to take out; StatusIgnored when an
	// IfCounted cancellation found no order stored.
	Status string
	// EventID is this cancellation's; for a duplicate, the order's latest
	// cancellation's, or the order's own when it has none.
	EventID string
	Replay  bool
	// Removed is what the counts lose, one record per product of each order
	// touched; empty for a replay, a duplicate, or an order not seen yet.
	Removed []CancelRecord
}

// CancelRecord is what one cancellation took out of one product of one
// stored order: what the window engine and the prices paid subtract.
type CancelRecord struct {
	Order        int64 // the store's id of the order (its log position)
	OrderEventID string
	Product      ProductRef
	Time         time.Time // the order's
	Units        int64     // units taken out
	// Orders is 1 when none of the product is left in the order: it no
	// longer counts as an order of the product.
	Orders int64
	// The order's price record of the product before and after (see
	// MeanUnitPrice); nil when there was or is none.
	Currency                string
	PriceBefore, PriceAfter *float64
}

// StatusIgnored is the status of an IfCounted cancellation of an order
// that is not stored: nothing was counted, and nothing is recorded.
const StatusIgnored = "ignored"

// Validate returns every bad field of the cancellation, or nil.
func (c *CancelEvent) Validate() []FieldError {
	var fe fieldErrors
	fe.id("BrandID", c.BrandID, true)
	fe.id("OrderID", c.OrderID, true)
	switch n := len(c.Items); {
	case c.Items == nil:
	case n == 0:
		fe.add("Items", "must have 1 to %d lines, or be left out to cancel the whole order", MaxOrderItems)
	case n > MaxOrderItems:
		fe.add("Items", "must have at most %d lines", MaxOrderItems)
	}
	for i := range min(len(c.Items), MaxOrderItems) {
		it := &c.Items[i]
		p := fmt.Sprintf("Items[%d].", i)
		fe.id(p+"ProductID", it.ProductID, true)
		if it.Quantity == nil {
			fe.add(p+"Quantity", "is required")
		} else if q := *it.Quantity; q < 1 || q > MaxQuantity {
			fe.add(p+"Quantity", "must be an integer from 1 to %d", MaxQuantity)
		}
	}
	return fe
}

// Key returns the cancellation's idempotency key.
func (c *CancelEvent) Key() IdempotencyKey {
	return IdempotencyKey{BrandID: c.BrandID, Scope: "cancel:keyed", Key: c.IdempotencyKey}
}

// StoredOrder is an order of a brand as CancelOrder reads it, with its
// lines as they stand (cancelled units already taken out).
type StoredOrder struct {
	ID       int64
	EventID  string
	Keyed    bool
	Time     time.Time
	Currency string
	Lines    []StoredLine
	// LastCancel is the event id of the newest cancellation of the order,
	// "" when there is none.
	LastCancel string
}

// StoredLine is one line of a StoredOrder.
type StoredLine struct {
	Line      int
	Product   ProductRef
	ProductID string
	Quantity  int64 // 0 once every unit of the line is cancelled
	UnitPrice *float64

	changed bool // by the cancellation being decided
}

// CancelTx is what CancelOrder asks of a store, inside the one transaction
// that persists the cancellation.
type CancelTx interface {
	// Answer returns the answer of an idempotency key given after since.
	Answer(ctx context.Context, k IdempotencyKey, since time.Time) (a Answer, ok bool, err error)
	// PutAnswer remembers an idempotency key's answer.
	PutAnswer(ctx context.Context, k IdempotencyKey, bodyHash [32]byte, at time.Time, a Answer) error
	// Orders returns the brand's stored orders with the id, keyed and
	// anonymous, locked until the transaction ends where the store locks
	// rows.
	Orders(ctx context.Context, brandID, orderID string) ([]StoredOrder, error)
	// InsertCancelled stores a keyed order with the id and no lines, so
	// that the id counts nothing from now on; it reports false when a keyed
	// order with the id was stored meanwhile (by another node), and then
	// stores nothing.
	InsertCancelled(ctx context.Context, brandID, orderID, eventID string, at time.Time) (bool, error)
	// InsertPending records the units of a partial cancellation of an order
	// not stored yet, which every order with the id takes out when it
	// comes (PendingLookup); it reports false when a keyed order with the
	// id was stored meanwhile (by another node), and then records nothing.
	InsertPending(ctx context.Context, brandID, orderID, eventID string, items []CancelItem, at time.Time) (bool, error)
	// SetQuantity sets what is left of a line of an order.
	SetQuantity(ctx context.Context, order int64, line int, quantity int64) error
	// InsertCancel logs what a cancellation took out of a product of an
	// order, received at at.
	InsertCancel(ctx context.Context, eventID string, r CancelRecord, at time.Time) error
	// ProductOf returns the product a name belongs to (NameLookup).
	ProductOf(ctx context.Context, brandID, name string) (productID string, ok bool, err error)
}

// CancelOrder decides and persists a cancellation through tx and sets
// c.Result (docs/decisions.md, Cancellations). It takes the units out of
// every stored order of the brand with the id, keyed or anonymous, line by
// line in line order; a product no longer in an order counts no order of
// it. When no keyed order with the id is stored yet:
//
//   - a whole-order cancellation stores a keyed order with the id and no
//     lines, so that a later purchase with the id is a duplicate that
//     counts nothing: a cancelled order's id cannot be reused, and a
//     cancellation that overtook its order still wins;
//   - a partial one (a refund that overtook its order) records its units,
//     which the order takes out when it comes (TakeOutPending): the rest
//     of the order counts;
//   - an IfCounted one records nothing.
func CancelOrder(ctx context.Context, tx CancelTx, c *CancelEvent) error {
	c.Result = CancelResult{}
	k := c.Key()
	if c.IdempotencyKey != "" {
		a, ok, err := tx.Answer(ctx, k, c.Meta.ReceivedAt.Add(-IdempotencyTTL))
		switch {
		case err != nil:
			return err
		case ok && !bytes.Equal(a.BodyHash, c.BodyHash[:]):
			c.Result.Err = Errorf(ECONFLICT, "Idempotency-Key %q was used with another body in the last %s", c.IdempotencyKey, IdempotencyTTL)
			return nil
		case ok:
			c.Result = CancelResult{Status: a.Status, EventID: a.EventID, Replay: true}
			return nil
		}
	}
	// The items name products as the orders' lines do, by the product a
	// name belongs to (names.go).
	for i := range c.Items {
		owner, ok, err := tx.ProductOf(ctx, c.BrandID, c.Items[i].ProductID)
		if err != nil {
			return err
		}
		if ok {
			c.Items[i].ProductID = owner
		}
	}
	orders, err := tx.Orders(ctx, c.BrandID, c.OrderID)
	if err != nil {
		return err
	}
	keyed := false
	for _, o := range orders {
		keyed = keyed || o.Keyed
	}
	if !keyed && !c.IfCounted {
		var ok bool
		if c.Items == nil {
			ok, err = tx.InsertCancelled(ctx, c.BrandID, c.OrderID, c.Meta.EventID, c.Meta.ReceivedAt)
		} else {
			ok, err = tx.InsertPending(ctx, c.BrandID, c.OrderID, c.Meta.EventID, c.Items, c.Meta.ReceivedAt)
		}
		if err != nil {
			return err
		}
		if !ok { // a keyed order came meanwhile: cancel it too
			if orders, err = tx.Orders(ctx, c.BrandID, c.OrderID); err != nil {
				return err
			}
		} else {
			c.Result.Status = StatusAccepted
		}
	}
	for i := range orders {
		removed := takeOut(&orders[i], c.Items)
		for _, l := range orders[i].Lines {
			if l.changed {
				if err := tx.SetQuantity(ctx, orders[i].ID, l.Line, l.Quantity); err != nil {
					return err
				}
			}
		}
		for _, r := range removed {
			if err := tx.InsertCancel(ctx, c.Meta.EventID, r, c.Meta.ReceivedAt); err != nil {
				return err
			}
		}
		c.Result.Removed = append(c.Result.Removed, removed...)
	}
	switch {
	case c.Result.Status == StatusAccepted || len(c.Result.Removed) > 0:
		c.Result.Status, c.Result.EventID = StatusAccepted, c.Meta.EventID
	case len(orders) == 0: // IfCounted, of an order not stored
		c.Result.Status = StatusIgnored
	default: // stored orders with nothing left to take out
		c.Result.Status, c.Result.EventID = StatusDuplicate, orders[0].EventID
		for _, o := range orders {
			switch {
			case o.LastCancel != "":
				c.Result.EventID = o.LastCancel
			case len(o.Lines) == 0: // stored by a cancellation that came first
				c.Result.EventID = o.EventID
			}
		}
	}
	if c.IdempotencyKey == "" {
		return nil
	}
	return tx.PutAnswer(ctx, k, c.BodyHash, c.Meta.ReceivedAt, Answer{Status: c.Result.Status, EventID: c.Result.EventID})
}

// takeOut takes the items' units out of the order's lines (every unit when
// items is nil), marks the lines it changed, and returns what each product
// of the order lost.
func takeOut(o *StoredOrder, items []CancelItem) []CancelRecord {
	before := o.prices()
	if items == nil {
		for i := range o.Lines {
			if o.Lines[i].Quantity > 0 {
				o.Lines[i].Quantity, o.Lines[i].changed = 0, true
			}
		}
	}
	for _, it := range items {
		left := *it.Quantity
		for i := range o.Lines {
			l := &o.Lines[i]
			if left == 0 {
				break
			}
			if l.ProductID != it.ProductID || l.Quantity == 0 {
				continue
			}
			n := min(left, l.Quantity)
			l.Quantity, l.changed, left = l.Quantity-n, true, left-n
		}
	}
	after := o.prices()
	var out []CancelRecord
	for _, ref := range before.order {
		b, a := before.byRef[ref], after.byRef[ref]
		if a.units == b.units {
			continue
		}
		r := CancelRecord{Order: o.ID, OrderEventID: o.EventID, Product: ref, Time: o.Time, Units: b.units - a.units,
			Currency: o.Currency, PriceBefore: b.mean(), PriceAfter: a.mean()}
		if a.units == 0 {
			r.Orders = 1
		}
		out = append(out, r)
	}
	return out
}

// orderPrices are an order's units and price records per product, over the
// lines with units left.
type orderPrices struct {
	order []ProductRef
	byRef map[ProductRef]*priceSum
}

func (o *StoredOrder) prices() orderPrices {
	p := orderPrices{byRef: map[ProductRef]*priceSum{}}
	for _, l := range o.Lines {
		s := p.byRef[l.Product]
		if s == nil {
			s = new(priceSum)
			p.byRef[l.Product] = s
			p.order = append(p.order, l.Product)
		}
		if l.Quantity > 0 {
			s.add(l.Quantity, deref(l.UnitPrice), l.UnitPrice != nil)
		}
	}
	return p
}

// PendingLookup is what TakeOutPending asks of a store.
type PendingLookup interface {
	// PendingCancels returns the units that partial cancellations recorded
	// for the brand's order with the id before it came (CancelTx's
	// InsertPending), in the order they came; none when there are none.
	PendingCancels(ctx context.Context, brandID, orderID string) ([]CancelItem, error)
}

// TakeOutPending takes out of an order that is coming the units that
// partial cancellations of it recorded before it came, line by line in
// line order as CancelOrder does; a line left with no units is dropped.
// Decide calls it for every order it accepts, so that a refund that
// overtook its order takes out its units, and no more.
func TakeOutPending(ctx context.Context, look PendingLookup, e *PurchaseEvent) error {
	if e.sent != nil {
		e.Order.Items = e.sent
	}
	pending, err := look.PendingCancels(ctx, e.BrandID, e.Order.OrderID)
	if err != nil || len(pending) == 0 {
		return err
	}
	e.sent = e.Order.Items
	left := make([]int64, len(e.Order.Items))
	for i, it := range e.Order.Items {
		left[i] = *it.Quantity
	}
	for _, p := range pending {
		q := *p.Quantity
		for i := range e.Order.Items {
			if q == 0 {
				break
			}
			if e.Order.Items[i].ProductID == p.ProductID && left[i] > 0 {
				n := min(q, left[i])
				left[i], q = left[i]-n, q-n
			}
		}
	}
	items := e.Order.Items[:0:0]
	for i, it := range e.Order.Items {
		if left[i] > 0 {
			it.Quantity = &left[i]
			items = append(items, it)
		}
	}
	e.Order.Items = items
	return nil
}
