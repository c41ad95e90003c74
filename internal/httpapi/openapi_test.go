package httpapi_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/script"
)

// TestOpenAPIDocumentsEveryRoute fails when a route is missing from
// docs/openapi.yaml, or the document describes one the server lacks.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("docs/openapi.yaml is not valid: %v", err)
	}
	f := newFixture(t)
	js, err := script.Build()
	if err != nil {
		t.Fatal(err)
	}
	opts := httpapi.Options{Script: js, Demo: http.NotFoundHandler(), Metrics: metrics.New()}
	routes := httpapi.New(f.tracker, slog.New(slog.DiscardHandler), opts).Routes()
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
