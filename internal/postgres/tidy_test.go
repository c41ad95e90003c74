package postgres

import (
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc/internal/postgres/pgtest"
)

// TestTidy: with the server's autovacuum off (as on CI's server), Tidy
// analyzes a table that changed past autovacuum's threshold and vacuums one
// with a fifth of its rows dead, then finds nothing left to do; with it on,
// it leaves the tables to the server. Stores in other schemas of the same
// database tidy apart.
func TestTidy(t *testing.T) {
	u := pgtest.URL(t)
	s, err := Open(ctx, u)
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
	// A session reports its statistics at a transaction's end, at most
	// once a second unless forced (PostgreSQL 15 on).
	flush := "; SELECT pg_stat_force_next_flush()"
	var version int
	if err := s.pool.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version < 150000 {
		flush = ""
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO brands (id, name, created_at) SELECT 'br_' || i, 'B', 0 FROM generate_series(1, 500) i;
		UPDATE brands SET name = 'C'`+flush); err != nil {
		t.Fatal(err)
	}
	var dead int64
	for range 150 {
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
	// Another node of this schema tidying: this one skips. (A session of
	// its own: a session may take again a lock it holds.)
	node, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close(ctx)
	var took bool
	if err := node.QueryRow(ctx, "SELECT pg_try_advisory_lock("+tidyLock+")").Scan(&took); err != nil || !took {
		t.Fatalf("the lock, after a Tidy: %v, %v; want it free", took, err)
	}
	if tables, err := s.Tidy(ctx); err != nil || len(tables) != 0 {
		t.Errorf("another node tidying, Tidy: %v, %v; want nothing done", tables, err)
	}
	if _, err := node.Exec(ctx, "SELECT pg_advisory_unlock("+tidyLock+")"); err != nil {
		t.Fatal(err)
	}
	tables, err := s.Tidy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var free bool // Tidy let its lock go
	if err := node.QueryRow(ctx, "SELECT pg_try_advisory_lock("+tidyLock+")").Scan(&free); err != nil || !free {
		t.Errorf("after Tidy, its lock free: %v, %v", free, err)
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
	// Rows dead to every snapshot are gone; another test's open
	// transaction may keep some, so only the analysis is asserted whole.
	var vacuumed, analyzed bool
	var changed int64
	if err := s.pool.QueryRow(ctx, `SELECT last_vacuum IS NOT NULL, last_analyze IS NOT NULL, n_mod_since_analyze
		FROM pg_stat_user_tables WHERE relname = 'brands' AND schemaname = current_schema()`).Scan(&vacuumed, &analyzed, &changed); err != nil {
		t.Fatal(err)
	}
	if !vacuumed || !analyzed || changed != 0 {
		t.Errorf("brands: vacuumed %v, analyzed %v with %d rows changed since, want both and none", vacuumed, analyzed, changed)
	}
}
