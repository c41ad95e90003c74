package connect

import (
	"slices"
	"testing"
)

// Each webhook line counts under the platform's product id and names its
// variant's id and SKU as aliases, which the keyed write registers as the
// product's names; a simple product's variation_id 0 names nothing.
func TestWebhookLinesNameTheirVariants(t *testing.T) {
	shop, err := Shopify("br_1", "orders/create", []byte(`{"id":5801234567890,"currency":"EUR","total_price":"240.00",
		"line_items":[{"id":13001,"product_id":8123456789012,"variant_id":44000000000043,"sku":"FHB-43","title":"Forest Hiker Boot","quantity":2,"price":"120.00"},
		{"id":13002,"product_id":8123456789012,"variant_id":null,"sku":"","title":"Forest Hiker Boot","quantity":1,"price":"120.00"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	woo, err := WooCommerce("br_1", "order.created", []byte(`{"id":93,"status":"processing","currency":"EUR","total":"59.00","date_paid_gmt":"2026-11-21T09:00:00",
		"line_items":[{"product_id":2417,"variation_id":2419,"sku":"MH-100-L","name":"Mountain Hoodie - L","quantity":1,"price":49},
		{"product_id":2500,"variation_id":0,"sku":"CAP","name":"Cap","quantity":1,"price":10}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		a       *Action
		line    int
		product string
		aliases []string
	}{
		{"shopify variant", shop, 0, "8123456789012", []string{"44000000000043", "FHB-43"}},
		{"shopify line without variant or sku", shop, 1, "8123456789012", nil},
		{"woocommerce variation", woo, 0, "2417", []string{"2419", "MH-100-L"}},
		{"woocommerce simple product", woo, 1, "2500", []string{"CAP"}},
	} {
		if tt.a.Order == nil {
			t.Fatalf("%s: no order: %+v", tt.name, tt.a)
		}
		it := tt.a.Order.Order.Items[tt.line]
		if it.ProductID != tt.product || !slices.Equal(it.Aliases, tt.aliases) {
			t.Errorf("%s: product %q aliases %q, want %q %q", tt.name, it.ProductID, it.Aliases, tt.product, tt.aliases)
		}
	}
}
