package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

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
// that only a VACUUM frees. The thresholds are autovacuum's: 50 rows and a
// tenth of the table changed for an analysis; 50 and a fifth dead, or
// 1,000 and a fifth inserted, for a vacuum.
//
// It tidies only tables this role owns, one node at a time per schema (an
// advisory lock; the others skip), skips a table another holds a lock on
// rather than wait, paces its vacuums as autovacuum does (a 2 ms pause
// each time their cost reaches vacuum_cost_limit), and gives up after
// tidyTimeout: the sweep that calls it also runs the retention.
func (s *Store) Tidy(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, tidyTimeout)
	defer cancel()
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
	// The connection goes back to the pool: what Tidy sets, it resets.
	defer conn.Exec(context.WithoutCancel(ctx), "RESET vacuum_cost_delay; SELECT pg_advisory_unlock("+tidyLock+")") //nolint:errcheck // the session's end frees it too
	if _, err := conn.Exec(ctx, "SET vacuum_cost_delay = '2ms'"); err != nil {
		return nil, err
	}
	type table struct {
		name   string
		vacuum bool
	}
	var due []table
	rows, err := conn.Query(ctx, `SELECT s.relname,
			s.n_dead_tup > 50 + 0.2 * s.n_live_tup OR s.n_ins_since_vacuum > 1000 + 0.2 * s.n_live_tup
		FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
		WHERE s.schemaname = current_schema() AND pg_has_role(c.relowner, 'USAGE')
			AND (s.n_mod_since_analyze > 50 + 0.1 * s.n_live_tup OR s.n_dead_tup > 50 + 0.2 * s.n_live_tup
				OR s.n_ins_since_vacuum > 1000 + 0.2 * s.n_live_tup)
		ORDER BY s.relname`)
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
	var errs []error
	for _, t := range due {
		// No arguments: the simple protocol, as VACUUM cannot be prepared
		// nor run in a transaction.
		sql := "ANALYZE (SKIP_LOCKED) " + pgx.Identifier{t.name}.Sanitize()
		if t.vacuum {
			sql = "VACUUM (ANALYZE, SKIP_LOCKED) " + pgx.Identifier{t.name}.Sanitize()
		}
		if _, err := conn.Exec(ctx, sql); err != nil {
			errs = append(errs, fmt.Errorf("postgres: %s: %w", sql, err))
			if ctx.Err() != nil {
				break
			}
			continue // the next tables are no less due
		}
		done = append(done, t.name)
	}
	return done, errors.Join(errs...)
}

// tidyTimeout bounds a Tidy, and so how long it may hold back the
// retention's deletes; a vacuum it stops is tried again at the next sweep.
// Paced, a vacuum dirtying every page of a 1 GB table takes about 30 s.
const tidyTimeout = 5 * time.Minute
