package match

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// The text features work on titles alone: no features_*.go file names the
// index or its entries, so that what a title says can be read, tested and
// changed without the storage engine (doc.go).
func TestLayers(t *testing.T) {
	files, err := filepath.Glob("features_*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no features files: %v", err)
	}
	engine := map[string]bool{"Index": true, "entry": true, "str": true, "arena": true, "postings": true, "scorer": true}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var check func(n ast.Node) bool
		check = func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				ast.Inspect(sel.X, check) // strings.Index is not the index
				return false
			}
			if id, ok := n.(*ast.Ident); ok && engine[id.Name] {
				t.Errorf("%s names the engine's %s", fset.Position(id.Pos()), id.Name)
			}
			return true
		}
		ast.Inspect(f, check)
	}
}
