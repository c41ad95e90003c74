package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMinifiedFilesAreFresh makes the sources' minified forms anew and
// compares them, byte for byte, with the files internal/script embeds.
func TestMinifiedFilesAreFresh(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if err := generate("..", out); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		want, err := os.ReadFile(filepath.Join(out, f.out))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", f.out))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("internal/script/%s is stale: it is not esbuild's minified %s; run go generate ./... and commit the result", f.out, f.src)
		}
	}
}

// TestMinifyRefusesBrokenCode: a syntax error stops the generation with
// the file's name rather than writing something that does not run.
func TestMinifyRefusesBrokenCode(t *testing.T) {
	t.Parallel()
	if _, err := minify("svc.js", []byte("function (")); err == nil || !strings.HasPrefix(err.Error(), "svc.js: ") {
		t.Fatalf("err %v, want one naming svc.js", err)
	}
	got, err := minify("svc.js", []byte("function add(first, second) {\n  return first + second;\n}\nwindow.add = add;\n"))
	if err != nil || bytes.Contains(got, []byte("first")) || bytes.Count(got, []byte("\n")) > 1 {
		t.Fatalf("minified to %q (%v)", got, err)
	}
}
