package httpapi_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/signing"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/tracker"
)

// BenchmarkProof reads one product's proof through the handler, signed
// and unsigned: what signing adds to the hottest read. "unsigned" is the
// widget's read, which does not ask for a signature; "signed" asks
// (Accept-Signature) for the same URL each time, so the signature of the
// second is remembered; "signed-distinct" asks for another window each
// time, so every answer is signed anew.
//
//	go test ./internal/httpapi -run '^$' -bench BenchmarkProof -benchmem -count 5
func BenchmarkProof(b *testing.B) {
	ctx := context.Background()
	discard := slog.New(slog.DiscardHandler)
	store, err := sqlite.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	secret, k := svc.NewAPIKey("br_1", time.Now())
	if err := store.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "B", CreatedAt: time.Now()}, k); err != nil {
		b.Fatal(err)
	}
	a, err := auth.Open(ctx, store, 0, discard)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	tr, err := tracker.Open(ctx, store, tracker.Config{Logger: discard, Catalog: enrich.NewCatalog()})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	kr, err := signing.Open(ctx, store, 0, nil, discard)
	if err != nil {
		b.Fatal(err)
	}
	defer kr.Close()
	h := httpapi.New(tr, a, discard, httpapi.Options{Keys: kr}).Handler()
	req := httptest.NewRequest("POST", "/api/collect/product-view", strings.NewReader(`{"brand_id":"br_1","product":{"product_id":"p1"}}`))
	req.Header.Set(httpapi.APIKeyHeader, secret)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("view: %d %s", rec.Code, rec.Body)
	}
	for _, c := range []struct {
		name             string
		signed, distinct bool
	}{{"unsigned", false, false}, {"signed", true, false}, {"signed-distinct", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				target := "/api/svc/product-proof?brand_id=br_1&product_id=p1"
				if c.distinct {
					i++
					target += fmt.Sprintf("&window_views=%d", i%10080+1)
				}
				req := httptest.NewRequest("GET", target, nil)
				req.Header.Set(httpapi.APIKeyHeader, secret)
				if c.signed {
					req.Header.Set("Accept-Signature", signing.AcceptSignature)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 || (rec.Header().Get("Signature") != "") != c.signed {
					b.Fatalf("proof: %d, signature %q", rec.Code, rec.Header().Get("Signature"))
				}
			}
		})
	}
}
