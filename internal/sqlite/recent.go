package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/svc-project/svc"
)

// The privacy rules of a brand's recent purchases feed, in columns of
// brands (migration 00007): durations in seconds.
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
		_, err = b.tx.ExecContext(ctx, "UPDATE brands SET recent_delay = ?, recent_window = ?, recent_max = ?, recent_k = ? WHERE id = ?",
			int64(s.Delay/time.Second), int64(s.Window/time.Second), s.MaxItems, s.K, br.ID)
		return err == nil, err
	}
}

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
