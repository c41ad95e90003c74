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

// cornerSource is the code of the corner badge's controls and of the
// toasts, which svc.js loads only on pages that show one: most pages never
// need its bytes.
//
//go:embed svc-corner.js
var cornerSource string

// Script serves svc.js and, at /svc-corner.js, the code it loads for the
// widgets in a corner: each minified by esbuild once at start, with its
// gzip form and their ETags.
type Script struct {
	main, corner asset
	built        time.Time
	// The sizes of svc.js, and of svc-corner.js.
	MinSize, GzSize             int
	CornerMinSize, CornerGzSize int
}

type asset struct {
	min, gz      []byte
	etag, gzETag string
}

// Build minifies and compresses svc.js and svc-corner.js.
func Build() (*Script, error) {
	main, err := build("svc.js", source)
	if err != nil {
		return nil, err
	}
	corner, err := build("svc-corner.js", cornerSource)
	if err != nil {
		return nil, err
	}
	return &Script{
		main: main, corner: corner, built: time.Now(),
		MinSize: len(main.min), GzSize: len(main.gz),
		CornerMinSize: len(corner.min), CornerGzSize: len(corner.gz),
	}, nil
}

func build(name, src string) (asset, error) {
	res := api.Transform(src, api.TransformOptions{
		Loader:            api.LoaderJS,
		Target:            api.ES2019,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		LegalComments:     api.LegalCommentsNone,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return asset{}, errors.New(name + ": " + strings.Join(msgs, "\n"))
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression) // the level is valid
	if _, err := zw.Write(res.Code); err != nil {
		return asset{}, err
	}
	if err := zw.Close(); err != nil {
		return asset{}, err
	}
	sum := sha256.Sum256(res.Code)
	tag := hex.EncodeToString(sum[:8])
	return asset{min: res.Code, gz: gz.Bytes(), etag: `"` + tag + `"`, gzETag: `"` + tag + `-gz"`}, nil
}

// ServeHTTP serves the script, gzipped when the client takes it, with an
// ETag per representation: svc-corner.js for a path ending so, else svc.js.
// Brands embed a fixed URL, so the cache life is short and revalidation
// cheap: a 304 when nothing changed.
func (s *Script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600, stale-while-revalidate=86400")
	// Added to, not set: CORS in front of this handler echoes the Origin
	// and has already said Vary: Origin, which a cache must keep.
	h.Add("Vary", "Accept-Encoding")
	// Pages isolated with COEP may load it from another origin.
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	a := &s.main
	if strings.HasSuffix(r.URL.Path, "/svc-corner.js") {
		a = &s.corner
	}
	body, tag := a.min, a.etag
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		body, tag = a.gz, a.gzETag
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
