package postgres

import (
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/postgres/pgtest"
)

// TestTidy: with the server's autovacuum off (as on CI's server), Tidy
// analyzes a table that changed past autovacuum's threshold and vacuums one
// with a fifth of its rows dead, then finds nothing left to do; with it on,
// it leaves the tables to the server. Stores in other schemas of the same
// database tidy apart.
func TestTidy(t *testing.T) {
	s, err := Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var on bool
	if err := s.pool.QueryRow(ctx, "SELECT current_setting('autovacuum')::boolean").Scan(&on); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tidy(ctx); err != nil { // what migrations changed
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO brands (id, name, created_at) SELECT 'br_' || i, 'B', 0 FROM generate_series(1, 500) i;
		UPDATE brands SET name = 'C'; SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	// A session reports its statistics at a transaction's end, at most
	// once a second unless forced, as the statements above did.
	var dead int64
	for range 100 {
		if err := s.pool.QueryRow(ctx, "SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'brands' AND schemaname = current_schema()").Scan(&dead); err != nil {
			t.Fatal(err)
		}
		if dead >= 500 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A store in another schema of the database, tidying meanwhile, holds
	// its own schema's lock, not this one's.
	other, err := Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	busy, err := other.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Release()
	if _, err := busy.Exec(ctx, "SELECT pg_advisory_lock("+tidyLock+")"); err != nil {
		t.Fatal(err)
	}
	tables, err := s.Tidy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if on {
		if len(tables) != 0 {
			t.Errorf("autovacuum on, Tidy tidied %v, want nothing", tables)
		}
		return
	}
	if !slices.Contains(tables, "brands") {
		t.Fatalf("Tidy tidied %v, want brands among them (%d dead rows)", tables, dead)
	}
	var vacuumed, analyzed bool
	if err := s.pool.QueryRow(ctx, `SELECT last_vacuum IS NOT NULL, last_analyze IS NOT NULL FROM pg_stat_user_tables
		WHERE relname = 'brands' AND schemaname = current_schema()`).Scan(&vacuumed, &analyzed); err != nil {
		t.Fatal(err)
	}
	if !vacuumed || !analyzed {
		t.Errorf("brands: vacuumed %v, analyzed %v, want both", vacuumed, analyzed)
	}
	if tables, err := s.Tidy(ctx); err != nil || slices.Contains(tables, "brands") {
		t.Errorf("Tidy again: %v, %v; want brands left alone", tables, err)
	}
}
