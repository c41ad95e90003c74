package httpapi_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/apidoc"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/script"
)

// TestOpenAPIDocumentsEveryRoute fails when a route is missing from
// docs/openapi.yaml, or the document describes one the server lacks.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc, err := apidoc.Load()
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
	opts := httpapi.Options{Script: js, Demo: http.NotFoundHandler(), Metrics: metrics.New(), OpenAPI: openapi}
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
	for _, path := range []string{"/svc.js", "/demo", "/metrics", "/healthz", "/readyz", "/openapi.json", "/nope"} {
		f.do("GET", path, nil)
	}
	f.do("GET", "/svc.js", nil, "Accept-Encoding", "gzip")
	f.do("DELETE", "/healthz", nil)
	r := f.do("GET", "/openapi.json", nil)
	doc := r.json(t)
	if r.status != 200 || doc["openapi"] != "3.1.0" || doc["paths"].(map[string]any)["/openapi.json"] == nil {
		t.Fatalf("/openapi.json: %d %.200s", r.status, r.body)
	}
	if again := f.do("GET", "/openapi.json", nil, "If-None-Match", r.header.Get("ETag")); again.status != http.StatusNotModified {
		t.Fatalf("/openapi.json with its ETag: %d, want 304", again.status)
	}
}
