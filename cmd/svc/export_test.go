package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// docs/operations.md's table names exactly the types of export lines, and
// an export of a brand with a view, a purchase and a cart has each of them.
func TestExportTypesAreTheDocumentedOnes(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `type` \\| (.*) \\|$").FindSubmatch(doc)
	if row == nil {
		t.Fatal("docs/operations.md has no row for the export's type")
	}
	var documented []string
	for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllSubmatch(row[1], -1) {
		documented = append(documented, string(m[1]))
	}
	if !sameSet(documented, exportTypes) {
		t.Errorf("docs/operations.md names the types %q; export writes %q", documented, exportTypes)
	}

	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	b := addBrand(t, dir)
	cart := map[string]any{"brand_id": b.BrandID, "product": map[string]any{"product_id": "p1"}, "quantity": 2}
	testwait.Eventually(t, func() error {
		return postStatus(s.url+"/api/collect/product-view", b.APIKey, viewBody(b.BrandID, "p1"), 200)
	})
	for path, body := range map[string]any{"product-purchase": purchaseBody(b.BrandID, "o1", "p1"), "product-cart": cart} {
		if err := postStatus(s.url+"/api/collect/"+path, b.APIKey, body, 200); err != nil {
			t.Fatal(err)
		}
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(runCmd(t, "export", "--data", dir, "--brand", b.BrandID)), "\n") {
		var l struct{ Type string }
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		types = append(types, l.Type)
	}
	if !sameSet(types, exportTypes) {
		t.Errorf("the export's lines are of the types %q, want each of %q", types, exportTypes)
	}
}

// sameSet reports whether a and b hold the same strings, each once.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
