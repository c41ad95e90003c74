// Package docs embeds the OpenAPI document for the code that reads it:
// internal/apidoc/spec, which validates it for the tests and converts it at
// go generate into the JSON that internal/apidoc serves. The served binary
// does not import this package.
package docs

import _ "embed"

// OpenAPIYAML is docs/openapi.yaml, the contract of the HTTP API.
//
//go:embed openapi.yaml
var OpenAPIYAML []byte
