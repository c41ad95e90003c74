package sqlstore

import (
	"database/sql"
	"strings"

	"github.com/svc-project/svc/internal/rollup"
)

// The SQL of the rollups (internal/rollup keeps what an event adds): the
// queries that read stored events as the rollups count them, "SELECT " +
// columns + " FROM " + tables + " WHERE " + a condition of the caller's,
// and the statements that count sessions' orders in SQL.
const (
	cartColumns = "p.brand_id, c.product, c.ts, coalesce(c.session_id, '')"
	cartTables  = "cart_events c JOIN products p ON p.id = c.product"
	// Orders come line by line, ordered by "e.id, i.line". Only a keyed
	// order has a city: the store refuses an anonymous one's (migration
	// 00029).
	orderColumns = "e.id, e.brand_id, e.ts, coalesce(e.session_id, ''), coalesce(e.country, ''), coalesce(e.city, ''), e.total_value, i.product, i.quantity, i.unit_price"
	orderTables  = "purchase_events e JOIN purchase_items i ON i.purchase = e.id"
)

// armSessions selects, for the brand, the arm, id and revenue of every
// session with an arm that bought (its orders kept in its row on the
// write path, rollup.Tx.AddSessionOrders), and 1 when it saw the widget
// (widget_sessions), else 0. Joining every order with every session took
// most of a page at 100,000 orders and 5 M sessions.
const armSessions = `SELECT s.arm, s.session_id, s.revenue, CASE WHEN w.session_id IS NULL THEN 0 ELSE 1 END
	FROM rollup_sessions s LEFT JOIN widget_sessions w ON w.brand_id = s.brand_id AND w.session_id = s.session_id
	WHERE s.brand_id = ? AND s.orders > 0`

// armRevenues selects, for the brand, how many of the sessions with an
// arm that bought had each revenue, and how many of those saw the widget
// (widget_sessions), by arm: a row per distinct revenue (and count of
// orders) rather than per session, which gives back each arm's revenues
// exactly. Grouped in the order of rollup_sessions_bought, so that SQLite
// streams the groups rather than sort 100,000 rows.
const armRevenues = `SELECT s.arm, s.revenue, count(*), count(w.session_id)
	FROM rollup_sessions s LEFT JOIN widget_sessions w ON w.brand_id = s.brand_id AND w.session_id = s.session_id
	WHERE s.brand_id = ? AND s.orders > 0 GROUP BY s.orders, s.arm, s.revenue`

// sessionOrderValues selects each session's orders and their value
// (brand_id, session_id, n, v), each order valued as rollup.Order.Value
// has it: what rollup.Tx.AddSessionOrders keeps, counted again by a build
// and by the migration that added it. Orders whose session has no row
// count nowhere.
const sessionOrderValues = `SELECT brand_id, session_id, count(*) AS n, sum(value) AS v FROM (
		SELECT e.brand_id, e.session_id,
			CASE WHEN count(i.unit_price) < count(*) AND e.total_value IS NOT NULL THEN e.total_value
				ELSE coalesce(sum(i.quantity * i.unit_price), 0) END AS value
		FROM purchase_events e JOIN purchase_items i ON i.purchase = e.id AND i.quantity > 0
		WHERE e.session_id IS NOT NULL AND e.session_id <> '' GROUP BY e.id, e.brand_id, e.session_id, e.total_value) ov
	GROUP BY brand_id, session_id`

// recountSessionOrders sets every session's orders from the stored
// orders.
const recountSessionOrders = `UPDATE rollup_sessions SET orders = o.n, revenue = o.v FROM (` + sessionOrderValues + `) o
	WHERE rollup_sessions.brand_id = o.brand_id AND rollup_sessions.session_id = o.session_id`

// sessionOrdersOf sets one session's orders and revenue from the stored
// orders: for an order given its session after it was stored (an
// order-received page's link). As recountSessionOrders, it sets only a
// row the session's views made: a session with no view is in no arm and
// no funnel step, and a rebuild would not make its row either. Its
// parameters are the brand and the session.
var sessionOrdersOf = `UPDATE rollup_sessions SET orders = o.n, revenue = o.v FROM (` +
	strings.Replace(sessionOrderValues, "WHERE e.session_id IS NOT NULL", "WHERE e.brand_id = ? AND e.session_id = ? AND e.session_id IS NOT NULL", 1) + `) o
	WHERE rollup_sessions.brand_id = o.brand_id AND rollup_sessions.session_id = o.session_id`

// scanCart reads a row of cartColumns.
func scanCart(r Row) (rollup.Cart, error) {
	var c rollup.Cart
	err := r.Scan(&c.Brand, &c.Product, &c.At, &c.Session)
	return c, err
}

// orderRows gathers rows of orderColumns into orders, and leaves out
// those with no line left.
type orderRows struct {
	emit func(rollup.Order) error
	id   int64
	cur  *rollup.Order
}

// add reads a row.
func (o *orderRows) add(row Row) error {
	var id int64
	var r rollup.Order
	var total, price sql.NullFloat64
	var l rollup.Line
	if err := row.Scan(&id, &r.Brand, &r.At, &r.Session, &r.Country, &r.City, &total, &l.Product, &l.Quantity, &price); err != nil {
		return err
	}
	if price.Valid {
		l.Price = &price.Float64
	}
	if o.cur == nil || id != o.id {
		if err := o.flush(); err != nil {
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

// flush emits the last order.
func (o *orderRows) flush() error {
	if o.cur == nil {
		return nil
	}
	c := o.cur
	o.cur = nil
	if _, ok := c.Value(); !ok {
		return nil // every line cancelled: it counts nowhere
	}
	return o.emit(*c)
}
