package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/httpapi"
)

// The front door: a browser gets a small page that names the service and
// its version and links to the demo, the dashboard and the docs; an API
// client gets the same as JSON, not a 404.
func TestRoot(t *testing.T) {
	t.Parallel()
	f := newFixture(t, httpapi.Options{Version: "v1.2.3", Demo: http.NotFoundHandler(), Dashboard: http.NotFoundHandler()})
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
	page := f.do("GET", "/", nil, "Accept", browser)
	if page.status != 200 || !strings.HasPrefix(page.header.Get("Content-Type"), "text/html") {
		t.Fatalf("/ for a browser: %d %s", page.status, page.header.Get("Content-Type"))
	}
	for _, want := range []string{"<title>svc</title>", "v1.2.3", `href="/demo"`, `href="/dashboard"`, `href="https://github.com/svc-project/svc#readme"`} {
		if !strings.Contains(string(page.body), want) {
			t.Errorf("the page lacks %s:\n%s", want, page.body)
		}
	}
	if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("the page's CSP %q", csp)
	}
	for _, accept := range []string{"", "*/*", "application/json", "application/json, text/html"} {
		r := f.do("GET", "/", nil, "Accept", accept)
		var got struct {
			Name, Version string
			Links         map[string]string
		}
		if r.status != 200 || r.header.Get("Content-Type") != "application/json" || json.Unmarshal(r.body, &got) != nil {
			t.Fatalf("/ with Accept %q: %d %s %s", accept, r.status, r.header.Get("Content-Type"), r.body)
		}
		if got.Name != "svc" || got.Version != "v1.2.3" || got.Links["demo"] != "/demo" || got.Links["dashboard"] != "/dashboard" || got.Links["docs"] == "" {
			t.Errorf("/ with Accept %q: %s", accept, r.body)
		}
		if !slices.Contains(r.header.Values("Vary"), "Accept") {
			t.Errorf("/ does not vary by Accept: %q", r.header.Values("Vary"))
		}
	}
	// Only the root: other unknown paths are still 404s.
	if r := f.do("GET", "/nope", nil, "Accept", browser); r.status != 404 {
		t.Errorf("/nope: %d", r.status)
	}
	if r := f.do("POST", "/", "{}"); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", r.status)
	}
	// Without --demo, no link to it.
	plain := newFixture(t)
	if r := plain.do("GET", "/", nil); strings.Contains(string(r.body), "demo") {
		t.Errorf("/ without a demo links to it: %s", r.body)
	}
}
