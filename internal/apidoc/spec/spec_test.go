package spec

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestExamplesMatchTheirSchemas checks what Load leaves out by default.
func TestExamplesMatchTheirSchemas(t *testing.T) {
	if _, err := Load(openapi3.EnableExamplesValidation()); err != nil {
		t.Fatal(err)
	}
}

// TestExamplesAreChecked makes sure the check above can fail.
func TestExamplesAreChecked(t *testing.T) {
	doc, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	doc.Components.Schemas["Health"].Value.Example = map[string]any{"status": "dead"}
	err = doc.Validate(t.Context(), openapi3.EnableExamplesValidation())
	if err == nil || !strings.Contains(err.Error(), "dead") {
		t.Fatalf("an example outside its enum passed: %v", err)
	}
}
