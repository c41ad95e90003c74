package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// The privacy rules of a brand's recent purchases feed, in columns of
// brands (migration 00005): durations in seconds.
const recentColumns = "recent_delay, recent_window, recent_max, recent_k"

type recentRow struct{ delay, window, max, k int64 }

func (r *recentRow) dest() []any { return []any{&r.delay, &r.window, &r.max, &r.k} }

func (r *recentRow) settings() svc.RecentSettings {
	return svc.RecentSettings{Delay: time.Duration(r.delay) * time.Second, Window: time.Duration(r.window) * time.Second,
		MaxItems: int(r.max), K: int(r.k)}
}

// withRecent returns what writes the brand's feed settings, as stored,
// once the brand's row was written (ok).
func (b brandTx) withRecent(ctx context.Context, br *svc.Brand) func(ok bool, err error) (bool, error) {
	return func(ok bool, err error) (bool, error) {
		if !ok || err != nil {
			return ok, err
		}
		s := br.Recent.Stored()
		_, err = b.tx.Exec(ctx, "UPDATE brands SET recent_delay = $1, recent_window = $2, recent_max = $3, recent_k = $4 WHERE id = $5",
			int64(s.Delay/time.Second), int64(s.Window/time.Second), s.MaxItems, s.K, br.ID)
		return err == nil, err
	}
}

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
		if err := rows.Scan(&r.BrandID, &r.Order, &r.Product, &ts, &r.Units, &r.Country, &r.City); err != nil {
			return err
		}
		r.Time = fromMillis(ts)
		return fn(r)
	}, svc.RecentPurchasesQuery("$1"), millis(since))
}
