package match

import "testing"

// A letter a shop writes after a model code makes another product: the
// left-hinged "ORB153BK L" is not the "ORB153BK", and a query for one is
// never answered with the other (issue 37's real error).
func TestVariantSuffix(t *testing.T) {
	catalog := []string{
		"Gorenje ORB153BK L Retro Fridge Black",
		"Gorenje ORB153C Retro Fridge Cream",
		"Gorenje ORB153R Retro Fridge Red",
		"Bosch KGN39VLEB Fridge Freezer",
	}
	x := codeTierIndex(catalog...)
	for _, q := range []string{"gorenje orb153bk", "Gorenje ORB153BK retro fridge black"} {
		if h, ok := x.Lookup("b", Query{Title: q, MinConfidence: 0.01}); ok {
			t.Errorf("%q: Lookup = %q at %.3f; want no answer, the catalog has only the left-hinged one", q, h.Title, h.Confidence)
		}
	}
	both := codeTierIndex(append(catalog, "Gorenje ORB153BK Retro Fridge Black")...)
	if h, ok := both.Lookup("b", Query{Title: "gorenje orb153bk"}); !ok || h.Ref != 5 {
		t.Errorf("with both in the catalog, Lookup = %+v, %v; want product 5", h, ok)
	}
	if h, ok := both.Lookup("b", Query{Title: "gorenje orb153bk l"}); !ok || h.Ref != 1 {
		t.Errorf("the left-hinged one: Lookup = %+v, %v; want product 1", h, ok)
	}
}
