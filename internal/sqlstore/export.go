package sqlstore

import (
	"context"
	"time"

	"github.com/svc-project/svc"
)

// Both stores keep events in rows of the same columns, times in unix
// milliseconds; ViewRow and OrderRow turn such rows back into events
// (ExportEvents, a change feed) in one way.

// The columns of a ViewRow and an OrderRow, FROM their tables, for
// "SELECT " + columns + " FROM " + tables, beside Dest so that the two keep
// one order.
const (
	ViewRowColumns = `v.event_id, p.product_id, p.sku, p.title, p.url, v.ts, v.given_ts, v.received_at,
		v.session_id, v.country, v.locale, v.keyed, v.arm`
	ViewRowTables   = "view_events v JOIN products p ON p.id = v.product"
	OrderRowColumns = `e.id, e.event_id, e.order_id, e.ts, e.given_ts, e.received_at, e.session_id,
		e.currency, e.total_value, e.keyed, p.product_id, i.sku, i.title, i.quantity, i.unit_price, e.country, e.city`
	// A line whose every unit is cancelled is left out, and an order with
	// no line left, or none (a cancelled order's id that never came).
	OrderRowTables = "purchase_events e JOIN purchase_items i ON i.purchase = e.id AND i.quantity > 0 JOIN products p ON p.id = i.product"
	CartRowColumns = `c.event_id, p.product_id, p.sku, p.title, p.url, c.ts, c.given_ts, c.received_at,
		c.session_id, c.country, c.locale, c.keyed, c.quantity, c.arm`
	CartRowTables = "cart_events c JOIN products p ON p.id = c.product"
)

// CartRow is a stored add-to-cart as read back: select CartRowColumns,
// scan them into Dest, then take Event.
type CartRow struct {
	c             svc.CartEvent
	time, receive int64
	given         *int64
}

// Dest returns where the columns go, in order.
func (r *CartRow) Dest() []any {
	c := &r.c
	return []any{&c.Meta.EventID, &c.Product.ProductID, &c.Product.SKU, &c.Product.Title, &c.Product.URL,
		&r.time, &r.given, &r.receive, &c.Context.SessionID, &c.Context.Country, &c.Context.Locale, &c.Meta.Keyed, &c.Quantity, &c.Meta.Arm}
}

// Event returns the add-to-cart, of the brand given.
func (r *CartRow) Event(brandID string) *svc.CartEvent {
	c := r.c
	c.BrandID = brandID
	c.Context.Timestamp = restoreMeta(&c.Meta, r.time, r.receive, r.given)
	return &c
}

// ViewRow is a stored view as read back: select ViewRowColumns, scan them
// into Dest, then take Event.
type ViewRow struct {
	v             svc.ViewEvent
	time, receive int64
	given         *int64
}

// Dest returns where the columns go, in order.
func (r *ViewRow) Dest() []any {
	v := &r.v
	return []any{&v.Meta.EventID, &v.Product.ProductID, &v.Product.SKU, &v.Product.Title, &v.Product.URL,
		&r.time, &r.given, &r.receive, &v.Context.SessionID, &v.Context.Country, &v.Context.Locale, &v.Meta.Keyed, &v.Meta.Arm}
}

// Event returns the view, of the brand given.
func (r *ViewRow) Event(brandID string) *svc.ViewEvent {
	v := r.v
	v.BrandID = brandID
	v.Context.Timestamp = restoreMeta(&v.Meta, r.time, r.receive, r.given)
	return &v
}

// OrderRow is one line of a stored order as read back: select
// OrderRowColumns, scan them into Dest, then take Event and Item.
type OrderRow struct {
	ID            int64 // the store's id of the order
	e             svc.PurchaseEvent
	it            svc.PurchaseItem
	time, receive int64
	given         *int64
}

// Dest returns where the columns go, in order.
func (r *OrderRow) Dest() []any {
	e, it := &r.e, &r.it
	return []any{&r.ID, &e.Meta.EventID, &e.Order.OrderID, &r.time, &r.given, &r.receive, &e.Context.SessionID,
		&e.Order.Currency, &e.Order.TotalValue, &e.Meta.Keyed,
		&it.ProductID, &it.SKU, &it.Title, &it.Quantity, &it.UnitPrice, &e.Context.Country, &e.Context.City}
}

// Event returns the order, of the brand given, without its items.
func (r *OrderRow) Event(brandID string) *svc.PurchaseEvent {
	e := r.e
	e.BrandID = brandID
	e.Context.Timestamp = restoreMeta(&e.Meta, r.time, r.receive, r.given)
	return &e
}

// Item returns the line.
func (r *OrderRow) Item() svc.PurchaseItem { return r.it }

// restoreMeta fills the times of a stored event and returns its timestamp
// as it counts.
func restoreMeta(m *svc.EventMeta, ts, received int64, given *int64) *string {
	m.Time, m.ReceivedAt = time.UnixMilli(ts).UTC(), time.UnixMilli(received).UTC()
	if given != nil {
		g := time.UnixMilli(*given).UTC()
		m.GivenTime = &g
	}
	out := m.Time.Format(time.RFC3339Nano)
	return &out
}

// Exporter turns a brand's stored rows into exported events
// (EventStore.ExportEvents): call View with each view row's Scan, then
// OrderLine with each order line row's, the lines of an order together,
// then Flush.
type Exporter struct {
	BrandID string
	Emit    func(svc.ExportedEvent) error
	cur     *svc.PurchaseEvent
	curID   int64
}

// View scans a row of ViewRowColumns and emits its view.
func (x *Exporter) View(scan func(dest ...any) error) error {
	var r ViewRow
	if err := scan(r.Dest()...); err != nil {
		return err
	}
	return x.Emit(svc.ExportedEvent{View: r.Event(x.BrandID)})
}

// OrderLine scans a row of OrderRowColumns: the line is added to its
// order, which is emitted when a row of another order comes, or at Flush.
func (x *Exporter) OrderLine(scan func(dest ...any) error) error {
	var r OrderRow
	if err := scan(r.Dest()...); err != nil {
		return err
	}
	if x.cur == nil || r.ID != x.curID {
		if err := x.Flush(); err != nil {
			return err
		}
		x.cur, x.curID = r.Event(x.BrandID), r.ID
	}
	x.cur.Order.Items = append(x.cur.Order.Items, r.it)
	return nil
}

// Flush emits the last order.
func (x *Exporter) Flush() error {
	if x.cur == nil {
		return nil
	}
	cur := x.cur
	x.cur = nil
	return x.Emit(svc.ExportedEvent{Purchase: cur})
}

// Cart scans a row of CartRowColumns and emits its add-to-cart.
func (x *Exporter) Cart(scan func(dest ...any) error) error {
	var r CartRow
	if err := scan(r.Dest()...); err != nil {
		return err
	}
	return x.Emit(svc.ExportedEvent{Cart: r.Event(x.BrandID)})
}

// ExportBrand reads a brand's stored events, views, orders, then add-to-carts, each oldest
// first, and emits them (EventStore.ExportEvents). query runs a statement
// whose one parameter, written param ("?" or "$1" by the driver), is the
// brand id, and calls row with each row's Scan.
//
// Views kept in blocks (Dialect.Blocks) are read by ExportBlockViews
// instead, which the store passes as views; nil reads view_events.
func ExportBrand(brandID, param string, emit func(svc.ExportedEvent) error,
	query func(statement string, row func(scan func(dest ...any) error) error) error, views func() error) error {
	x := Exporter{BrandID: brandID, Emit: emit}
	var err error
	if views != nil {
		err = views()
	} else {
		err = query("SELECT "+ViewRowColumns+" FROM "+ViewRowTables+" WHERE p.brand_id = "+param+" ORDER BY v.ts, v.id", x.View)
	}
	if err != nil {
		return err
	}
	if err := query("SELECT "+OrderRowColumns+" FROM "+OrderRowTables+
		" WHERE e.brand_id = "+param+" ORDER BY e.ts, e.id, i.line", x.OrderLine); err != nil {
		return err
	}
	if err := x.Flush(); err != nil {
		return err
	}
	return query("SELECT "+CartRowColumns+" FROM "+CartRowTables+
		" WHERE p.brand_id = "+param+" ORDER BY c.ts, c.id", x.Cart)
}

// ExportBlockViews emits the brand's views kept in blocks, oldest first
// (ExportBrand's views).
func ExportBlockViews(ctx context.Context, q Queryer, brandID string, emit func(svc.ExportedEvent) error) error {
	return SQLite.ExportBlockViews(ctx, q, brandID, emit)
}
