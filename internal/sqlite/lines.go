package sqlite

import (
	"database/sql"
	"fmt"
	"time"

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

// scanLine decodes a row into l, an element of scanRangesInto's batch:
// every column goes through a sql.Scanner into l's own fields, so that
// nothing is allocated per row but the currency.
func scanLine(rows *sql.Rows, l *svc.OrderLine) error {
	*l = svc.OrderLine{}
	return rows.Scan(intCol{&l.Order}, intCol{(*int64)(&l.Product)}, millisCol{&l.Time}, intCol{&l.Quantity}, &l.Currency,
		priceCol{&l.UnitPrice, &l.Priced})
}

// millisCol scans Unix milliseconds into a time.
type millisCol struct{ t *time.Time }

func (c millisCol) Scan(src any) error {
	var ms int64
	if err := (intCol{&ms}).Scan(src); err != nil {
		return err
	}
	*c.t = fromMillis(ms)
	return nil
}

// priceCol scans a nullable REAL: the value, and whether there is one.
type priceCol struct {
	v     *float64
	valid *bool
}

func (c priceCol) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*c.v, *c.valid = 0, false
	case float64:
		*c.v, *c.valid = v, true
	case int64: // SQLite keeps a whole REAL as an integer when it can
		*c.v, *c.valid = float64(v), true
	default:
		return fmt.Errorf("sqlite: a price column holds %T", src)
	}
	return nil
}
