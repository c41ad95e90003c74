package svc_test

import (
	"encoding/json"
	"testing"

	"github.com/svc-project/svc"
)

func BenchmarkValidateView(b *testing.B) {
	var ev svc.ViewEvent
	mustDecode(b, `{"brand_id":"br_AbCdEfGhIjKl","product":{"product_id":"p4711","sku":"SKU-4711","title":"Product 4711","url":"https://b11.bench.test/p/4711"},"context":{"session_id":"s829113","country":"DE","locale":"de-DE"}}`, &ev)
	b.ReportAllocs()
	for b.Loop() {
		if fe := ev.Validate(); fe != nil {
			b.Fatal(fe)
		}
	}
}

func BenchmarkValidatePurchase(b *testing.B) {
	var ev svc.PurchaseEvent
	mustDecode(b, `{"brand_id":"br_AbCdEfGhIjKl","order":{"order_id":"o-1-42","currency":"EUR","items":[{"product_id":"p4711","sku":"SKU-4711","title":"Product 4711","quantity":2,"unit_price":19.99},{"product_id":"p11","sku":"SKU-11","title":"Product 11","quantity":1,"unit_price":5.5}],"total_value":45.48},"context":{"session_id":"s829113"}}`, &ev)
	b.ReportAllocs()
	for b.Loop() {
		if fe := ev.Validate(); fe != nil {
			b.Fatal(fe)
		}
	}
}

// BenchmarkValidateInvalidView names several bad fields at once.
func BenchmarkValidateInvalidView(b *testing.B) {
	var ev svc.ViewEvent
	mustDecode(b, `{"brand_id":"","product":{"product_id":"","url":"ftp://x"},"context":{"country":"de","locale":"german"}}`, &ev)
	b.ReportAllocs()
	for b.Loop() {
		if fe := ev.Validate(); len(fe) == 0 {
			b.Fatal("no field errors")
		}
	}
}

func mustDecode(b *testing.B, body string, v any) {
	b.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		b.Fatal(err)
	}
}
