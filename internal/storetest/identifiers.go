package storetest

import (
	"testing"

	"github.com/svc-project/svc"
)

// testProductIdentifiers checks that a product keeps the maker's
// identifiers events give, the GTIN as GTIN-14, the latest of each, and
// that an event without one leaves the stored one.
func testProductIdentifiers(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	v := view("p1", "")
	v.View.Product.GTIN, v.View.Product.MPN, v.View.Product.Brand = ptr("4006381333931"), ptr("WH-1000XM5/B"), ptr("Sony")
	appendAll(t, s, v)
	ps := allProducts(t, s)
	if len(ps) != 1 || ps[0].GTIN == nil || *ps[0].GTIN != "04006381333931" || *ps[0].MPN != "WH-1000XM5/B" || *ps[0].Maker != "Sony" {
		t.Fatalf("products %+v", ps)
	}
	// A later view without identifiers keeps them; an order line changes the MPN.
	p := purchase("o1", "p1", 1)
	p.Purchase.Order.Items[0].MPN = ptr("WH1000XM5B")
	appendAll(t, s, view("p1", ""), p)
	ps = allProducts(t, s)
	if len(ps) != 1 || *ps[0].GTIN != "04006381333931" || *ps[0].MPN != "WH1000XM5B" || *ps[0].Maker != "Sony" {
		t.Fatalf("products after an order %+v", ps)
	}
	// A UPC-A given later is stored as its GTIN-14 too.
	u := view("p2", "")
	u.View.Product.GTIN = ptr("036000291452")
	appendAll(t, s, u)
	for _, p := range allProducts(t, s) {
		if p.ProductID == "p2" && (p.GTIN == nil || *p.GTIN != "00036000291452" || p.MPN != nil) {
			t.Fatalf("p2 %+v", p)
		}
	}
}
