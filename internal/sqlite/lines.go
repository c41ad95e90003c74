package sqlite

import (
	"database/sql"

	"github.com/svc-project/svc"
)

// The replay reads an order's lines one row each, in the order of their
// order and line, and svc.PurchaseRecords sums them per product. A GROUP BY
// in the query made SQLite sort every line of the window in a temporary
// b-tree before the first row came back: 4.9 of a restore's 22 CPU-seconds
// for 667,000 lines.

// lineColumns are what scanLine reads, FROM the orders and their lines.
const lineColumns = `e.id, i.product, e.ts, i.quantity, coalesce(e.currency, ''), i.unit_price
	FROM purchase_events e JOIN purchase_items i ON i.purchase = e.id AND i.quantity > 0` // cancelled lines count nothing

func scanLine(rows *sql.Rows) (svc.OrderLine, error) {
	var l svc.OrderLine
	var ts int64
	var price sql.NullFloat64
	err := rows.Scan(&l.Order, &l.Product, &ts, &l.Quantity, &l.Currency, &price)
	l.Time, l.UnitPrice, l.Priced = fromMillis(ts), price.Float64, price.Valid
	return l, err
}
