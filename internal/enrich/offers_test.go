package enrich

import (
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// A product page's title offers find its product back: a shop whose one
// memory kit is another maker's is no offer for the page's kit when the
// page's own shop sells that other kit too (match.Query.Own; WDC
// Products' training offers).
func TestProductOffersFindThePageBack(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	var brands []*svc.Brand
	for _, id := range []string{"br_a", "br_b", "br_c"} {
		brands = append(brands, &svc.Brand{ID: id, Domains: []string{id + ".example"}})
	}
	src := newSource(now, brands)
	page := "Corsair Vengeance LPX 16GB (2x8GB) 2133MHz CL13 DDR4"
	ref := svc.ProductRef(0)
	for brand, titles := range map[string][]string{
		"br_a": {page, "G.Skill Trident Z Neo 16GB (2x8GB) DDR4 3600 F4-3600C16D-16GTZNC", "Logitech H540 USB Headset"},
		"br_b": {"DDR4 16GB 3600 G.Skill Trident Z Neo F4-3600C16D-16GTZNC (2x8GB)", "Logitech C310 HD Webcam"},
		"br_c": {"Corsair Vengeance LPX 16GB DDR4 2133MHz CL13 (2x8GB) kit", "Logitech C920 HD Pro Webcam"},
	} {
		for k, title := range titles {
			ref++
			url := fmt.Sprintf("https://%s.example/p/%d", brand, k)
			src.cat.Learn(svc.Product{Ref: ref, BrandID: brand, ProductID: fmt.Sprint(k), Title: &title, URL: &url}, true)
		}
	}
	title, url := page, "https://br_a.example/p/0"
	out := src.service().Product(&svc.ProductEnrichRequest{Context: svc.PageContext{URL: &url}, Product: svc.PageProduct{Title: &title}}, "")
	if !out.Matched {
		t.Fatalf("the page's product is not matched: %+v", out)
	}
	var at []string
	for _, o := range out.Offers {
		at = append(at, o.BrandID)
		if o.BrandID == "br_b" {
			t.Errorf("offer at br_b: %q; it finds the page's shop's G.Skill kit, not the page's product", *o.Title)
		}
	}
	if len(at) != 1 || at[0] != "br_c" {
		t.Errorf("offers at %v, want br_c's Corsair kit alone", at)
	}
}
