package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// Exports and erasures are in the conformance suite (internal/storetest);
// the backup is the embedded store's own.

func withBrand(t *testing.T) *sqlite.Store {
	s := open(t, sqlitetest.Dir(t))
	if err := s.CreateBrand(context.Background(), &svc.Brand{ID: "br_1", Name: "One", Domains: []string{"shop.example"}, CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

func purchase(order, product string, qty int64) *svc.Write {
	e := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: order, Items: []svc.PurchaseItem{{ProductID: product, Quantity: &qty}}}}
	e.Meta = svc.EventMeta{EventID: "ev-" + order + "-" + product, Time: t0, ReceivedAt: t0}
	return &svc.Write{Purchase: e, MayRegister: true}
}

func view(product, idem string) *svc.Write {
	e := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: product}}
	e.Meta = svc.EventMeta{EventID: "ev-view-" + idem, Time: t0, ReceivedAt: t0}
	return &svc.Write{View: e, MayRegister: true, IdempotencyKey: idem}
}

func TestBackup(t *testing.T) {
	s := withBrand(t)
	ctx := context.Background()
	if err := s.Append(ctx, []*svc.Write{view("p1", "k1"), purchase("o1", "p1", 3)}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "copy", "..", "svc-copy.db")
	if err := s.Backup(ctx, path); err != nil {
		t.Fatal(err)
	}
	if err := s.Backup(ctx, path); err == nil {
		t.Fatal("a backup over an existing file succeeded")
	}
	// Opened as a data folder of its own, the copy has everything.
	dir := t.TempDir()
	if err := os.Rename(path, filepath.Join(dir, sqlite.FileName)); err != nil {
		t.Fatal(err)
	}
	c := open(t, dir)
	if res, err := c.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q %v", res, err)
	}
	var views, lines int
	_ = c.Views(ctx, t0.Add(-time.Hour), func(svc.ViewRecord) error { views++; return nil })
	_ = c.PurchaseLines(ctx, t0.Add(-time.Hour), func(r svc.PurchaseRecord) error { lines++; return nil })
	if b, err := c.Brand(ctx, "br_1"); err != nil || b.Name != "One" || views != 1 || lines != 1 {
		t.Fatalf("copy: brand %v %v, %d views, %d lines", b, err, views, lines)
	}
	replay := view("p1", "k1") // the idempotency keys came along
	if err := c.Append(ctx, []*svc.Write{replay}); err != nil || !replay.Result.Replay {
		t.Fatalf("idempotency key not in the copy: %+v %v", replay.Result, err)
	}
}
