package storetest

import (
	"database/sql"
	"io/fs"
	"math"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
)

// OldAnonymousCities checks, on a store written before migration 00029,
// that the migration takes an anonymous order's city and that the store
// refuses one afterwards: an anonymous order gives no city (svc.Admit),
// and reads take the cities as stored. migrateTo migrates s's database
// to the version, down or up; db is s's database.
func OldAnonymousCities(t *testing.T, s svc.Store, db *sql.DB, migrateTo func(version int64)) {
	withBrand(t, s, "br_1")
	order := func(id string, keyed bool, city string) *svc.Write {
		w := purchase(id, "p1", 1)
		w.Purchase.Meta.Keyed, w.Purchase.Context.City = keyed, ptr(city)
		w.Purchase.Meta.Time = t0.Add(-time.Hour)
		return w
	}
	migrateTo(28)
	// The orders of the version before are written by today's write
	// path, which writes the hours' digests of migration 00031: the
	// column is there while they are, as the rows that path writes.
	exec := func(q string) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	exec("ALTER TABLE rollup_hours ADD COLUMN viewers_sum BIGINT")
	old := []*svc.Write{order("o1", true, "Berlin"), order("o2", false, "Visit evil.example")}
	appendAll(t, s, old...)
	for _, w := range old {
		if w.Result.Err != nil || w.Result.Status != svc.StatusAccepted {
			t.Fatalf("before the migration, order %s: %+v", w.Purchase.Order.OrderID, w.Result)
		}
	}
	exec("ALTER TABLE rollup_hours DROP COLUMN viewers_sum")
	migrateTo(29)
	// Then the later ones: the store reads at its own schema (SQLite's
	// views in view_blocks, migration 00030).
	migrateTo(math.MaxInt64)
	cities := map[string]string{}
	if err := s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error {
		if p := e.Purchase; p != nil {
			cities[p.Order.OrderID] = orEmpty(p.Context.City)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(cities) != 2 || cities["o1"] != "Berlin" || cities["o2"] != "" {
		t.Errorf("after the migration, the orders' cities: %q, want only the keyed order's", cities)
	}
	r := s.(rollup.Store)
	if err := r.RebuildRollups(ctx, true, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := r.RollupCities(ctx, "br_1", t0.Add(-48*time.Hour), t0.Add(24*time.Hour))
	if err != nil || len(rows) != 1 || rows[0].City != "Berlin" || rows[0].Purchases != 1 {
		t.Errorf("the rebuilt cities: %+v, %v; want Berlin's order alone", rows, err)
	}
	w := order("o3", false, "Paris")
	appendAll(t, s, w)
	if w.Result.Err == nil {
		t.Errorf("an anonymous order with a city after the migration: %+v, want it refused", w.Result)
	}
}

// MigrateTo returns OldAnonymousCities' migrateTo for a store's
// migrations, dir, on its database, db.
func MigrateTo(t *testing.T, dialect goose.Dialect, db *sql.DB, dir fs.FS) func(version int64) {
	p, err := goose.NewProvider(dialect, db, dir)
	if err != nil {
		t.Fatal(err)
	}
	return func(version int64) {
		t.Helper()
		cur, err := p.GetDBVersion(ctx)
		if err == nil && version < cur {
			_, err = p.DownTo(ctx, version)
		} else if err == nil {
			_, err = p.UpTo(ctx, version)
		}
		if err != nil {
			t.Fatalf("migrate to %d: %v", version, err)
		}
	}
}
