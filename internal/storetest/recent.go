package storetest

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// testRecentPurchases covers what the recent purchases feed reads: one
// record per product of each order, its units summed, with the order's
// event id and place, oldest first, cancelled units left out; and the
// place in the export.
func testRecentPurchases(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	o := purchase("o1", "p1", 1)
	o.Purchase.Order.Items = append(o.Purchase.Order.Items,
		svc.PurchaseItem{ProductID: "p2", Quantity: ptr[int64](2)}, svc.PurchaseItem{ProductID: "p1", Quantity: ptr[int64](3)})
	// Keyed: only a keyed order has a city (the store refuses an anonymous
	// one's).
	o.Purchase.Context.Country, o.Purchase.Context.City, o.Purchase.Meta.Keyed = ptr("DE"), ptr("Köln"), true
	bare := purchase("o2", "p2", 1)
	bare.Purchase.Meta.Time = t0.Add(-time.Hour)
	old := purchase("o3", "p1", 1)
	old.Purchase.Meta.Time = t0.Add(-3 * time.Hour)
	appendAll(t, s, o, bare, old)

	var got []svc.RecentPurchase
	err := s.RecentPurchases(ctx, t0.Add(-2*time.Hour), func(r svc.RecentPurchase) error { got = append(got, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := o.Result.Lines[0].Product, o.Result.Lines[1].Product
	want := []svc.RecentPurchase{
		{BrandID: "br_1", Order: bare.Purchase.Meta.EventID, Product: p2, Time: t0.Add(-time.Hour), Units: 1},
		{BrandID: "br_1", Order: o.Purchase.Meta.EventID, Product: p1, Time: t0, Units: 4, Country: "DE", City: "Köln"},
		{BrandID: "br_1", Order: o.Purchase.Meta.EventID, Product: p2, Time: t0, Units: 2, Country: "DE", City: "Köln"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for i := range want {
		if g, w := got[i], want[i]; g.BrandID != w.BrandID || g.Order != w.Order || g.Product != w.Product || !g.Time.Equal(w.Time) ||
			g.Units != w.Units || g.Country != w.Country || g.City != w.City {
			t.Fatalf("record %d: got %+v, want %+v", i, g, w)
		}
	}
	// A cancelled line leaves the records; a refund of some units leaves
	// the rest.
	cancel(t, s, cancelOf("o1", item("p2", 2), item("p1", 1)))
	got = nil
	if err := s.RecentPurchases(ctx, t0.Add(-2*time.Hour), func(r svc.RecentPurchase) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Product != p1 || got[1].Units != 3 {
		t.Fatalf("after cancelling p2 and one p1 of o1: %+v", got)
	}
	cancel(t, s, cancelOf("o2"))
	got = nil
	_ = s.RecentPurchases(ctx, t0.Add(-2*time.Hour), func(r svc.RecentPurchase) error { got = append(got, r); return nil })
	if len(got) != 1 || got[0].Order != o.Purchase.Meta.EventID {
		t.Fatalf("after cancelling o2: %+v", got)
	}
	var exported *svc.PurchaseEvent
	_ = s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error {
		if e.Purchase != nil && e.Purchase.Order.OrderID == "o1" {
			exported = e.Purchase
		}
		return nil
	})
	if exported == nil || exported.Context.Country == nil || *exported.Context.Country != "DE" || exported.Context.City == nil || *exported.Context.City != "Köln" {
		t.Fatalf("exported order %+v", exported)
	}
}

// testBrandRecentSettings covers the feed's privacy rules of a brand:
// defaults when not set, and kept as set.
func testBrandRecentSettings(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	b, err := s.Brand(ctx, "br_1")
	if err != nil {
		t.Fatal(err)
	}
	if want := (svc.RecentSettings{}).Stored(); b.Recent != want {
		t.Fatalf("defaults %+v, want %+v", b.Recent, want)
	}
	b.Recent = svc.RecentSettings{Delay: 2 * time.Minute, Window: 7 * 24 * time.Hour, MaxItems: 50, K: 7}
	if err := s.UpdateBrand(ctx, b); err != nil {
		t.Fatal(err)
	}
	brands, err := s.Brands(ctx)
	if err != nil || len(brands) != 1 || brands[0].Recent != b.Recent {
		t.Fatalf("after an update: %+v, %v", brands, err)
	}
	created := &svc.Brand{ID: "br_2", Name: "Two", CreatedAt: t0, Recent: svc.RecentSettings{K: 5}}
	if err := s.CreateBrand(ctx, created, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.Brand(ctx, "br_2")
	if want := (svc.RecentSettings{K: 5}).Stored(); err != nil || got.Recent != want {
		t.Fatalf("created with k 5: %+v, %v", got, err)
	}
}
