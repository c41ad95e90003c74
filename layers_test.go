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
// top. A new package must be given its layer here, and a line in the
// Layout section of README.md (layout_test.go).
var layers = map[string]int{
	"":                         0, // the domain: types, errors, the rules of a write
	"docs":                     0,
	"extension":                0,
	"internal/bots":            0,
	"internal/holdout":         0, // the holdout experiment: arms, statistics, figures
	"internal/mail":            0, // the dashboard's SMTP sender
	"internal/mail/mailtest":   0, // tests' SMTP server
	"internal/rollup":          0, // what an event adds to the dashboard's rollups, for both stores
	"internal/httpsig":         0,
	"internal/metrics":         0,
	"internal/poll":            0,
	"internal/plurals":         0,
	"internal/script":          0,
	"internal/testwait":        0,
	"internal/testdisk":        0,
	"internal/keyedrate":       0,
	"internal/urlcanon":        0,
	"internal/viewblock":       0, // the embedded store's blocks of views
	"internal/hashtable":       0,
	"internal/binenc":          0,
	"internal/match/matchtest": 0,
	"internal/postgres/pgtest": 0,

	"internal/match/matcheval": 2,
	"internal/match/train":     6,
	"internal/apidoc":          1,
	"internal/apidoc/spec":     1, // for the generator and tests, not the served binary
	"internal/chrometest":      1, // browser tests' Chromium, over testwait
	"internal/shops":           3, // reads history files with internal/strictjson and internal/wire
	"internal/strictjson":      1,
	"internal/wire":            2, // the JSON shapes of clients' bodies, over internal/strictjson
	"internal/match":           1,
	"internal/postgres":        2, // over internal/sqlstore
	"internal/prices":          1,
	"internal/products":        1,
	"internal/purchasefeed":    1, // the recent purchases, which the core feeds
	"internal/sqlite":          2, // over internal/sqlstore
	"internal/sqlstore":        1, // the SQL both stores share
	"internal/storetest":       1,
	"internal/window":          1,

	"internal/auth":     2,
	"internal/carts":    2, // add-to-carts, over internal/window
	"internal/signing":  2,
	"internal/snapshot": 2,
	"internal/insights": 2,

	"internal/sqlite/sqlitetest": 3, // tests' migrated stores, over internal/sqlite

	"internal/tracker":   3,
	"internal/collect":   4, // every event's checks, over the core
	"internal/enrich":    4, // owns what enrichment reads, which the core feeds through tracker.Catalog
	"internal/dashboard": 4,
	"internal/httpapi":   5,

	"cmd/svc":             6,
	"internal/apidoc/gen": 6, // go generate's programs
	"internal/script/gen": 6,
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

// TestServedBinaryHoldsNoBuildTools: esbuild and kin-openapi make the
// embedded files at go generate (internal/script/gen, internal/apidoc/gen)
// and check answers in tests; the binary that serves needs neither.
func TestServedBinaryHoldsNoBuildTools(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./cmd/svc").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, tool := range []string{"github.com/evanw/esbuild", "github.com/getkin/kin-openapi", "github.com/svc-project/svc/internal/apidoc/spec"} {
			if dep == tool || strings.HasPrefix(dep, tool+"/") {
				t.Errorf("cmd/svc depends on %s", dep)
			}
		}
	}
}
