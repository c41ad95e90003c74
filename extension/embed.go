// Package extension holds the shopper's browser extension (Manifest V3,
// plain JavaScript, no build step) and packs it for a store upload: the
// files are embedded, so the svc binary packs without the source tree.
package extension

import (
	"archive/zip"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"
)

// files are what the extension is made of: what a store upload holds.
//
//go:embed manifest.json *.js options.html PRIVACY.md icons/*.png
var files embed.FS

// Files is the extension's files, as the repository holds them.
func Files() fs.FS { return files }

var defaultBase = regexp.MustCompile(`(?m)^export const DEFAULT_BASE_URL = '[^']*';$`)

// Pack writes the extension as a zip. A non-empty baseURL (an absolute
// http or https URL) becomes the svc the extension talks to by default, and
// the one host it may reach without asking.
func Pack(w io.Writer, baseURL string) error {
	var origin string
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return fmt.Errorf("base URL %q: want an absolute http or https URL without query or user", baseURL)
		}
		baseURL = strings.TrimRight(u.String(), "/")
		origin = u.Scheme + "://" + u.Hostname() + "/*"
	}
	var names []string
	err := fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, path)
		}
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	zw := zip.NewWriter(w)
	for _, name := range names {
		b, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		if baseURL != "" {
			switch name {
			case "settings.js":
				if !defaultBase.Match(b) {
					return fmt.Errorf("settings.js has no DEFAULT_BASE_URL line")
				}
				b = defaultBase.ReplaceAllLiteral(b, []byte("export const DEFAULT_BASE_URL = '"+strings.ReplaceAll(baseURL, "'", "%27")+"';"))
			case "manifest.json":
				if b, err = withHostPermission(b, origin); err != nil {
					return err
				}
			}
		}
		// A fixed time: the same files make the same zip.
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			return err
		}
	}
	return zw.Close()
}

// withHostPermission sets the manifest's one host permission, keeping the
// order and layout of everything else.
func withHostPermission(manifest []byte, origin string) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(manifest, &m); err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	re := regexp.MustCompile(`"host_permissions": \[[^\]]*\]`)
	if !re.Match(manifest) {
		return nil, fmt.Errorf("manifest.json has no host_permissions line")
	}
	quoted, _ := json.Marshal([]string{origin})
	out := re.ReplaceAllLiteral(manifest, append([]byte(`"host_permissions": `), bytes.ReplaceAll(quoted, []byte(","), []byte(", "))...))
	return out, json.Unmarshal(out, &m)
}
