package svc_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeLayoutNamesEverything: the Layout section of README.md names
// every package of the module (layers_test.go's table, which the import
// test holds to go list), every non-test file of the root package and
// every package of bench/, each on a line of its own, under the heading of
// the layer layers_test.go gives it.
func TestReadmeLayoutNamesEverything(t *testing.T) {
	t.Parallel()
	named, err := readmeLayout("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for pkg, layer := range layers {
		if pkg == "" {
			continue // its files, below
		}
		switch got, ok := named[pkg+"/"]; {
		case !ok:
			t.Errorf("README.md, Layout: no line for %s/ (layer %d)", pkg, layer)
		case got != layer:
			t.Errorf("README.md, Layout: %s/ stands in layer %d, layers_test.go gives it %d", pkg, got, layer)
		}
	}
	roots, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range roots {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if got, ok := named[f]; !ok || got != 0 {
			t.Errorf("README.md, Layout: the root package's %s has no line in layer 0", f)
		}
	}
	// bench/ is a module of its own, beside the layers.
	benchDirs := map[string]bool{}
	err = filepath.WalkDir("bench", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p)) + "/"
		if benchDirs[dir] {
			return nil
		}
		benchDirs[dir] = true
		if got, ok := named[dir]; !ok || got != besideTheModule {
			t.Errorf("README.md, Layout: no line for %s beside the module", dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, layer := range named {
		if _, ok := layers[strings.TrimSuffix(name, "/")]; strings.HasSuffix(name, "/") && layer != besideTheModule && !ok {
			t.Errorf("README.md, Layout: %s is not a package of layers_test.go", name)
		}
	}
}

const besideTheModule = -1

var layerLine = regexp.MustCompile(`^layer (\d+)\b`)

// readmeLayout reads the first code block of README.md's Layout section:
// each name a line starts with (a folder/, or the root's files, each word
// until two spaces) and the layer whose heading line stands above it.
func readmeLayout(readme string) (map[string]int, error) {
	f, err := os.Open(readme)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	named := map[string]int{}
	section, block, layer := false, false, besideTheModule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = line == "## Layout"
		case !section:
		case strings.HasPrefix(line, "```"):
			if block {
				return named, nil
			}
			block = true
		case !block:
		case layerLine.MatchString(line):
			layer, _ = strconv.Atoi(layerLine.FindStringSubmatch(line)[1])
		case line == "beside the module":
			layer = besideTheModule
		default:
			names, _, _ := strings.Cut(line, "  ")
			for _, n := range strings.Fields(names) {
				named[n] = layer
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return named, nil
}

// sqlKeyword matches a string that holds SQL: the domain package keeps
// none (docs/decisions.md, One set of SQL for both stores); queries, table
// and column names and row destinations live in internal/sqlstore and the
// stores.
var sqlKeyword = regexp.MustCompile(`\b(SELECT|INSERT INTO|DELETE FROM|CREATE TABLE|CREATE INDEX|ALTER TABLE)\b|\bUPDATE\s+\w+\s+SET\b|\sWHERE\s|\bON CONFLICT\b`)

// TestRootHoldsNoSQL: no string literal of a non-test file of the root
// package holds an SQL keyword.
func TestRootHoldsNoSQL(t *testing.T) {
	t.Parallel()
	roots, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range roots {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sqlStrings(t, f, src) {
			t.Errorf("%s holds SQL, which belongs in internal/sqlstore: %s", f, s)
		}
	}
}

// sqlStrings returns the string literals of a Go file that hold SQL.
func sqlStrings(t *testing.T, name string, src []byte) []string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(file, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil && sqlKeyword.MatchString(s) {
				out = append(out, lit.Value)
			}
		}
		return true
	})
	return out
}

// TestSQLStringsFindsSQL: the check above finds the statements it is
// there for, and passes over prose.
func TestSQLStringsFindsSQL(t *testing.T) {
	t.Parallel()
	src := "package p\n" +
		"var a = []string{\"UPDATE view_events SET product = $3 WHERE product = $5\", `SELECT id\n\tFROM brands`, \"DELETE FROM products\"}\n" +
		"const b = \"widget_font, min_carts\" + \"INSERT INTO x (a) VALUES (?)\"\n" +
		"var c = []string{\"Select a brand\", \"update the settings\", \"where the widget sits\", \"CREATE TABLE t (a int)\"}\n"
	if got := len(sqlStrings(t, "p.go", []byte(src))); got != 5 {
		t.Errorf("found %d strings with SQL in %q, want 5", got, src)
	}
}
