// Command gen writes internal/apidoc/openapi.json, the JSON form of
// docs/openapi.yaml that /openapi.json serves, after kin-openapi has loaded
// and validated the document (internal/apidoc/spec). It runs at go
// generate, not at every start, so that the served binary holds neither
// kin-openapi nor the work:
//
//	go generate ./...
//
// A test of this package fails when the committed file differs from what it
// makes of the document.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/svc-project/svc/internal/apidoc/spec"
)

// file is the generated file's name, in internal/apidoc.
const file = "openapi.json"

func main() {
	out := flag.String("out", ".", "the folder to write "+file+" to")
	flag.Parse()
	if err := generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "internal/apidoc/gen:", err)
		os.Exit(1)
	}
}

func generate(out string) error {
	body, err := spec.JSON()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, file), body, 0o644)
}
