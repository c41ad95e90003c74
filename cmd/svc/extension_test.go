package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

func TestExtensionPack(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	out := filepath.Join(dir, "svc-extension.zip")
	if got := runCmd(t, "extension", "pack", "--out", out, "--base-url", "https://proof.example/"); got != "wrote "+out+"\n" {
		t.Errorf("output %q", got)
	}
	first, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(first), int64(len(first)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
	}
	for _, name := range []string{"manifest.json", "background.js", "content.js", "selectors.js", "verify.js", "options.html", "PRIVACY.md", "icons/128.png"} {
		if _, ok := files[name]; !ok {
			t.Errorf("the zip lacks %s", name)
		}
	}
	for name := range files {
		if strings.HasSuffix(name, ".go") || strings.HasPrefix(name, "testdata/") {
			t.Errorf("the zip holds %s", name)
		}
	}
	var manifest struct {
		Version         int      `json:"manifest_version"`
		HostPermissions []string `json:"host_permissions"`
	}
	if err := json.Unmarshal([]byte(files["manifest.json"]), &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest.Version != 3 || len(manifest.HostPermissions) != 1 || manifest.HostPermissions[0] != "https://proof.example/*" {
		t.Errorf("manifest %+v", manifest)
	}
	if !strings.Contains(files["settings.js"], "export const DEFAULT_BASE_URL = 'https://proof.example';") {
		t.Errorf("settings.js does not default to the base URL:\n%s", files["settings.js"])
	}
	// The same binary packs the same bytes.
	runCmd(t, "extension", "pack", "--out", out, "--base-url", "https://proof.example/")
	if again, _ := os.ReadFile(out); !bytes.Equal(again, first) {
		t.Error("packing twice made two zips")
	}
	var usage usageError
	if err := run(t.Context(), []string{"extension", "pack", "--out", out, "--base-url", "proof.example"}, noEnv, io.Discard, io.Discard); !errors.As(err, &usage) {
		t.Errorf("a bad base URL: %v", err)
	}
}
