package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/tracker"
)

// benchServer is the API over a real SQLite file, a brand with domains and
// its key: the whole path of a request, the store's commit included.
func benchServer(b *testing.B) (*httpapi.Server, string) {
	b.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	secret, k := svc.NewAPIKey("br_bench", now)
	if err := store.CreateBrand(ctx, &svc.Brand{ID: "br_bench", Name: "Bench", Domains: []string{"shop.example"}, CreatedAt: now}, k); err != nil {
		b.Fatal(err)
	}
	discard := slog.New(slog.DiscardHandler)
	a, err := auth.Open(ctx, store, 0, discard)
	if err != nil {
		b.Fatal(err)
	}
	tr, err := tracker.Open(ctx, store, tracker.Config{Logger: discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tr.Close(); a.Close(); store.Close() })
	return httpapi.New(tr, a, discard, httpapi.Options{}), secret
}

// BenchmarkCollectView is one anonymous view from a browser, and
// BenchmarkCollectViewKeyed one from a brand's server, each through the
// handler, the checks and the group commit: compare allocations, not time
// (the fsync dominates it).
func BenchmarkCollectView(b *testing.B)      { benchmarkCollectView(b, false) }
func BenchmarkCollectViewKeyed(b *testing.B) { benchmarkCollectView(b, true) }

func benchmarkCollectView(b *testing.B, keyed bool) {
	s, secret := benchServer(b)
	h := s.Handler()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		body := fmt.Sprintf(`{"brand_id":"br_bench","product":{"product_id":"p%d","title":"Product %d","url":"https://shop.example/p/%d"},"context":{"session_id":"s%d","country":"DE"}}`, i%100, i%100, i%100, i)
		r := httptest.NewRequest("POST", "/api/collect/product-view", bytes.NewReader([]byte(body)))
		r.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36")
		if keyed {
			r.Header.Set(httpapi.APIKeyHeader, secret)
		} else {
			r.Header.Set("Origin", "https://shop.example")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatal(w.Code, w.Body)
		}
	}
}

// BenchmarkCollectBatch is a batch of 100 views and purchases of a brand's
// server through the handler, the checks and the group commit.
func BenchmarkCollectBatch(b *testing.B) {
	s, secret := benchServer(b)
	h := s.Handler()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		var body bytes.Buffer
		body.WriteString(`{"events":[`)
		for j := range 100 {
			n++
			if j > 0 {
				body.WriteByte(',')
			}
			if j%10 == 0 {
				fmt.Fprintf(&body, `{"type":"product-purchase","brand_id":"br_bench","order":{"order_id":"o%d","currency":"EUR","items":[{"product_id":"p%d","quantity":1,"unit_price":9.5}]}}`, n, n%100)
				continue
			}
			fmt.Fprintf(&body, `{"type":"product-view","idempotency_key":"k%d","brand_id":"br_bench","product":{"product_id":"p%d","title":"Product %d"},"context":{"session_id":"s%d"}}`, n, n%100, n%100, n)
		}
		body.WriteString(`]}`)
		r := httptest.NewRequest("POST", "/api/collect/batch", &body)
		r.Header.Set(httpapi.APIKeyHeader, secret)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 || bytes.Contains(w.Body.Bytes(), []byte(`"invalid"`)) {
			b.Fatal(w.Code, w.Body)
		}
	}
}
