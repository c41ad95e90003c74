package httpapi_test

import (
	"testing"
)

// TestEnrichByIdentifiers sends views with the maker's identifiers, then
// asks by them: the same GTIN (written as UPC-A on one side, EAN-13 on
// the other) is the same product at every shop, whatever the titles say;
// a part number with its maker too; a clashing GTIN is never a title
// match; and min_confidence 1 refuses any title match.
func TestEnrichByIdentifiers(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	view := func(brand, id, title string, ids map[string]any) {
		t.Helper()
		p := map[string]any{"product_id": id, "title": title}
		for k, v := range ids {
			p[k] = v
		}
		if r := f.do("POST", viewPath, map[string]any{"brand_id": brand, "product": p}, "X-svc-Api-Key", f.keys[brand]); r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	}
	view("br_alpha", "kb1", "Logitech MX Keys Wireless Keyboard", map[string]any{"gtin": "097855157539", "brand": "Logitech"})
	view("br_beta", "b-kb", "Tastatur kabellos Graphit", map[string]any{"gtin": "0097855157539"})
	view("br_gamma", "g-kb", "MX Keys S keyboard", map[string]any{"mpn": "920-011587", "brand": "Logitech"})
	view("br_gamma", "g-kb2", "Logitech MX Keys Wireless Keyboard", map[string]any{"gtin": "4006381333931"})

	got := decode[map[string]any](t, f.do("POST", productPath, map[string]any{
		"context": map[string]any{"url": "https://alpha.example/unknown-page"},
		"product": map[string]any{"title": "Something else entirely", "gtin": "097855157539"},
	}))
	m, _ := got["match"].(map[string]any)
	if m == nil || m["product_id"] != "kb1" || m["method"] != "gtin" || m["confidence"] != 1.0 {
		t.Fatalf("match by GTIN: %v", got["match"])
	}
	offers, _ := got["offers"].([]any)
	byBrand := map[string]map[string]any{}
	for _, o := range offers {
		o := o.(map[string]any)
		byBrand[o["brand_id"].(string)] = o
	}
	if o := byBrand["br_beta"]; o == nil || o["product_id"] != "b-kb" || o["method"] != "gtin" {
		t.Errorf("offer by GTIN at beta: %v", offers)
	}
	// Gamma's keyboard of the same title has another GTIN: no offer by title.
	if o := byBrand["br_gamma"]; o != nil {
		t.Errorf("offer at gamma despite its other GTIN: %v", o)
	}

	// A part number with its maker, spelled another way.
	got = decode[map[string]any](t, f.do("POST", productPath, map[string]any{
		"context": map[string]any{"domain": "gamma.example"},
		"product": map[string]any{"title": "x", "mpn": "920011587", "brand": "logitech"},
	}))
	if m, _ := got["match"].(map[string]any); m == nil || m["product_id"] != "g-kb" || m["method"] != "mpn" {
		t.Errorf("match by MPN: %v", got["match"])
	}

	// The same title search at alpha matches by title; with
	// min_confidence 1, nothing does.
	for _, tc := range []struct {
		min  any
		want bool
	}{{nil, true}, {1.0, false}} {
		req := map[string]any{"results": []any{map[string]any{"title": "Logitech MX Keys Wireless Keyboard", "url": "https://alpha.example/s?q=mx"}}}
		if tc.min != nil {
			req["min_confidence"] = tc.min
		}
		res := decode[map[string]any](t, f.do("POST", searchPath, req))["results"].([]any)[0].(map[string]any)
		if res["matched"] != tc.want {
			t.Errorf("min_confidence %v: %v", tc.min, res)
		}
	}
	if r := f.do("POST", searchPath, map[string]any{"results": []any{}, "min_confidence": 1.5}); r.status != 400 {
		t.Errorf("min_confidence 1.5: %d", r.status)
	} else if got := r.fields(t); len(got) != 1 || got[0] != "min_confidence" {
		t.Errorf("fields %v", got)
	}
}
