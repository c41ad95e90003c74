package script

import (
	"compress/gzip"
	_ "embed"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The budgets of docs/client-script.md, Size: they fail the build when the script outgrows them.
const (
	maxScriptGzipBytes = 5120
	maxSnippetBytes    = 400
	// svc-corner.js, loaded only by pages that show a widget: all of its
	// drawing and sentences moved there from svc.js (docs/client-script.md, Size).
	maxCornerGzipBytes = 5376
)

// The sources of the minified files, for the check that they are minified.
var (
	//go:embed svc.js
	source string
	//go:embed svc-corner.js
	cornerSource string
)

func TestScriptBudget(t *testing.T) {
	s, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("svc.js: %d bytes of source, %d minified, %d gzipped", len(source), s.MinSize, s.GzSize)
	if s.GzSize > maxScriptGzipBytes {
		t.Errorf("svc.js is %d bytes gzipped, over the %d-byte budget", s.GzSize, maxScriptGzipBytes)
	}
	if s.MinSize >= len(source)*2/3 {
		t.Errorf("minified %d bytes from %d: not minified?", s.MinSize, len(source))
	}
	t.Logf("svc-corner.js: %d bytes of source, %d minified, %d gzipped", len(cornerSource), s.CornerMinSize, s.CornerGzSize)
	if s.CornerGzSize > maxCornerGzipBytes || s.CornerMinSize >= len(cornerSource)*2/3 {
		t.Errorf("svc-corner.js is %d bytes gzipped (budget %d), %d minified from %d", s.CornerGzSize, maxCornerGzipBytes, s.CornerMinSize, len(cornerSource))
	}
}

func TestServeScript(t *testing.T) {
	s, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	path := "/svc.js"
	get := func(headers ...string) *http.Response {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req) // no transparent gzip
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	plain := get()
	body, _ := io.ReadAll(plain.Body)
	if plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" || len(body) != s.MinSize ||
		!strings.HasPrefix(plain.Header.Get("Content-Type"), "text/javascript") || plain.Header.Get("ETag") == "" ||
		!strings.Contains(plain.Header.Get("Cache-Control"), "max-age=") || plain.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("plain: %d %v (%d bytes)", plain.StatusCode, plain.Header, len(body))
	}
	gz := get("Accept-Encoding", "br, gzip;q=0.8")
	zr, err := gzip.NewReader(gz.Body)
	if err != nil || gz.Header.Get("Content-Encoding") != "gzip" || gz.Header.Get("ETag") == plain.Header.Get("ETag") {
		t.Fatalf("gzip: %v %v (plain ETag %q)", gz.Header, err, plain.Header.Get("ETag"))
	}
	if unzipped, _ := io.ReadAll(zr); string(unzipped) != string(body) {
		t.Fatal("the gzip form differs from the plain one")
	}
	if res := get("If-None-Match", gz.Header.Get("ETag"), "Accept-Encoding", "gzip"); res.StatusCode != 304 {
		t.Fatalf("revalidation: %d", res.StatusCode)
	}
	if res := get("Accept-Encoding", "gzip;q=0"); res.Header.Get("Content-Encoding") != "" {
		t.Fatal("gzip sent to a client that refused it")
	}
	// The corner code is served beside it, like it.
	path = "/svc-corner.js"
	corner := get()
	cbody, _ := io.ReadAll(corner.Body)
	if corner.StatusCode != 200 || len(cbody) != s.CornerMinSize || corner.Header.Get("ETag") == plain.Header.Get("ETag") ||
		!strings.HasPrefix(corner.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("svc-corner.js: %d %v (%d bytes, want %d)", corner.StatusCode, corner.Header, len(cbody), s.CornerMinSize)
	}
	if res := get("If-None-Match", corner.Header.Get("ETag")); res.StatusCode != 304 {
		t.Fatalf("svc-corner.js revalidation: %d", res.StatusCode)
	}
}
