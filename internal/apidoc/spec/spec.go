// Package spec loads docs/openapi.yaml with kin-openapi and checks it: for
// the generator of the JSON served at /openapi.json (../gen) and for the
// tests that check answers and routes against the document. The served
// binary does not import it, nor kin-openapi.
package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/svc-project/svc/docs"
)

// Load parses and validates the embedded document; its examples are checked
// only when opts say so (openapi3.EnableExamplesValidation), which is slow.
// Each call returns a new copy, which the caller may change.
func Load(opts ...openapi3.ValidationOption) (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(docs.OpenAPIYAML)
	if err != nil {
		return nil, fmt.Errorf("apidoc: load docs/openapi.yaml: %w", err)
	}
	opts = append([]openapi3.ValidationOption{openapi3.DisableExamplesValidation()}, opts...)
	if err := doc.Validate(context.Background(), opts...); err != nil {
		return nil, fmt.Errorf("apidoc: docs/openapi.yaml is not valid: %w", err)
	}
	return doc, nil
}

// JSON is the document as served at /openapi.json: indented, since people
// read it too, and ending in a newline.
func JSON() ([]byte, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	raw, err := doc.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	var body bytes.Buffer
	if err := json.Indent(&body, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	body.WriteByte('\n')
	return body.Bytes(), nil
}
