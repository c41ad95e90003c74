package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// tidyLock is the key of the advisory lock that one node at a time holds
// while it tidies the tables: one per schema, as stores that share a
// database in schemas of their own (tests, several deployments) tidy
// their own tables.
const tidyLock = "hashtextextended('svc tidy ' || current_schema(), 0)"

// Tidy vacuums and analyzes the store's tables that changed past
// autovacuum's default thresholds, when the server's autovacuum is off; it
// does nothing when it is on. It returns the tables it tidied.
//
// Without it a server with autovacuum off (some CI and benchmark setups)
// never updates a table's statistics, and a node's prepared statements
// keep the plans they were given while the table was small: 11-29, a new
// store's collect fell from about 4,000 requests a second to 400 once it
// held 100,000 products, each look-up a sequential scan. An ANALYZE
// invalidates those plans. Updated rollup rows also leave dead versions
// that only a VACUUM frees. Thresholds are autovacuum's defaults: 50 rows
// and a tenth of the table changed for an analysis, a fifth dead for a
// vacuum. One node at a time tidies a schema (an advisory lock); the
// others skip.
func (s *Store) Tidy(ctx context.Context) ([]string, error) {
	var on bool
	if err := s.pool.QueryRow(ctx, "SELECT current_setting('autovacuum')::boolean").Scan(&on); err != nil || on {
		return nil, err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock("+tidyLock+")").Scan(&locked); err != nil || !locked {
		return nil, err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock("+tidyLock+")") //nolint:errcheck // the session's end frees it too
	type table struct {
		name   string
		vacuum bool
	}
	var due []table
	rows, err := conn.Query(ctx, `SELECT relname, n_dead_tup > 50 + 0.2 * n_live_tup FROM pg_stat_user_tables
		WHERE schemaname = current_schema() AND (n_mod_since_analyze > 50 + 0.1 * n_live_tup OR n_dead_tup > 50 + 0.2 * n_live_tup)
		ORDER BY relname`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var t table
		if err := rows.Scan(&t.name, &t.vacuum); err != nil {
			return nil, err
		}
		due = append(due, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var done []string
	for _, t := range due {
		// No arguments: the simple protocol, as VACUUM cannot be prepared
		// nor run in a transaction.
		sql := "ANALYZE " + pgx.Identifier{t.name}.Sanitize()
		if t.vacuum {
			sql = "VACUUM (ANALYZE) " + pgx.Identifier{t.name}.Sanitize()
		}
		if _, err := conn.Exec(ctx, sql); err != nil {
			return done, fmt.Errorf("postgres: %s: %w", sql, err)
		}
		done = append(done, t.name)
	}
	return done, nil
}
