package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenAPIJSONIsFresh makes the JSON anew from docs/openapi.yaml and
// compares it, byte for byte, with the file internal/apidoc embeds.
func TestOpenAPIJSONIsFresh(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if err := generate(out); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(out, file))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", file))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("internal/apidoc/%s is stale: it is not docs/openapi.yaml as JSON; run go generate ./... and commit the result", file)
	}
}
