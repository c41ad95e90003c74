package shops

import (
	"slices"
	"strings"
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

// Shopify's export counts as the platform does: paid and partially paid
// orders, less the units a refund paid back when the export can say
// which; never a variant's name as the product's title.
func TestReadShopifyCSVPaidLessRefunds(t *testing.T) {
	csv := "Name,Email,Financial Status,Paid at,Currency,Total,Created at,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Refunded Amount,Cancelled at,Id\n" +
		"#1,a@example.com,partially_refunded,2026-03-05 14:22:10 -0500,EUR,365.00,2026-03-05 14:22:10 -0500,3,Forest Hiker Boot - EU 42,120.00,FHB-42,125.00,,1\n" +
		"#2,b@example.com,paid,2026-03-05 14:22:10 -0500,EUR,125.00,2026-03-05 14:22:10 -0500,1,Forest Hiker Boot - EU 42,120.00,FHB-42,5.00,,2\n" +
		"#3,c@example.com,partially_refunded,2026-03-05 14:22:10 -0500,EUR,200.00,2026-03-05 14:22:10 -0500,1,Forest Hiker Boot - EU 42,120.00,FHB-42,80.00,,3\n" +
		"#3,,,,,,,1,Wool Socks,80.00,WS-1,,,\n" +
		"#4,d@example.com,partially_refunded,2026-03-05 14:22:10 -0500,EUR,120.00,2026-03-05 14:22:10 -0500,1,Forest Hiker Boot - EU 42,120.00,FHB-42,120.00,,4\n" +
		"#5,e@example.com,authorized,2026-03-05 14:22:10 -0500,EUR,120.00,2026-03-05 14:22:10 -0500,1,Forest Hiker Boot - EU 42,120.00,FHB-42,,,5\n" +
		"#6,f@example.com,,,EUR,120.00,2026-03-05 14:22:10 -0500,1,Forest Hiker Boot - EU 42,120.00,FHB-42,,,6\n"
	var recs []Record
	err := ReadShopifyCSV(strings.NewReader(csv), "br_1", func(sku, name string) CSVProduct {
		title := ShopifyBaseTitle(name)
		return CSVProduct{ProductID: "p-" + title, Title: &title, Aliases: []string{sku}}
	}, func(r Record) error { recs = append(recs, r); return nil })
	if err != nil || len(recs) != 6 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	units := func(r Record) int64 {
		if r.Action.Kind != Purchase {
			return -1
		}
		return *r.Action.Order.Order.Items[0].Quantity
	}
	for i, want := range []int64{2, 1, -1, -1, -1, -1} {
		if got := units(recs[i]); got != want {
			t.Errorf("order #%d: %d units (-1: skipped), want %d: %+v", i+1, got, want, recs[i].Action)
		}
	}
	it := recs[0].Action.Order.Order.Items[0]
	if *it.Title != "Forest Hiker Boot" || it.ProductID != "p-Forest Hiker Boot" || !slices.Equal(it.Aliases, []string{"FHB-42"}) || !recs[0].Action.Order.Meta.Keyed {
		t.Fatalf("the line %+v (title %q), keyed %v", it, *it.Title, recs[0].Action.Order.Meta.Keyed)
	}
}
