package sqlitetest_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// schema lists the tables, indexes and triggers of the store in dir, and
// the rows of the migrations' table.
func schema(t *testing.T, dir string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	for _, q := range []string{"SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name",
		"SELECT 'migration ' || version_id FROM goose_db_version ORDER BY id"} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// A copy holds what sqlite.Open leaves in a new folder, and is a store of
// its own: a write to one does not show in another.
func TestDirIsANewStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fresh := t.TempDir()
	s, err := sqlite.Open(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	copied := sqlitetest.Dir(t)
	if want, got := schema(t, fresh), schema(t, copied); len(want) < 10 || !slices.Equal(got, want) {
		t.Fatalf("the copy's schema:\n%q\na new store's:\n%q", got, want)
	}

	a, err := sqlite.Open(ctx, copied)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqlite.Open(ctx, sqlitetest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	now := time.Now()
	_, k := svc.NewAPIKey("br_a", now)
	if err := a.CreateBrand(ctx, &svc.Brand{ID: "br_a", Name: "A", CreatedAt: now}, k); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Brands(ctx); err != nil || len(got) != 1 {
		t.Fatalf("the brand written: %v %v", got, err)
	}
	if got, err := b.Brands(ctx); err != nil || len(got) != 0 {
		t.Fatalf("another folder's store holds %v %v", got, err)
	}
}
