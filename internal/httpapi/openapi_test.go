package httpapi_test

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/apidoc"
	"github.com/svc-project/svc/internal/apidoc/spec"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/script"
)

// TestOpenAPIDocumentsEveryRoute fails when a route is missing from
// docs/openapi.yaml, or the document describes one the server lacks.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	t.Parallel()
	doc, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	js, err := script.Build()
	if err != nil {
		t.Fatal(err)
	}
	openapi, err := apidoc.Handler()
	if err != nil {
		t.Fatal(err)
	}
	opts := httpapi.Options{Script: js, Demo: http.NotFoundHandler(), Metrics: metrics.New(), OpenAPI: openapi, Keys: f.keyring,
		Insights: &insights.Cache{Store: f.store, Now: f.clock.Now}, Dashboard: http.NotFoundHandler(), Sessions: f.store}
	routes := httpapi.New(f.tracker, f.auth, slog.New(slog.DiscardHandler), opts).Routes()
	served := map[string]bool{}
	for _, r := range routes {
		served[r.Method+" "+r.Path] = true
		item := doc.Paths.Find(r.Path)
		if item == nil || item.GetOperation(r.Method) == nil {
			t.Errorf("%s %s is served but not in docs/openapi.yaml", r.Method, r.Path)
		}
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !served[strings.ToUpper(method)+" "+path] {
				t.Errorf("%s %s is in docs/openapi.yaml but not served", method, path)
			}
		}
	}
}

// TestEveryRouteAnswersAsDocumented calls every GET route once through the
// fixture, whose contract check validates the answers; and checks that
// /openapi.json is the document.
func TestEveryRouteAnswersAsDocumented(t *testing.T) {
	t.Parallel()
	js, err := script.Build()
	if err != nil {
		t.Fatal(err)
	}
	openapi, err := apidoc.Handler()
	if err != nil {
		t.Fatal(err)
	}
	demo, err := script.DemoPage(script.DemoProduct{BrandID: "br_open", ProductID: "p1", Title: "Shoe", Currency: "EUR", Price: 10}, "<script></script>")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, httpapi.Options{Script: js, Demo: demo, Metrics: metrics.New(), OpenAPI: openapi})
	for _, path := range []string{"/", "/svc.js", "/demo", "/metrics", "/healthz", "/readyz", "/openapi.json", "/.well-known/svc-keys.json", "/nope"} {
		f.do("GET", path, nil)
	}
	f.do("GET", "/svc.js", nil, "Accept-Encoding", "gzip")
	f.do("DELETE", "/healthz", nil)
	f.do("GET", "/api/collect/product-view", nil)
	for _, path := range []string{"/healthz", "/svc.js", "/openapi.json"} {
		if r := f.do("HEAD", path, nil); r.status != http.StatusOK || len(r.body) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes, want 200 without a body as documented", path, r.status, len(r.body))
		}
	}
	// CORS echoes the Origin; the script's own Vary must add to its
	// "Vary: Origin", or a cache could serve one origin's answer to another.
	if vary := f.do("GET", "/svc.js", nil, "Origin", "https://shop.example").header.Values("Vary"); !slices.Contains(vary, "Origin") || !slices.Contains(vary, "Accept-Encoding") {
		t.Errorf("/svc.js with an Origin: Vary %q, want Origin and Accept-Encoding", vary)
	}
	js1 := f.do("GET", "/svc.js", nil)
	if again := f.do("GET", "/svc.js", nil, "If-None-Match", js1.header.Get("ETag")); again.status != http.StatusNotModified {
		t.Fatalf("/svc.js with its ETag: %d, want 304", again.status)
	}
	r := f.do("GET", "/openapi.json", nil)
	doc := r.json(t)
	if r.status != 200 || doc["openapi"] != "3.1.0" || doc["paths"].(map[string]any)["/openapi.json"] == nil {
		t.Fatalf("/openapi.json: %d %.200s", r.status, r.body)
	}
	if again := f.do("GET", "/openapi.json", nil, "If-None-Match", r.header.Get("ETag")); again.status != http.StatusNotModified {
		t.Fatalf("/openapi.json with its ETag: %d, want 304", again.status)
	}
}

// TestRateLimitComesBeforeTheKeyCheck pins the order of checks that
// docs/openapi.yaml states: an address over the rate limit gets 429 even
// with a key that is not valid, so that guessing keys is limited too; a
// valid key is not limited.
func TestRateLimitComesBeforeTheKeyCheck(t *testing.T) {
	t.Parallel()
	// One request per address, then none for the length of the test.
	f := newFixture(t, httpapi.Options{RateLimit: httpapi.RateLimit{PerSecond: 1e-6, Burst: 1}})
	if r := f.do("POST", viewPath, view("br_open", "p1", nil), "X-svc-Api-Key", "sk_not_a_key"); r.status != http.StatusUnauthorized {
		t.Fatalf("a bad key under the limit: %d, want 401", r.status)
	}
	for _, key := range []string{"sk_not_a_key", f.revoked, ""} {
		if r := f.do("POST", viewPath, view("br_open", "p1", nil), "X-svc-Api-Key", key); r.status != http.StatusTooManyRequests {
			t.Errorf("key %.10q over the limit: %d, want 429", key, r.status)
		}
	}
	if r := f.do("POST", viewPath, view("br_open", "p1", nil), "X-svc-Api-Key", f.keys["br_open"]); r.status != http.StatusOK {
		t.Fatalf("a valid key over the address's limit: %d %s, want 200", r.status, r.body)
	}
}
