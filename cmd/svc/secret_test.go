package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// From a pipe, each secret given as - is one line, read in the order of
// the platforms, and nothing is prompted.
func TestSecretsFromAPipe(t *testing.T) {
	t.Parallel()
	var prompt bytes.Buffer
	r := newSecretReader(strings.NewReader("first\r\nsecond\n"), &prompt)
	for _, want := range []string{"first", "second"} {
		if got, err := r.read("a secret"); err != nil || got != want {
			t.Errorf("read %q, %v; want %q", got, err, want)
		}
	}
	if got, err := r.read("a secret"); err == nil {
		t.Errorf("read past the end: %q", got)
	}
	if prompt.Len() > 0 {
		t.Errorf("a pipe was prompted: %q", prompt.String())
	}
	// A file is not a terminal either.
	f, err := os.CreateTemp(t.TempDir(), "secret")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("from-a-file\n")
	_, _ = f.Seek(0, io.SeekStart)
	if got, err := newSecretReader(f, &prompt).read("a secret"); err != nil || got != "from-a-file" || prompt.Len() > 0 {
		t.Errorf("from a file: %q, %v, prompt %q", got, err, prompt.String())
	}
}
