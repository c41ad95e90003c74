package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/svc-project/svc"
)

// RecentPurchases calls fn for each product of every order at or after
// since, oldest first, with where the order goes.
func (s *Store) RecentPurchases(ctx context.Context, since time.Time, fn func(svc.RecentPurchase) error) error {
	return s.eachRow(ctx, func(rows *sql.Rows) error {
		var r svc.RecentPurchase
		var ts int64
		if err := rows.Scan(&r.BrandID, &r.Order, &r.Product, &ts, &r.Units, &r.Country, &r.City); err != nil {
			return err
		}
		r.Time = fromMillis(ts)
		return fn(r)
	}, svc.RecentPurchasesQuery("?"), millis(since))
}
