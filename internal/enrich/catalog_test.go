package enrich

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// brandList is Brands over a list whose version a test moves.
type brandList struct {
	version int64
	all     []*svc.Brand
}

func (b *brandList) Brand(id string) *svc.Brand {
	for _, x := range b.all {
		if x.ID == id {
			return x
		}
	}
	return nil
}

func (b *brandList) Brands() (int64, []*svc.Brand) { return b.version, b.all }

// The catalog gives back a product's attributes as learnt, keeps prices in
// their window, and a cancellation replaces a line's price.
func TestCatalogLearns(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	c := NewCatalog()
	title, url := "Trail Runner 2", "https://acme.example/p/1"
	c.Learn(svc.Product{Ref: 1, BrandID: "br_1", ProductID: "p1", Title: &title, URL: &url}, true)
	p, ok := c.Product(1)
	if !ok || p.Title == nil || *p.Title != title || p.URL == nil || *p.URL != url {
		t.Fatalf("Product: %+v, %v; want its title and URL", p, ok)
	}
	if _, ok := c.Product(2); ok {
		t.Fatal("a product never learnt is found")
	}
	price := func(v float64) *float64 { return &v }
	for _, at := range []time.Duration{time.Hour, 2 * time.Hour, PriceWindow + time.Hour} {
		c.LearnPrice(svc.PurchaseRecord{Product: 1, Time: now.Add(-at), Units: 1, Currency: "EUR", UnitPrice: price(10)}, now)
	}
	c.LearnPrice(svc.PurchaseRecord{Product: 1, Time: now, Units: 1, Currency: "", UnitPrice: price(10)}, now)
	if got := c.Prices(1, "EUR", now).Purchases; got != 2 {
		t.Fatalf("%d prices, want 2: one without a currency, one out of the window", got)
	}
	c.Cancel(svc.CancelRecord{Product: 1, Time: now.Add(-time.Hour), Currency: "EUR", PriceBefore: price(10)}, now)
	if got := c.Prices(1, "EUR", now).Purchases; got != 1 {
		t.Fatalf("%d prices after a cancellation, want 1", got)
	}
	c.Sweep(now.Add(PriceWindow))
	if got := c.Prices(1, "EUR", now.Add(PriceWindow)).Purchases; got != 0 {
		t.Fatalf("%d prices after the sweep, want 0", got)
	}
}

// The brands by domain are built again when the brands' version moves,
// and only then.
func TestCatalogDirectoryFollowsBrands(t *testing.T) {
	c := NewCatalog()
	brands := &brandList{version: 1, all: []*svc.Brand{{ID: "br_1", Domains: []string{"acme.example"}}}}
	d := c.directory(brands)
	if b := d.Brand("acme.example"); b == nil || b.ID != "br_1" {
		t.Fatalf("acme.example is %v, want br_1", b)
	}
	if c.directory(brands) != d {
		t.Fatal("built again without a change")
	}
	brands.version, brands.all = 2, []*svc.Brand{{ID: "br_2", Domains: []string{"acme.example"}}}
	if b := c.directory(brands).Brand("acme.example"); b == nil || b.ID != "br_2" {
		t.Fatalf("after the change acme.example is %v, want br_2", b)
	}
}
