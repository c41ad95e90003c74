package dashboard_test

import (
	"fmt"
	"strings"
	"testing"
)

// The probe's order: one keyed order of 10 lines of 1,000,000 units at
// 10¹², within the bounds. The overview and the product's page show its
// revenue as it is, 10¹⁹, not as an overflowed int64.
func TestRevenuePastInt64(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var items []any
	for i := range 10 {
		items = append(items, map[string]any{"product_id": fmt.Sprint("gold-", i), "quantity": 1000000, "unit_price": 1e12})
	}
	f.api("POST", "/api/collect/product-purchase", "br_acme", map[string]any{"brand_id": "br_acme",
		"order": map[string]any{"order_id": "big", "currency": "EUR", "total_value": 1e12, "items": items}})
	b := f.signIn("br_acme")
	for path, want := range map[string]string{
		"/dashboard/brands/br_acme/":                "10,000,000,000,000,000,059.90", // with the fixture's order of 59.90
		"/dashboard/brands/br_acme/products/gold-0": "1,000,000,000,000,000,000.00",
	} {
		p := b.get(path)
		if strings.Contains(p.body, "-9,223,372,036,854,775,808") || !strings.Contains(p.body, want) {
			t.Errorf("%s does not show %s", path, want)
		}
	}
}
