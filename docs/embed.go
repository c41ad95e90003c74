// Package docs holds the documentation that ships inside the binary: the
// OpenAPI document, served at /openapi.json by internal/apidoc.
package docs

import _ "embed"

// OpenAPIYAML is docs/openapi.yaml, the contract of the HTTP API.
//
//go:embed openapi.yaml
var OpenAPIYAML []byte
