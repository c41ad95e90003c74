package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// RecentPurchases calls fn for each product of every order at or after
// since, oldest first, with where the order goes.
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
	}, svc.RecentPurchasesQuery("$1"), millis(since))
}
