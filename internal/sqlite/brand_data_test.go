package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
)

func TestExportEvents(t *testing.T) {
	s := withBrand(t)
	ctx := context.Background()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_2", Name: "Two", CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	title, url, session, country := "Shoe", "https://shop.example/p1", "sess-1", "DE"
	v := view("p1", "")
	v.View.Product.Title, v.View.Product.URL = &title, &url
	v.View.Context.SessionID, v.View.Context.Country = &session, &country
	given := t0.Add(-time.Hour)
	v.View.Meta.GivenTime, v.View.Meta.Keyed = &given, true
	p := purchase("o1", "p1", 2)
	currency, total, price := "EUR", 21.0, 10.5
	p.Purchase.Order.Currency, p.Purchase.Order.TotalValue = &currency, &total
	p.Purchase.Order.Items[0].UnitPrice = &price
	q := int64(1)
	p.Purchase.Order.Items = append(p.Purchase.Order.Items, svc.PurchaseItem{ProductID: "p2", Quantity: &q})
	p.Purchase.Meta.Time = t0.Add(time.Minute)
	other := purchase("o2", "p3", 1)
	other.Purchase.BrandID = "br_2"
	if err := s.Append(ctx, []*svc.Write{v, p, other}); err != nil {
		t.Fatal(err)
	}
	var got []svc.ExportedEvent
	if err := s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].View == nil || got[1].Purchase == nil {
		t.Fatalf("exported %+v, want one view then one order", got)
	}
	gv, gp := got[0].View, got[1].Purchase
	if gv.Meta.EventID != v.View.Meta.EventID || *gv.Product.Title != title || *gv.Product.URL != url || *gv.Context.SessionID != session ||
		*gv.Context.Country != country || !gv.Meta.Keyed || gv.Meta.GivenTime == nil || !gv.Meta.GivenTime.Equal(given) ||
		*gv.Context.Timestamp != "2026-11-21T10:00:00Z" || !gv.Meta.ReceivedAt.Equal(t0) {
		t.Fatalf("view %+v %+v", gv, gv.Meta)
	}
	if errs := gv.Validate(); len(errs) > 0 {
		t.Fatalf("exported view does not validate: %v", errs)
	}
	if gp.Order.OrderID != "o1" || *gp.Order.Currency != "EUR" || *gp.Order.TotalValue != total || len(gp.Order.Items) != 2 ||
		*gp.Order.Items[0].Quantity != 2 || *gp.Order.Items[0].UnitPrice != price || gp.Order.Items[1].ProductID != "p2" ||
		*gp.Context.Timestamp != "2026-11-21T10:01:00Z" || gp.Meta.GivenTime != nil {
		t.Fatalf("order %+v", gp)
	}
	if errs := gp.Validate(); len(errs) > 0 {
		t.Fatalf("exported order does not validate: %v", errs)
	}
	if err := s.ExportEvents(ctx, "br_nope", func(svc.ExportedEvent) error { return nil }); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("unknown brand: %v", err)
	}
}

func TestForgetSession(t *testing.T) {
	s := withBrand(t)
	ctx := context.Background()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_2", Name: "Two", CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	a, b := "sess-a", "sess-b"
	var batch []*svc.Write
	for i, sess := range []string{a, a, b} {
		v := view("p1", "")
		v.View.Meta.EventID = "v" + string(rune('0'+i))
		v.View.Context.SessionID = &sess
		batch = append(batch, v)
	}
	pa, pb := purchase("oa", "p1", 1), purchase("ob", "p1", 1)
	pa.Purchase.Context.SessionID, pb.Purchase.Context.SessionID = &a, &b
	otherBrand := purchase("oa2", "p9", 1) // the same session id at another brand stays
	otherBrand.Purchase.BrandID, otherBrand.Purchase.Context.SessionID = "br_2", &a
	batch = append(batch, pa, pb, otherBrand)
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	v0, _ := s.ErasureVersion(ctx)
	n, err := s.ForgetSession(ctx, "br_1", a)
	if err != nil || n != 3 {
		t.Fatalf("forgot %d, %v; want 3 events", n, err)
	}
	if v1, _ := s.ErasureVersion(ctx); v1 == v0 {
		t.Fatal("the erasure version did not move")
	}
	sessions := map[string]int{}
	_ = s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error {
		if e.View != nil {
			sessions[*e.View.Context.SessionID]++
		} else {
			sessions[*e.Purchase.Context.SessionID]++
		}
		return nil
	})
	if sessions[a] != 0 || sessions[b] != 2 {
		t.Fatalf("left after forgetting %s: %v", a, sessions)
	}
	var lines int
	_ = s.PurchaseLines(ctx, t0.Add(-time.Hour), func(svc.PurchaseRecord) error { lines++; return nil })
	if lines != 2 { // ob's, and br_2's
		t.Fatalf("%d purchase lines left, want 2", lines)
	}
	v1, _ := s.ErasureVersion(ctx)
	if n, err := s.ForgetSession(ctx, "br_1", a); n != 0 || err != nil {
		t.Fatalf("forgetting again: %d, %v", n, err)
	}
	if v2, _ := s.ErasureVersion(ctx); v2 != v1 {
		t.Fatal("the erasure version moved though nothing was erased")
	}
	if _, err := s.ForgetSession(ctx, "br_nope", a); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("unknown brand: %v", err)
	}
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
