package svc_test

import (
	"testing"

	"github.com/svc-project/svc"
)

func BenchmarkValidateView(b *testing.B) {
	ev := svc.ViewEvent{BrandID: "br_AbCdEfGhIjKl",
		Product: svc.ViewProduct{ProductID: "p4711", SKU: ptr("SKU-4711"), Title: ptr("Product 4711"), URL: ptr("https://b11.bench.test/p/4711")},
		Context: svc.ViewContext{SessionID: ptr("s829113"), Country: ptr("DE"), Locale: ptr("de-DE")}}
	b.ReportAllocs()
	for b.Loop() {
		if fe := ev.Validate(); fe != nil {
			b.Fatal(fe)
		}
	}
}

func BenchmarkValidatePurchase(b *testing.B) {
	ev := svc.PurchaseEvent{BrandID: "br_AbCdEfGhIjKl",
		Order: svc.Order{OrderID: "o-1-42", Currency: ptr("EUR"), TotalValue: ptr(45.48), Items: []svc.PurchaseItem{
			{ProductID: "p4711", SKU: ptr("SKU-4711"), Title: ptr("Product 4711"), Quantity: ptr(int64(2)), UnitPrice: ptr(19.99)},
			{ProductID: "p11", SKU: ptr("SKU-11"), Title: ptr("Product 11"), Quantity: ptr(int64(1)), UnitPrice: ptr(5.5)}}},
		Context: svc.PurchaseContext{SessionID: ptr("s829113")}}
	b.ReportAllocs()
	for b.Loop() {
		if fe := ev.Validate(); fe != nil {
			b.Fatal(fe)
		}
	}
}

// BenchmarkValidateInvalidView names several bad fields at once.
func BenchmarkValidateInvalidView(b *testing.B) {
	ev := svc.ViewEvent{Product: svc.ViewProduct{URL: ptr("ftp://x")}, Context: svc.ViewContext{Country: ptr("de"), Locale: ptr("german")}}
	b.ReportAllocs()
	for b.Loop() {
		if fe := ev.Validate(); len(fe) == 0 {
			b.Fatal("no field errors")
		}
	}
}
