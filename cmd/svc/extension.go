package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/svc-project/svc/extension"
)

// extensionPack writes the browser extension as the zip a store upload
// takes, from the files embedded in this binary.
func extensionPack(ctx context.Context, env environment, args []string) error {
	fs := env.flagSet("extension pack")
	out := fs.String("out", "svc-extension.zip", "the zip to write")
	base := fs.String("base-url", env.env("SVC_PUBLIC_URL", ""), "the svc the extension talks to by default, and the one host it may reach (env SVC_PUBLIC_URL; default: the extension's own, http://127.0.0.1:8080)")
	if err := parse(fs, args); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".svc-extension-*.zip")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, removes nothing
	if err := extension.Pack(tmp, *base); err != nil {
		tmp.Close()
		return usageError{fmt.Sprintf("--base-url: %v", err)}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "wrote %s\n", *out)
	return nil
}
