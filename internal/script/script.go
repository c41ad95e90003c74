// Package script holds the client script of svc, svc.js, its embed code,
// the handler that serves it, and the demo product page.
package script

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/evanw/esbuild/pkg/api"
)

//go:embed svc.js
var source string

// Script is svc.js, minified by esbuild once at start, with its gzip form
// and their ETags.
type Script struct {
	min, gz         []byte
	etag, gzETag    string
	built           time.Time
	MinSize, GzSize int
}

// Build minifies and compresses svc.js.
func Build() (*Script, error) {
	res := api.Transform(source, api.TransformOptions{
		Loader:            api.LoaderJS,
		Target:            api.ES2019,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		LegalComments:     api.LegalCommentsNone,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return nil, errors.New("svc.js: " + strings.Join(msgs, "\n"))
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression) // the level is valid
	if _, err := zw.Write(res.Code); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(res.Code)
	tag := hex.EncodeToString(sum[:8])
	return &Script{
		min: res.Code, gz: gz.Bytes(),
		etag: `"` + tag + `"`, gzETag: `"` + tag + `-gz"`,
		built:   time.Now(),
		MinSize: len(res.Code), GzSize: gz.Len(),
	}, nil
}

// ServeHTTP serves the script, gzipped when the client takes it, with an
// ETag per representation. Brands embed a fixed URL, so the cache life is
// short and revalidation cheap: a 304 when nothing changed.
func (s *Script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600, stale-while-revalidate=86400")
	// Added to, not set: CORS in front of this handler echoes the Origin
	// and has already said Vary: Origin, which a cache must keep.
	h.Add("Vary", "Accept-Encoding")
	// Pages isolated with COEP may load it from another origin.
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	body, tag := s.min, s.etag
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		body, tag = s.gz, s.gzETag
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", tag)
	// ServeContent answers If-None-Match, HEAD and ranges.
	http.ServeContent(w, r, "", s.built, bytes.NewReader(body))
}

// acceptsGzip reads an Accept-Encoding header: gzip (or *) without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if coding != "gzip" && coding != "*" {
			continue
		}
		q := 1.0
		if v, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q="); ok {
			q, _ = strconv.ParseFloat(v, 64)
		}
		return q > 0
	}
	return false
}
