package svc_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// layers ranks the module's packages: a package may import only packages of
// a lower layer, so the graph has no upward import and no cycle by design.
// The domain is at the bottom, the stores and pure parts above it, the core
// above them, then the HTTP interface, and the command that wires them on
// top. A new package must be given its layer here.
var layers = map[string]int{
	"":                         0, // the domain: types, errors, the rules of a write
	"docs":                     0,
	"extension":                0,
	"internal/bots":            0,
	"internal/lift":            0,
	"internal/httpsig":         0,
	"internal/metrics":         0,
	"internal/poll":            0,
	"internal/script":          0,
	"internal/testwait":        0,
	"internal/testdisk":        0,
	"internal/urlcanon":        0,
	"internal/match/matchtest": 0,
	"internal/postgres/pgtest": 0,

	"internal/match/matcheval": 2,
	"internal/match/train":     6,
	"internal/apidoc":          1,
	"internal/chrometest":      1, // browser tests' Chromium, over testwait
	"internal/connect":         2, // reads history files with internal/strictjson
	"internal/strictjson":      1,
	"internal/match":           1,
	"internal/postgres":        1,
	"internal/prices":          1,
	"internal/products":        1,
	"internal/recent":          1,
	"internal/sqlite":          1,
	"internal/storetest":       1,
	"internal/window":          1,

	"internal/auth":     2,
	"internal/signing":  2,
	"internal/snapshot": 2,
	"internal/insights": 2,

	"internal/tracker":   3,
	"internal/enrich":    4,
	"internal/dashboard": 4,
	"internal/httpapi":   5,

	"cmd/svc":                       6,
	"bench/loadgen":                 6,
	"bench/seed":                    6,
	"bench/experiments/rebuildprof": 6,
	"bench/experiments/traceslow":   6,
}

func TestNoUpwardImport(t *testing.T) {
	const module = "github.com/svc-project/svc"
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rel := func(path string) string { return strings.TrimPrefix(strings.TrimPrefix(path, module), "/") }
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		from := rel(p.ImportPath)
		layer, ok := layers[from]
		if !ok {
			t.Errorf("package %q has no layer in layers_test.go", from)
			continue
		}
		for _, imp := range p.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			if to := rel(imp); layers[to] >= layer {
				t.Errorf("%q (layer %d) imports %q (layer %d): only lower layers may be imported", from, layer, to, layers[to])
			}
		}
	}
}
