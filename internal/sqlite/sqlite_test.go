package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/storetest"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func open(t *testing.T, dir string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := context.Background()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "Again", CreatedAt: t0}, nil); svc.ErrorCode(err) != svc.ECONFLICT {
		t.Fatalf("second brand with the id: %v", err)
	}
	s.Close()
	s = open(t, dir) // migrations run again and find nothing to do
	b, err := s.Brand(ctx, "br_1")
	if err != nil || b.Name != "One" || len(b.Domains) != 0 {
		t.Fatalf("brand %+v, %v", b, err)
	}
	if _, err := s.Brand(ctx, "br_2"); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("missing brand: %v", err)
	}
}

// TestConformance runs the suite every store passes.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) svc.Store { return open(t, sqlitetest.Dir(t)) })
	storetest.RunEventLog(t, func(t *testing.T) interface {
		svc.Store
		svc.EventLog
	} {
		return open(t, sqlitetest.Dir(t))
	})
}

// TestChangeFeed runs the feed's cases with two Store values on one file,
// as a server and svc import have.
func TestChangeFeed(t *testing.T) {
	storetest.RunChangeFeed(t, func(t *testing.T) (a, b storetest.FeedStore) {
		dir := sqlitetest.Dir(t)
		return open(t, dir), open(t, dir)
	})
}
