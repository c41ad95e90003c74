package httpapi

import (
	"bufio"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestTargetURIAsParsed checks that the URL signatures cover, built from
// the request the server parsed, is the one parsing scheme://Host and the
// request URI again gives: what a client that sent that request verifies.
func TestTargetURIAsParsed(t *testing.T) {
	t.Parallel()
	s := &Server{}
	for _, target := range []string{
		"/api/svc/product-proof?brand_id=br_1&product_id=p1",
		"/api/svc/product-proof",
		"/api/svc/product-proof?",
		"/api/svc/product-proof?product_id=a%20b&x=%2F&y=%zz",
		"/api/svc/product%2Dproof?q=1",
		"/api/svc/a%2Fb/c?d=e?f",
		"/api/svc/%E2%82%AC;x=1?v=%E2%82%AC",
		"//api/svc/recent-activity?brand_id=b",
		"/api/svc/recent-activity?brand_id=b#frag",
	} {
		for _, host := range []string{"127.0.0.1:18190", "Example.COM", "[::1]:8080"} {
			raw := "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n"
			r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
			if err != nil {
				t.Fatalf("%s: %v", target, err)
			}
			got := s.targetURI(r)
			want, err := url.Parse("http://" + r.Host + r.URL.RequestURI())
			if err != nil {
				t.Fatalf("%s: %v", target, err)
			}
			if got.String() != want.String() || got.RawQuery != want.RawQuery || got.EscapedPath() != want.EscapedPath() || got.Host != want.Host {
				t.Errorf("%s on %s: %q (query %q), parsed again %q (query %q)", target, host, got, got.RawQuery, want, want.RawQuery)
			}
		}
	}
}
