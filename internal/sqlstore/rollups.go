package sqlstore

import (
	"context"
	"time"

	"github.com/svc-project/svc/internal/rollup"
)

// The rollups' funnel and cities (docs/dashboard.md, Rollups): the reads
// and the recount of a build, for both stores.

// RecountSessionCarts sets every session's carts from the stored carts,
// after "UPDATE rollup_sessions SET carts = 0 WHERE carts <> 0": what a
// build counts in SQL rather than on the write path (rollup.Delta's
// NoSessions). Carts whose session has no row count nowhere.
const RecountSessionCarts = `UPDATE rollup_sessions SET carts = c.n FROM (
		SELECT p.brand_id, c.session_id, count(*) AS n FROM cart_events c JOIN products p ON p.id = c.product
		WHERE c.session_id IS NOT NULL AND c.session_id <> '' GROUP BY p.brand_id, c.session_id) c
	WHERE rollup_sessions.brand_id = c.brand_id AND rollup_sessions.session_id = c.session_id`

// RollupFunnel returns the brand's sessions first seen in the days of
// [from, to), and of those the ones that carted and bought
// (rollup.Store): rollup_funnel, kept per day of the first view by
// triggers on rollup_sessions.
func (s *Store) RollupFunnel(ctx context.Context, brandID string, from, to time.Time) (rollup.Funnel, error) {
	var f rollup.Funnel
	err := s.r.QueryRow(ctx, `SELECT CAST(coalesce(sum(sessions), 0) AS BIGINT), CAST(coalesce(sum(carted), 0) AS BIGINT),
		CAST(coalesce(sum(bought), 0) AS BIGINT) FROM rollup_funnel WHERE brand_id = ? AND day >= ? AND day < ?`,
		brandID, Millis(from), Millis(to)).Scan(&f.Sessions, &f.Carted, &f.Bought)
	return f, err
}

// RollupCities returns the brand's city rows of the days of [from, to)
// (rollup.Store).
func (s *Store) RollupCities(ctx context.Context, brandID string, from, to time.Time) ([]rollup.CityRow, error) {
	return Collect(ctx, s.r, func(r Row) (rollup.CityRow, error) {
		c := rollup.CityRow{CityKey: rollup.CityKey{Brand: brandID}}
		err := r.Scan(&c.Country, &c.City, &c.Day, &c.Purchases)
		return c, err
	}, "SELECT country, city, day, purchases FROM rollup_cities WHERE brand_id = ? AND day >= ? AND day < ? ORDER BY day, country, city",
		brandID, Millis(from), Millis(to))
}
