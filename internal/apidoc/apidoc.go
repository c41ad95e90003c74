// Package apidoc serves the OpenAPI document of the API, docs/openapi.yaml,
// as JSON at /openapi.json. It is converted once, at start, by kin-openapi,
// which also checks it: a document that does not load or validate stops the
// server rather than serving something wrong. Its examples are checked
// against their schemas by the tests, not at every start, where they took
// longer than all the rest.
package apidoc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/svc-project/svc/docs"
)

// Path is where the document is served.
const Path = "/openapi.json"

// Load parses and validates the embedded document, its examples aside.
// Each call returns a new copy, which the caller may change.
func Load() (*openapi3.T, error) {
	return load(openapi3.DisableExamplesValidation())
}

func load(opts ...openapi3.ValidationOption) (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(docs.OpenAPIYAML)
	if err != nil {
		return nil, fmt.Errorf("apidoc: load docs/openapi.yaml: %w", err)
	}
	if err := doc.Validate(context.Background(), opts...); err != nil {
		return nil, fmt.Errorf("apidoc: docs/openapi.yaml is not valid: %w", err)
	}
	return doc, nil
}

// Handler returns the handler of /openapi.json.
func Handler() (http.Handler, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	raw, err := doc.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	var body bytes.Buffer // indented: people read it too
	if err := json.Indent(&body, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	body.WriteByte('\n')
	sum := sha256.Sum256(body.Bytes())
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
	content := body.Bytes()
	start := time.Now()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("ETag", etag)
		http.ServeContent(w, r, "", start, bytes.NewReader(content))
	}), nil
}
