package storetest

import (
	"testing"

	"github.com/svc-project/svc"
)

// testProductProvenance covers what an event may do to a product by where
// it came from (docs/security.md, Provenance): a keyed event sets and
// verifies the attributes it gives; an anonymous one never changes a
// verified attribute, and what it sets stays provisional; each store
// keeps which are verified, and hands them back with the products. And the
// recent purchases records say which orders are keyed.
func testProductProvenance(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	keyed := func(w *svc.Write) *svc.Write {
		_, m := w.Event()
		m.Keyed = true
		return w
	}
	named := func(w *svc.Write, sku, title, url string) *svc.Write {
		p := &w.View.Product
		p.SKU, p.Title, p.URL = ptr(sku), ptr(title), ptr(url)
		return w
	}
	// A webhook's product, then anonymous views that try to rename it and
	// give it an identifier no keyed event set.
	real := keyed(purchase("o1", "p1", 1))
	real.Purchase.Order.Items[0].Title, real.Purchase.Order.Items[0].SKU = ptr("Real shoe"), ptr("SKU-1")
	appendAll(t, s, real)
	hijack := named(view("p1", ""), "SKU-OTHER", "Hijacked title", "https://shop.example/login")
	hijack.View.Product.MPN = ptr("MPN-9")
	// A product only anonymous events named, and one that a keyed event
	// names after an anonymous one in the same batch, then an anonymous
	// one again.
	provisional := named(view("p2", ""), "SKU-2", "Provisional", "https://shop.example/p2")
	first := named(view("p3", ""), "SKU-3a", "Anonymous first", "https://shop.example/p3a")
	second := keyed(named(view("p3", ""), "SKU-3", "Keyed second", "https://shop.example/p3"))
	third := named(view("p3", ""), "SKU-3c", "Anonymous third", "https://shop.example/p3c")
	appendAll(t, s, hijack, provisional, first, second, third)

	want := map[string]svc.Product{
		"p1": {SKU: ptr("SKU-1"), Title: ptr("Real shoe"), URL: ptr("https://shop.example/login"), MPN: ptr("MPN-9"), Verified: svc.AttrSKU | svc.AttrTitle},
		"p2": {SKU: ptr("SKU-2"), Title: ptr("Provisional"), URL: ptr("https://shop.example/p2")},
		"p3": {SKU: ptr("SKU-3"), Title: ptr("Keyed second"), URL: ptr("https://shop.example/p3"), Verified: svc.AttrSKU | svc.AttrTitle | svc.AttrURL},
	}
	check := func(when string) {
		t.Helper()
		ps := allProducts(t, s)
		if len(ps) != len(want) {
			t.Fatalf("%s: %d products, want %d", when, len(ps), len(want))
		}
		for _, p := range ps {
			w := want[p.ProductID]
			if deref(p.SKU) != deref(w.SKU) || deref(p.Title) != deref(w.Title) || deref(p.URL) != deref(w.URL) ||
				deref(p.MPN) != deref(w.MPN) || p.Verified != w.Verified {
				t.Fatalf("%s: product %s: sku %q title %q url %q mpn %q verified %b; want %q %q %q %q %b", when, p.ProductID,
					deref(p.SKU), deref(p.Title), deref(p.URL), deref(p.MPN), p.Verified,
					deref(w.SKU), deref(w.Title), deref(w.URL), deref(w.MPN), w.Verified)
			}
		}
	}
	check("after the anonymous views")

	// A keyed event verifies a provisional value it repeats, and one it
	// changes; an anonymous event after it changes neither.
	verify := keyed(view("p2", ""))
	verify.View.Product.Title = ptr("Provisional")
	appendAll(t, s, verify)
	again := named(view("p2", ""), "SKU-X", "Renamed", "https://shop.example/x")
	appendAll(t, s, again)
	want["p2"] = svc.Product{SKU: ptr("SKU-X"), Title: ptr("Provisional"), URL: ptr("https://shop.example/x"), Verified: svc.AttrTitle}
	check("after a keyed view of p2")

	// The feed's records tell keyed orders from anonymous ones.
	anon := purchase("o2", "p1", 1)
	appendAll(t, s, anon)
	keyedOrders := map[string]bool{}
	if err := s.RecentPurchases(ctx, t0.Add(-1), func(r svc.RecentPurchase) error { keyedOrders[r.Order] = r.Keyed; return nil }); err != nil {
		t.Fatal(err)
	}
	if !keyedOrders[real.Purchase.Meta.EventID] || keyedOrders[anon.Purchase.Meta.EventID] || len(keyedOrders) != 2 {
		t.Fatalf("recent purchases' provenance: %v", keyedOrders)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
