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
	return r.recentPurchases(ctx, "e.ts >= ? ORDER BY e.ts, e.id, i.line", []any{millis(since)},
		func(_ int64, p svc.RecentPurchase) error { return fn(p) })
}

// RecentPurchasesAfter calls fn for each product of every order with an
// id after after and a time at or after since, in id order (svc.EventLog),
// as RecentPurchases reads them.
func (r reads) RecentPurchasesAfter(ctx context.Context, after int64, since time.Time, fn func(int64, svc.RecentPurchase) error) error {
	return r.recentPurchases(ctx, "e.id > ? AND e.ts >= ? ORDER BY e.id, i.line", []any{after, millis(since)}, fn)
}

// recentPurchases reads the purchases that where selects, each order's
// lines together, with the order's id.
func (r reads) recentPurchases(ctx context.Context, where string, args []any, fn func(int64, svc.RecentPurchase) error) error {
	var order []svc.RecentPurchase // the current order's products, in the order of their first line
	cur := int64(-1)
	flush := func() error {
		for _, p := range order {
			if err := fn(cur, p); err != nil {
				return err
			}
		}
		order = order[:0]
		return nil
	}
	var head svc.RecentPurchase // the current order's strings, read once: its lines share them
	var brandID, eventID, country, city sql.RawBytes
	names := interned{} // brands and places repeat from order to order
	// Scanned into once, not declared per row: what Scan is given escapes.
	var id, ts, units int64
	var product svc.ProductRef
	var keyed bool
	dest := []any{intCol{&id}, &brandID, &eventID, intCol{(*int64)(&product)}, intCol{&ts}, intCol{&units}, &country, &city, &keyed}
	err := eachRowOf(ctx, r.db, func(rows *sql.Rows) error {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if id != cur {
			if err := flush(); err != nil {
				return err
			}
			cur = id
			head = svc.RecentPurchase{BrandID: names.of(brandID), Order: string(eventID), Time: fromMillis(ts),
				Country: names.of(country), City: names.of(city), Keyed: keyed}
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
		WHERE `+where, args...)
	if err != nil {
		return err
	}
	return flush()
}

// interned hands out one string for each distinct text it is given.
type interned map[string]string

func (m interned) of(b []byte) string {
	if s, ok := m[string(b)]; ok { // no copy to look up
		return s
	}
	s := string(b)
	m[s] = s
	return s
}
