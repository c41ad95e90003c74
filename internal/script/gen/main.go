// Command gen minifies internal/script's svc.js, svc-corner.js and
// svc-shop.js with esbuild into svc.min.js, svc-corner.min.js and
// svc-shop.min.js, the files the package
// embeds and serves. It runs at go generate, not at every start, so that
// the served binary holds neither esbuild nor the work:
//
//	go generate ./...
//
// A test of this package fails when the committed files differ from what
// it makes of the sources.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// files are the sources and the minified files made of them.
var files = []struct{ src, out string }{
	{"svc.js", "svc.min.js"},
	{"svc-corner.js", "svc-corner.min.js"},
	{"svc-shop.js", "svc-shop.min.js"},
}

func main() {
	src := flag.String("src", ".", "the folder of svc.js, svc-corner.js and svc-shop.js")
	out := flag.String("out", ".", "the folder to write the minified files to")
	flag.Parse()
	if err := generate(*src, *out); err != nil {
		fmt.Fprintln(os.Stderr, "internal/script/gen:", err)
		os.Exit(1)
	}
}

// generate minifies each source of files in src into out.
func generate(src, out string) error {
	for _, f := range files {
		code, err := os.ReadFile(filepath.Join(src, f.src))
		if err != nil {
			return err
		}
		minified, err := minify(f.src, code)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, f.out), minified, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// minify is what the server did at start before: ES2019, every
// minification, no legal comments.
func minify(name string, code []byte) ([]byte, error) {
	res := api.Transform(string(code), api.TransformOptions{
		Loader:            api.LoaderJS,
		Target:            api.ES2019,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		LegalComments:     api.LegalCommentsNone,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return nil, errors.New(name + ": " + strings.Join(msgs, "\n"))
	}
	return res.Code, nil
}
