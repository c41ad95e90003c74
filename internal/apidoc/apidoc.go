// Package apidoc serves the OpenAPI document of the API, docs/openapi.yaml,
// as JSON at /openapi.json. The JSON is made at go generate (./gen, with
// kin-openapi, which also checks the document) and embedded: the served
// binary converts nothing at start and holds no OpenAPI library. A test of
// ./gen fails when openapi.json is stale.
package apidoc

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

//go:generate go run ./gen

// Path is where the document is served.
const Path = "/openapi.json"

//go:embed openapi.json
var content []byte

// Handler returns the handler of /openapi.json.
func Handler() (http.Handler, error) {
	// A cheap check that stops the start rather than serving a broken
	// document: the generator writes valid JSON, a bad merge may not.
	if !json.Valid(content) {
		return nil, errors.New("apidoc: internal/apidoc/openapi.json is not JSON; go generate ./... makes it")
	}
	sum := sha256.Sum256(content)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
	start := time.Now()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("ETag", etag)
		http.ServeContent(w, r, "", start, bytes.NewReader(content))
	}), nil
}
