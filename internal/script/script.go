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
)

// The minified script and corner code are made by esbuild from svc.js and
// svc-corner.js at go generate (./gen), not at every start: the served
// binary holds neither esbuild nor the work. A test of ./gen fails when
// they are stale.
//
//go:generate go run ./gen

//go:embed svc.min.js
var minified []byte

// cornerMinified is the widget's code: its sentences and drawing, the
// corner badge's controls and the toasts, which svc.js loads only on pages
// that show a widget, beside the proof request.
//
//go:embed svc-corner.min.js
var cornerMinified []byte

// shopMinified ties a shop platform's orders to the shopper's session,
// which svc.js loads on Shopify once per session and on WooCommerce's
// order-received page.
//
//go:embed svc-shop.min.js
var shopMinified []byte

// Script serves svc.js and, at /svc-corner.js, the code it loads to draw
// the widget, at /svc-shop.js the code it loads on shop
// platforms: each minified at go generate, gzipped once at start, with
// their ETags.
type Script struct {
	main, corner, shop asset
	built              time.Time
	// The sizes of svc.js, and of svc-corner.js.
	MinSize, GzSize             int
	CornerMinSize, CornerGzSize int
}

type asset struct {
	min, gz      []byte
	etag, gzETag string
}

// Build compresses the minified svc.js, svc-corner.js and svc-shop.js.
func Build() (*Script, error) {
	main, err := build("svc.min.js", minified)
	if err != nil {
		return nil, err
	}
	corner, err := build("svc-corner.min.js", cornerMinified)
	if err != nil {
		return nil, err
	}
	shop, err := build("svc-shop.min.js", shopMinified)
	if err != nil {
		return nil, err
	}
	return &Script{
		main: main, corner: corner, shop: shop, built: time.Now(),
		MinSize: len(main.min), GzSize: len(main.gz),
		CornerMinSize: len(corner.min), CornerGzSize: len(corner.gz),
	}, nil
}

func build(name string, code []byte) (asset, error) {
	if len(code) == 0 { // a checkout without the generated file
		return asset{}, errors.New("internal/script: " + name + " is empty; go generate ./... makes it")
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression) // the level is valid
	if _, err := zw.Write(code); err != nil {
		return asset{}, err
	}
	if err := zw.Close(); err != nil {
		return asset{}, err
	}
	sum := sha256.Sum256(code)
	tag := hex.EncodeToString(sum[:8])
	return asset{min: code, gz: gz.Bytes(), etag: `"` + tag + `"`, gzETag: `"` + tag + `-gz"`}, nil
}

// ServeHTTP serves the script, gzipped when the client takes it, with an
// ETag per representation: svc-corner.js or svc-shop.js for a path ending
// so, else svc.js.
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
	switch {
	case strings.HasSuffix(r.URL.Path, "/svc-corner.js"):
		a = &s.corner
	case strings.HasSuffix(r.URL.Path, "/svc-shop.js"):
		a = &s.shop
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
