package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/svc-project/svc"
)

// RecentPurchases calls fn for each product of every order at or after
// since, oldest first, with where the order goes, as PostgreSQL's
// RecentPurchases selects them. The lines are read in the order of the
// time index and of each order's lines, and an order's lines of one
// product are summed here: the query's GROUP BY and ORDER BY made SQLite
// sort every line of the window in two temporary B-trees before the first
// row, half of what the feed's load cost at start (bench/RESULTS.md).
func (r reads) RecentPurchases(ctx context.Context, since time.Time, fn func(svc.RecentPurchase) error) error {
	var order []svc.RecentPurchase // the current order's products, in the order of their first line
	cur := int64(-1)
	flush := func() error {
		for _, p := range order {
			if err := fn(p); err != nil {
				return err
			}
		}
		order = order[:0]
		return nil
	}
	var head svc.RecentPurchase // the current order's strings, read once: its lines share them
	var brandID, eventID, country, city sql.RawBytes
	err := eachRowOf(ctx, r.db, func(rows *sql.Rows) error {
		var id, ts int64
		var product svc.ProductRef
		var units int64
		var keyed bool
		if err := rows.Scan(&id, &brandID, &eventID, &product, &ts, &units, &country, &city, &keyed); err != nil {
			return err
		}
		if id != cur {
			if err := flush(); err != nil {
				return err
			}
			cur = id
			head = svc.RecentPurchase{BrandID: string(brandID), Order: string(eventID), Time: fromMillis(ts),
				Country: string(country), City: string(city), Keyed: keyed}
		}
		for i := range order {
			if order[i].Product == product {
				order[i].Units += units
				return nil
			}
		}
		r := head
		r.Product, r.Units = product, units
		order = append(order, r)
		return nil
	}, `SELECT e.id, e.brand_id, e.event_id, i.product, e.ts, i.quantity, coalesce(e.country, ''), coalesce(e.city, ''), e.keyed
		FROM purchase_events e JOIN purchase_items i ON i.purchase = e.id AND i.quantity > 0
		WHERE e.ts >= ? ORDER BY e.ts, e.id, i.line`, millis(since))
	if err != nil {
		return err
	}
	return flush()
}
