package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/svc-project/svc"
)

// RecentPurchases calls fn for each product of every order at or after
// since, oldest first, with where the order goes.
func (r reads) RecentPurchases(ctx context.Context, since time.Time, fn func(svc.RecentPurchase) error) error {
	return eachRowOf(ctx, r.db, func(rows *sql.Rows) error {
		var p svc.RecentPurchase
		var ts int64
		if err := rows.Scan(&p.BrandID, &p.Order, &p.Product, &ts, &p.Units, &p.Country, &p.City); err != nil {
			return err
		}
		p.Time = fromMillis(ts)
		return fn(p)
	}, svc.RecentPurchasesQuery("?"), millis(since))
}
