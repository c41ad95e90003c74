package httpapi

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/svc-project/svc/internal/wire"
)

// Bodies as the load generator (bench/loadgen) and svc.js send them.
var (
	benchView     = []byte(`{"brand_id":"br_AbCdEfGhIjKl","product":{"product_id":"p4711","sku":"SKU-4711","title":"Product 4711","url":"https://b11.bench.test/p/4711"},"context":{"session_id":"s829113","country":"DE","locale":"de-DE"}}`)
	benchPurchase = []byte(`{"brand_id":"br_AbCdEfGhIjKl","order":{"order_id":"o-1-42","currency":"EUR","items":[{"product_id":"p4711","sku":"SKU-4711","title":"Product 4711","quantity":2,"unit_price":19.99},{"product_id":"p11","sku":"SKU-11","title":"Product 11","quantity":1,"unit_price":5.5}],"total_value":45.48},"context":{"session_id":"s829113"}}`)
	benchUnknown  = []byte(`{"brand_id":"br_AbCdEfGhIjKl","product":{"product_id":"p4711","sku":"SKU-4711","title":"Product 4711","url":"https://b11.bench.test/p/4711","color":"red"},"context":{"session_id":"s829113","country":"DE","locale":"de-DE"}}`)
	benchBadTypes = []byte(`{"brand_id":7,"product":{"product_id":"p1","title":["x"]},"context":{"country":1}}`)
)

// benchmarkDecode reads body from a request, as a handler does, and
// decodes it into a fresh E.
func benchmarkDecode[E any](b *testing.B, body []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		r := httptest.NewRequest("POST", "/", bytes.NewReader(body))
		w := httptest.NewRecorder()
		var ev E
		if _, _, err := decodeJSON(w, r, &ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeView(b *testing.B)     { benchmarkDecode[wire.View](b, benchView) }
func BenchmarkDecodePurchase(b *testing.B) { benchmarkDecode[wire.Purchase](b, benchPurchase) }

// BenchmarkDecodeUnknownMember is a valid body with a member we do not
// read: it takes the slow path, which checks names member by member.
func BenchmarkDecodeUnknownMember(b *testing.B) { benchmarkDecode[wire.View](b, benchUnknown) }

// BenchmarkDecodeWrongTypes is the slow path that names every badly typed
// field; valid bodies never take it.
func BenchmarkDecodeWrongTypes(b *testing.B) { benchmarkDecode[wire.View](b, benchBadTypes) }

// BenchmarkUnmarshalView is the JSON decoding alone, without the request.
func BenchmarkUnmarshalView(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchView)))
	for b.Loop() {
		var ev wire.View
		if fe, err := unmarshal(benchView, &ev); err != nil || fe != nil {
			b.Fatal(fe, err)
		}
	}
}
