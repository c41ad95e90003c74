package httpapi_test

import (
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/metrics"
)

func TestMetrics(t *testing.T) {
	t.Parallel()
	f := newFixture(t, httpapi.Options{Metrics: metrics.New()})
	f.do("POST", viewPath, view("br_open", "p1", nil))
	f.do("POST", viewPath, view("br_open", "p1", nil), "User-Agent", "curl/8.5.0")
	f.do("POST", viewPath, `{}`)
	f.do("POST", purchasePath, purchase("br_open", "o1", "p1", 1))
	f.do("POST", purchasePath, purchase("br_open", "o1", "p1", 1))
	f.do("GET", "/api/svc/product-proof?brand_id=br_open&product_id=p1", nil)
	r := f.do("GET", "/metrics", nil)
	if r.status != 200 {
		t.Fatalf("/metrics: %d", r.status)
	}
	body := string(r.body)
	for _, want := range []string{
		`svc_http_requests_total{code="200",route="/api/collect/product-view"} 2`,
		`svc_http_requests_total{code="400",route="/api/collect/product-view"} 1`,
		`svc_http_requests_total{code="200",route="/api/svc/product-proof"} 1`,
		`svc_http_request_duration_seconds_count{route="/api/svc/product-proof"} 1`,
		`svc_events_total{kind="view",outcome="accepted"} 1`,
		`svc_events_total{kind="view",outcome="bot"} 1`,
		`svc_events_total{kind="view",outcome="rejected_invalid"} 1`,
		`svc_events_total{kind="purchase",outcome="accepted"} 1`,
		`svc_events_total{kind="purchase",outcome="duplicate"} 1`,
		`svc_store_batch_events_count 3`,
		`svc_store_commit_duration_seconds_count 3`,
		`svc_window_products `,
		`go_goroutines `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// An outside probe found that /metrics on the public listener reflected any
// Origin, so any web page could read it. It answers no CORS headers.
func TestMetricsAnswerNoCORS(t *testing.T) {
	t.Parallel()
	f := newFixture(t, httpapi.Options{Metrics: metrics.New()})
	for _, method := range []string{"GET", "OPTIONS"} {
		r := f.do(method, "/metrics", nil, "Origin", "https://evil.example", "Access-Control-Request-Method", "GET")
		for name := range r.header {
			if strings.HasPrefix(name, "Access-Control-") {
				t.Errorf("%s /metrics answers %s: %q", method, name, r.header.Get(name))
			}
		}
	}
	// The API keeps answering browsers.
	r := f.do("GET", "/api/svc/product-proof?brand_id=br_open&product_id=p1", nil, "Origin", "https://shop.example")
	if r.header.Get("Access-Control-Allow-Origin") == "" {
		t.Errorf("the API lost its CORS headers: %v", r.header)
	}
}
