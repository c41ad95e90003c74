package sqlite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
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

func withBrand(t *testing.T) *sqlite.Store {
	s := open(t, t.TempDir())
	if err := s.CreateBrand(context.Background(), &svc.Brand{ID: "br_1", Name: "One", Domains: []string{"shop.example"}, CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
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

func TestRevokeAPIKey(t *testing.T) {
	s := withBrand(t)
	ctx := context.Background()
	v0, _ := s.ConfigVersion(ctx)
	var secrets []string
	for i := 0; i < 2; i++ {
		secret, k := svc.NewAPIKey("br_1", t0)
		k.Prefix = "sk_samesame" // two keys with one prefix, as chance could make them
		if err := s.CreateAPIKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, secret)
	}
	if _, k := svc.NewAPIKey("br_nope", t0); svc.ErrorCode(s.CreateAPIKey(ctx, k)) != svc.ENOTFOUND {
		t.Fatal("a key for a missing brand was stored")
	}
	if _, err := s.RevokeAPIKey(ctx, "br_1", "sk_samesame", t0); svc.ErrorCode(err) != svc.ECONFLICT {
		t.Fatalf("ambiguous prefix: %v", err)
	}
	for _, short := range []string{"", "s", "sk_", "sk_sames"} {
		if _, err := s.RevokeAPIKey(ctx, "br_1", short, t0); svc.ErrorCode(err) != svc.ENOTFOUND {
			t.Fatalf("short prefix %q: %v", short, err)
		}
	}
	if _, err := s.RevokeAPIKey(ctx, "br_1", secrets[0], t0); err != nil {
		t.Fatalf("by secret: %v", err)
	}
	if k, err := s.RevokeAPIKey(ctx, "br_1", "sk_samesame", t0); err != nil || k.RevokedAt == nil || k.Hash != svc.HashAPIKey(secrets[1]) {
		t.Fatalf("by prefix, now that one key has it: %+v %v", k, err)
	}
	if _, err := s.RevokeAPIKey(ctx, "br_1", secrets[0], t0); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("revoked twice: %v", err)
	}

	keys, _ := s.APIKeys(ctx)
	if len(keys) != 2 || keys[0].RevokedAt == nil || keys[1].RevokedAt == nil {
		t.Fatalf("keys %+v", keys)
	}
	if v1, _ := s.ConfigVersion(ctx); v1 != v0+4 {
		t.Fatalf("config version %d -> %d, want 4 changes", v0, v1)
	}
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

func TestAppendWithinOneBatch(t *testing.T) {
	s := withBrand(t)
	ctx := context.Background()
	closed := view("unknown", "")
	closed.MayRegister = false
	batch := []*svc.Write{
		purchase("o1", "p1", 2),
		purchase("o1", "p1", 5), // the same order again in the same transaction
		view("p1", "k1"),
		view("p1", "k1"), // the same idempotency key in the same transaction
		closed,
	}
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	r := func(i int) svc.WriteResult { return batch[i].Result }
	if r(0).Status != svc.StatusAccepted || r(1).Status != svc.StatusDuplicate || r(1).EventID != r(0).EventID || r(1).Lines != nil {
		t.Fatalf("orders: %+v / %+v", r(0), r(1))
	}
	if r(2).Replay || !r(3).Replay || r(3).EventID != r(2).EventID || r(3).Lines != nil {
		t.Fatalf("idempotency: %+v / %+v", r(2), r(3))
	}
	if svc.ErrorCode(r(4).Err) != svc.ENOTFOUND {
		t.Fatalf("closed catalog: %+v", r(4))
	}
	var views, lines int
	_ = s.Views(ctx, t0.Add(-time.Hour), func(svc.ViewRecord) error { views++; return nil })
	_ = s.PurchaseLines(ctx, t0.Add(-time.Hour), func(r svc.PurchaseRecord) error {
		lines++
		if r.Units != 2 {
			t.Errorf("units %d", r.Units)
		}
		return nil
	})
	if views != 1 || lines != 1 {
		t.Fatalf("%d views and %d purchase lines stored, want 1 and 1", views, lines)
	}
}

func TestProductAttributesFollowTheLatestEvent(t *testing.T) {
	s := withBrand(t)
	ctx := context.Background()
	title1, title2, url := "Old", "New", "https://shop.example/p"
	w1, w2 := view("p1", ""), view("p1", "")
	w1.View.Product.Title, w1.View.Product.URL = &title1, &url
	w2.View.Product.Title = &title2 // no url: the stored one stays
	if err := s.Append(ctx, []*svc.Write{w1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, []*svc.Write{w2}); err != nil {
		t.Fatal(err)
	}
	var got []*svc.Product
	_ = s.Products(ctx, func(p *svc.Product) error { got = append(got, p); return nil })
	if len(got) != 1 || *got[0].Title != "New" || *got[0].URL != url || got[0].Ref != w1.Result.Lines[0].Product {
		t.Fatalf("products %+v", got)
	}
}

func TestDeleteExpiredInBatches(t *testing.T) {
	s := withBrand(t)
	ctx := context.Background()
	var batch []*svc.Write
	for i := 0; i < 25; i++ {
		w := view("p1", fmt.Sprint("k", i))
		w.View.Meta.Time = t0.Add(-time.Duration(i) * 24 * time.Hour) // one a day, back 24 days
		w.View.Meta.ReceivedAt = w.View.Meta.Time
		batch = append(batch, w)
	}
	batch = append(batch, purchase("old", "p1", 1), purchase("new", "p1", 1))
	batch[len(batch)-2].Purchase.Meta.Time = t0.Add(-40 * 24 * time.Hour)
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	// Delete everything older than 10 days, 4 rows per call.
	before := t0.Add(-10*24*time.Hour + time.Second)
	var calls int
	for {
		n, err := s.DeleteExpired(ctx, before, t0.Add(24*time.Hour+time.Second), 4)
		if err != nil {
			t.Fatal(err)
		}
		calls++
		if n == 0 {
			break
		}
	}
	var views, orders int
	_ = s.Views(ctx, t0.Add(-100*24*time.Hour), func(svc.ViewRecord) error { views++; return nil })
	_ = s.PurchaseLines(ctx, t0.Add(-100*24*time.Hour), func(svc.PurchaseRecord) error { orders++; return nil })
	if views != 10 || orders != 1 || calls < 4 {
		t.Fatalf("%d views and %d orders left after %d calls, want 10 and 1 after several", views, orders, calls)
	}
	// The idempotency keys, older than 24 hours at "now", went too: k0 can be used afresh.
	again := view("p1", "k0")
	if err := s.Append(ctx, []*svc.Write{again}); err != nil || again.Result.Replay {
		t.Fatalf("expired key replayed: %+v %v", again.Result, err)
	}
}
