package match

import (
	"fmt"
	"testing"

	"github.com/svc-project/svc"
)

// offersIndex puts each shop's titles under its brand, refs in order.
func offersIndex(shops map[string][]string) (*Index, map[string]svc.ProductRef) {
	x, refs, ref := New(), map[string]svc.ProductRef{}, svc.ProductRef(0)
	for _, brand := range []string{"a", "b", "c", "d"} {
		for _, title := range shops[brand] {
			ref++
			t := title
			x.Put(&svc.Product{Ref: ref, BrandID: brand, ProductID: fmt.Sprint(ref), Title: &t})
			refs[title] = ref
		}
	}
	return x, refs
}

// A title offer finds the page's own product back: looked up in the
// page's shop, the offered title must answer the page's product. Shop b
// holds a G.Skill kit where the page's Corsair kit would be, and the code
// tier offers it on the "2x8GB" both have; the page's own shop sells that
// G.Skill kit too, which the offer finds instead (WDC Products' training
// offers). Shop c's Corsair kit finds the page's back.
func TestOffersFindBack(t *testing.T) {
	page := "Corsair Vengeance LPX 16GB (2x8GB) 2133MHz CL13 DDR4"
	x, refs := offersIndex(map[string][]string{
		"a": {page, "G.Skill Trident Z Neo 16GB (2x8GB) DDR4 3600 F4-3600C16D-16GTZNC", "Logitech H540 USB Headset"},
		"b": {"DDR4 16GB 3600 G.Skill Trident Z Neo F4-3600C16D-16GTZNC (2x8GB)", "Logitech C310 HD Webcam"},
		"c": {"Corsair Vengeance LPX 16GB DDR4 2133MHz CL13 (2x8GB) kit", "Logitech C920 HD Pro Webcam"},
	})
	brands := func(offers []Offer) map[string]string {
		out := map[string]string{}
		for _, o := range offers {
			out[o.BrandID] = o.Title
		}
		return out
	}
	q := Query{Title: page, MinConfidence: minAnswer}
	without := brands(x.Offers("a", q, "", 10))
	if without["b"] == "" || without["c"] == "" {
		t.Fatalf("without the page's product, offers = %v; want one at b (the neighbour) and one at c", without)
	}
	q.Own = refs[page]
	with := brands(x.Offers("a", q, "", 10))
	if with["b"] != "" {
		t.Errorf("offer at b = %q; the G.Skill kit finds the page's shop's own G.Skill kit, not the page's product", with["b"])
	}
	if with["c"] == "" {
		t.Errorf("offers = %v; want c's Corsair kit, which finds the page's product back", with)
	}
	// Found both ways, the offer has the offer levels' confidence, not
	// its lookup's.
	for _, a := range x.OfferAnswers("a", q) {
		if a.BrandID != "c" {
			continue
		}
		if !a.FoundBack {
			t.Fatalf("c's offer %q does not find the page back", a.Title)
		}
		want := round3(DefaultModel.OfferLevel(a.Probability))
		for _, o := range x.Offers("a", q, "", 10) {
			if o.BrandID == "c" && o.Confidence != want {
				t.Errorf("c's offer at %.3f, want the offer level %.3f (its lookup's: %.3f)", o.Confidence, want, DefaultModel.Level(a.Probability))
			}
		}
	}
}

// Without offer levels an offer has its lookup's level; with them, the
// offer levels'.
func TestOfferLevel(t *testing.T) {
	m := &Model{Levels: []Level{{Upto: 0.7, Confidence: 0.6}, {Upto: 1, Confidence: 0.9}}}
	if got := m.OfferLevel(0.8); got != 0.9 {
		t.Errorf("without offer levels: %.3f, want the lookup level 0.9", got)
	}
	m.OfferLevels = []Level{{Upto: 0.75, Confidence: 0.4}, {Upto: 1, Confidence: 0.95}}
	if got := m.OfferLevel(0.8); got != 0.95 {
		t.Errorf("with offer levels: %.3f, want 0.95", got)
	}
	if got := m.OfferLevel(0.7); got != 0 {
		t.Errorf("under minAnswer: %.3f, want no answer", got)
	}
	if len(DefaultModel.OfferLevels) == 0 {
		t.Error("the committed model has no offer levels")
	}
}
