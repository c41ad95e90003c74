package rollup

import (
	"database/sql"
	"strings"
)

// The queries that read stored events as the rollups count them, for
// both stores: "SELECT " + columns + " FROM " + tables + " WHERE " + a
// condition of the store's.
const (
	ViewColumns = "p.brand_id, v.product, v.ts, coalesce(v.session_id, ''), coalesce(v.country, ''), v.arm"
	ViewTables  = "view_events v JOIN products p ON p.id = v.product"
	CartColumns = "p.brand_id, c.product, c.ts, coalesce(c.session_id, '')"
	CartTables  = "cart_events c JOIN products p ON p.id = c.product"
	// Orders come line by line, ordered by "e.id, i.line".
	OrderColumns = "e.id, e.brand_id, e.ts, coalesce(e.session_id, ''), coalesce(e.country, ''), CASE WHEN e.keyed THEN coalesce(e.city, '') ELSE '' END, e.total_value, i.product, i.quantity, i.unit_price"
	OrderTables  = "purchase_events e JOIN purchase_items i ON i.purchase = e.id"
)

// SessionsOfViews selects, from the views the condition names ("v"),
// each session's brand, id, arm of its first view, and first and last
// times, for "INSERT INTO rollup_sessions (brand_id, session_id, arm,
// first_at, last_at) " + it + " ON CONFLICT ...": the sessions of a build,
// counted where the views are. The arm rides in the two low bits of the
// first time, so that one min() gives both.
const SessionsOfViews = `SELECT p.brand_id, v.session_id,
		CASE min(v.ts * 4 + CASE v.arm WHEN 'shown' THEN 1 WHEN 'held_out' THEN 2 ELSE 0 END) % 4 WHEN 1 THEN 'shown' WHEN 2 THEN 'held_out' ELSE '' END,
		min(v.ts), max(v.ts)
	FROM view_events v JOIN products p ON p.id = v.product
	WHERE v.session_id <> '' AND `

// ArmSessions selects, for the brand ("?" or "$1" in for its parameter),
// the arm, id and revenue of every session with an arm that bought (its
// orders kept in its row on the write path, AddSessionOrders), and 1 when
// it saw the widget (widget_sessions), else 0. Joining every order with
// every session took most of a page at 100,000 orders and 5 M sessions.
const ArmSessions = `SELECT s.arm, s.session_id, s.revenue, CASE WHEN w.session_id IS NULL THEN 0 ELSE 1 END
	FROM rollup_sessions s LEFT JOIN widget_sessions w ON w.brand_id = s.brand_id AND w.session_id = s.session_id
	WHERE s.brand_id = %s AND s.orders > 0`

// SessionOrderValues selects each session's orders and their value
// (brand_id, session_id, n, v), each order valued as Order.Value has it:
// what AddSessionOrders keeps, counted again by a build and by the
// migration that added it. Orders whose session has no row count nowhere.
const SessionOrderValues = `SELECT brand_id, session_id, count(*) AS n, sum(value) AS v FROM (
		SELECT e.brand_id, e.session_id,
			CASE WHEN count(i.unit_price) < count(*) AND e.total_value IS NOT NULL THEN e.total_value
				ELSE coalesce(sum(i.quantity * i.unit_price), 0) END AS value
		FROM purchase_events e JOIN purchase_items i ON i.purchase = e.id AND i.quantity > 0
		WHERE e.session_id IS NOT NULL AND e.session_id <> '' GROUP BY e.id, e.brand_id, e.session_id, e.total_value) ov
	GROUP BY brand_id, session_id`

// RecountSessionOrders sets every session's orders from the stored
// orders, in both stores' SQL.
const RecountSessionOrders = `UPDATE rollup_sessions SET orders = o.n, revenue = o.v FROM (` + SessionOrderValues + `) o
	WHERE rollup_sessions.brand_id = o.brand_id AND rollup_sessions.session_id = o.session_id`

// Scan is a row's Scan.
type Scan func(dest ...any) error

// ScanView reads a row of ViewColumns.
func ScanView(scan Scan) (View, error) {
	var v View
	err := scan(&v.Brand, &v.Product, &v.At, &v.Session, &v.Country, &v.Arm)
	return v, err
}

// ScanCart reads a row of CartColumns.
func ScanCart(scan Scan) (Cart, error) {
	var c Cart
	err := scan(&c.Brand, &c.Product, &c.At, &c.Session)
	return c, err
}

// Orders gathers rows of OrderColumns into orders, and leaves out those
// with no line left.
type Orders struct {
	Emit func(Order) error
	id   int64
	cur  *Order
}

// Add reads a row.
func (o *Orders) Add(scan Scan) error {
	var id int64
	var r Order
	var total, price sql.NullFloat64
	var l Line
	if err := scan(&id, &r.Brand, &r.At, &r.Session, &r.Country, &r.City, &total, &l.Product, &l.Quantity, &price); err != nil {
		return err
	}
	if price.Valid {
		l.Price = &price.Float64
	}
	if o.cur == nil || id != o.id {
		if err := o.Flush(); err != nil {
			return err
		}
		if total.Valid {
			r.Total = &total.Float64
		}
		o.cur, o.id = &r, id
	}
	o.cur.Lines = append(o.cur.Lines, l)
	return nil
}

// Flush emits the last order.
func (o *Orders) Flush() error {
	if o.cur == nil {
		return nil
	}
	c := o.cur
	o.cur = nil
	if _, ok := c.Value(); !ok {
		return nil // every line cancelled: it counts nowhere
	}
	return o.Emit(*c)
}

// SessionOrdersOf sets one session's orders and revenue from the stored
// orders: for an order given its session after it was stored (an
// order-received page's link). As RecountSessionOrders, it sets only a
// row the session's views made: a session with no view is in no arm and
// no funnel step, and a rebuild would not make its row either.
// Placeholders %[1]s the brand, %[2]s the session.
var SessionOrdersOf = `UPDATE rollup_sessions SET orders = o.n, revenue = o.v FROM (` +
	strings.Replace(SessionOrderValues, "WHERE e.session_id IS NOT NULL", "WHERE e.brand_id = %[1]s AND e.session_id = %[2]s AND e.session_id IS NOT NULL", 1) + `) o
	WHERE rollup_sessions.brand_id = o.brand_id AND rollup_sessions.session_id = o.session_id`
