package shops

import (
	"os"
	"testing"
	"unicode/utf8"
)

// The platforms' bodies are untrusted until their HMAC is checked, and a
// brand's own shop may still send anything: reading one never panics, and
// what it asks of svc is always well formed.

func seed(f *testing.F, topics []string, files ...string) {
	for _, name := range files {
		body, err := os.ReadFile("../httpapi/testdata/connect/" + name)
		if err != nil {
			f.Fatal(err)
		}
		for _, topic := range topics {
			f.Add(topic, body)
		}
	}
	f.Add(topics[0], []byte(`{"id":1,"line_items":[{"product_id":2,"quantity":-1,"price":"1e999"}]}`))
	f.Add(topics[0], []byte(`{"id":"x","line_items":null}`))
	f.Add(topics[0], []byte(`[]`))
}

func FuzzShopify(f *testing.F) {
	seed(f, []string{"orders/create", "orders/cancelled", "refunds/create"}, "shopify-order.json", "shopify-refund.json")
	f.Fuzz(func(t *testing.T, topic string, body []byte) {
		a, err := Shopify("br_fuzz", topic, body)
		checkAction(t, a, err)
	})
}

func FuzzWooCommerce(f *testing.F) {
	seed(f, []string{"order.created", "order.updated", "order.deleted"}, "woocommerce-order.json")
	f.Fuzz(func(t *testing.T, topic string, body []byte) {
		a, err := WooCommerce("br_fuzz", topic, body)
		checkAction(t, a, err)
	})
}

func checkAction(t *testing.T, a *Action, err error) {
	t.Helper()
	if err != nil {
		if a != nil {
			t.Fatalf("an action %+v beside the error %v", a, err)
		}
		return
	}
	switch {
	case a == nil:
		t.Fatal("no action and no error")
	case a.Kind == Ignore:
		if a.Reason == "" {
			t.Fatal("an ignored message without a reason")
		}
	case a.Kind == Purchase:
		o := a.Order
		if o == nil || o.BrandID != "br_fuzz" || o.Order.OrderID == "" || !utf8.ValidString(o.Order.OrderID) {
			t.Fatalf("purchase %+v: want the brand and a readable order id", o)
		}
		for _, l := range o.Order.Items {
			if l.ProductID == "" || l.Quantity == nil || *l.Quantity < 1 {
				t.Fatalf("order line %+v: want a product and at least one unit", l)
			}
		}
	case a.Kind == Cancel:
		if a.OrderID == "" {
			t.Fatal("a cancellation without an order id")
		}
		for _, it := range a.Items {
			if it.ProductID == "" || it.Quantity < 1 {
				t.Fatalf("cancelled item %+v: want a product and at least one unit", it)
			}
		}
	default:
		t.Fatalf("unknown action kind %q", a.Kind)
	}
}
