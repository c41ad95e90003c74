package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// RecentPurchases calls fn for each product of every order at or after
// since, oldest first, with where the order goes: one row per product of
// an order, keyed or not, its cancelled units left out.
func (s *Store) RecentPurchases(ctx context.Context, since time.Time, fn func(svc.RecentPurchase) error) error {
	return recentPurchases(ctx, s.pool, since, fn)
}

func (r snapshotReader) RecentPurchases(ctx context.Context, since time.Time, fn func(svc.RecentPurchase) error) error {
	return recentPurchases(ctx, r.tx, since, fn)
}

func recentPurchases(ctx context.Context, q querier, since time.Time, fn func(svc.RecentPurchase) error) error {
	return eachRow(ctx, q, func(rows pgx.Rows) error {
		var r svc.RecentPurchase
		var ts int64
		if err := rows.Scan(&r.BrandID, &r.Order, &r.Product, &ts, &r.Units, &r.Country, &r.City, &r.Keyed); err != nil {
			return err
		}
		r.Time = fromMillis(ts)
		return fn(r)
	}, `SELECT e.brand_id, e.event_id, i.product, e.ts, sum(i.quantity), coalesce(e.country, ''), coalesce(e.city, ''), e.keyed
		FROM purchase_events e JOIN purchase_items i ON i.purchase = e.id AND i.quantity > 0
		WHERE e.ts >= $1 GROUP BY e.id, i.product ORDER BY e.ts, e.id, min(i.line)`, millis(since))
}
