package apidoc

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHandlerServesTheDocument: the embedded JSON, with its ETag, which
// a revalidation answers with a 304.
func TestHandlerServesTheDocument(t *testing.T) {
	t.Parallel()
	h, err := Handler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	res, err := http.Get(srv.URL + Path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(body, content) || !bytes.HasPrefix(body, []byte("{\n  \"")) ||
		res.Header.Get("Content-Type") != "application/json" || res.Header.Get("ETag") == "" {
		t.Fatalf("%d %v, %d bytes of %d", res.StatusCode, res.Header, len(body), len(content))
	}
	req, _ := http.NewRequest("GET", srv.URL+Path, nil)
	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	again, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode != http.StatusNotModified {
		t.Fatalf("with its ETag: %d, want 304", again.StatusCode)
	}
}
