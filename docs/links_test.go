package docs_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Every reference to a section of a Markdown file, anywhere in the
// repository, must name a section that exists: links with an anchor
// (docs/spec.md#events, the problem types' .../docs/errors.md#invalid) by
// GitHub's slug of a heading, and the references in prose and comments
// ("docs/spec.md, Product view") by the start of a heading's text.

// slug is GitHub's anchor of a heading: its text in lower case, without
// what is neither a letter, a mark, a digit, a connector (such as _), a
// space nor a hyphen, spaces turned to hyphens. Repeats of a heading get
// -1, -2... (anchors).
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Pc):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// A link's target drops out of the heading's text, as GitHub renders it.
var inlineLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// headings are the texts of a Markdown file's headings, outside fenced code.
func headings(md []byte) []string {
	var out []string
	fence := ""
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if f := fenceOf(trimmed); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "":
				fence = ""
			}
			continue
		}
		if fence != "" || len(line)-len(trimmed) > 3 {
			continue
		}
		level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
		if level < 1 || level > 6 || (len(trimmed) > level && trimmed[level] != ' ') {
			continue
		}
		text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(trimmed[level:]), "#"))
		out = append(out, inlineLink.ReplaceAllString(text, "$1"))
	}
	return out
}

func fenceOf(line string) string {
	for _, c := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, c) {
			return line[:len(line)-len(strings.TrimLeft(line, c[:1]))]
		}
	}
	return ""
}

// anchors are the anchors of a Markdown file's headings.
func anchors(md []byte) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, h := range headings(md) {
		s := slug(h)
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

var (
	// FILE.md#ANCHOR, in a Markdown link, a URL or plain text.
	anchorRef = regexp.MustCompile(`([A-Za-z0-9_./:-]*\.md)#([^\s)"'\x60\]>*,;.]+)`)
	// [text](#ANCHOR) within a Markdown file.
	localRef = regexp.MustCompile(`\]\(#([^)\s]+)\)`)
	// FILE.md, Section or FILE.md (Section: the section's name starts with
	// a capital and ends at the first bracket, colon, semicolon, comma or
	// quote. A comment's marker may stand between them, where the
	// reference wraps.
	proseRef = regexp.MustCompile(`([A-Za-z0-9_./-]*\.md)(?:,\s+(?:(?://|#|\*)\s+)?|\s+\()["“]?([A-Z][^()\[\]:;,"”\n]*)`)
)

// brokenRefs returns every reference, in the text files below root, to a
// section that no Markdown file of the tree has, and how many references
// it checked.
func brokenRefs(root string) (broken []string, checked int, err error) {
	texts := map[string][]byte{} // by path from root, with slashes
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// Fixtures and installed packages are not ours to link.
			if p != root && (strings.HasPrefix(name, ".") && name != ".ci" || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		switch path.Ext(name) {
		// Not JSON: openapi.json is made from openapi.yaml, the rest is data.
		case ".md", ".go", ".js", ".yaml", ".yml", ".sh", ".sql", ".html", ".css", ".lua", ".ts", ".txt":
		default:
			if name != "run" && name != "Dockerfile" {
				return nil
			}
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel = filepath.ToSlash(rel); rel != self { // its comments show the patterns
			texts[rel] = b
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	docs := map[string]struct {
		anchors  map[string]bool
		headings []string
	}{}
	for p, b := range texts {
		if path.Ext(p) == ".md" {
			docs[p] = struct {
				anchors  map[string]bool
				headings []string
			}{anchors(b), headings(b)}
		}
	}
	// resolve finds the Markdown file a reference in from names.
	resolve := func(from, ref string) (string, bool) {
		if _, after, ok := strings.Cut(ref, "/blob/main/"); ok {
			ref = after
		}
		for _, p := range []string{
			path.Join(path.Dir(from), ref),
			path.Clean(ref),
			strings.TrimLeft(strings.TrimPrefix(ref, "..."), "/"),
		} {
			if _, ok := docs[p]; ok {
				return p, true
			}
		}
		// A name alone ("spec.md, Events") may be any folder's file.
		if !strings.Contains(ref, "/") {
			for p := range docs {
				if path.Base(p) == ref {
					return p, true
				}
			}
		}
		return "", false
	}
	files := make([]string, 0, len(texts))
	for p := range texts {
		files = append(files, p)
	}
	slices.Sort(files)
	for _, from := range files {
		// Line by line, and only the lines that could hold a reference:
		// the whole tree through the regular expressions is slow under -race.
		// A line is read with the next, where a reference may wrap.
		lines := strings.Split(string(texts[from]), "\n")
		for n, text := range lines {
			md, local := strings.Contains(text, ".md"), path.Ext(from) == ".md" && strings.Contains(text, "](#")
			if !md && !local {
				continue
			}
			at := fmt.Sprintf("%s:%d", from, n+1)
			chunk := text
			if n+1 < len(lines) {
				chunk += "\n" + lines[n+1]
			}
			// matches are those that start on this line.
			matches := func(re *regexp.Regexp) [][]string {
				var out [][]string
				for _, m := range re.FindAllStringSubmatchIndex(chunk, -1) {
					if m[0] < len(text) {
						out = append(out, []string{chunk[m[2]:m[3]], chunk[m[4]:m[5]]})
					}
				}
				return out
			}
			for _, m := range matches(anchorRef) {
				ref, anchor := m[0], m[1]
				if strings.HasPrefix(ref, "http") && !strings.Contains(ref, "svc-project/svc/") {
					continue // another site's page
				}
				checked++
				p, ok := resolve(from, ref)
				switch {
				case !ok:
					broken = append(broken, fmt.Sprintf("%s: %s#%s: no such file", at, ref, anchor))
				case !docs[p].anchors[anchor]:
					broken = append(broken, fmt.Sprintf("%s: %s has no section #%s", at, p, anchor))
				}
			}
			if local {
				for _, m := range localRef.FindAllStringSubmatch(text, -1) {
					checked++
					if !docs[from].anchors[m[1]] {
						broken = append(broken, fmt.Sprintf("%s: no section #%s here", at, m[1]))
					}
				}
			}
			for _, m := range matches(proseRef) {
				ref, name := m[0], strings.TrimSpace(m[1])
				checked++
				p, ok := resolve(from, ref)
				if !ok {
					broken = append(broken, fmt.Sprintf("%s: %s, %s: no such file", at, ref, name))
					continue
				}
				if !slices.ContainsFunc(docs[p].headings, func(h string) bool {
					return strings.HasPrefix(strings.ToLower(strings.ReplaceAll(h, "`", "")), strings.ToLower(name))
				}) {
					broken = append(broken, fmt.Sprintf("%s: %s has no section %q", at, p, name))
				}
			}
		}
	}
	return broken, checked, nil
}

// self is this file, from the repository's root.
const self = "docs/links_test.go"

// TestDocReferencesResolve checks the whole repository.
func TestDocReferencesResolve(t *testing.T) {
	t.Parallel()
	broken, checked, err := brokenRefs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
	t.Logf("checked %d references", checked)
	if checked < 120 { // 141 when this was written
		t.Errorf("checked %d references: are the patterns still finding them?", checked)
	}
}

// TestBrokenRefsFindsBrokenOnes runs the check on a small tree of its own.
func TestBrokenRefsFindsBrokenOnes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/a.md", "# A\n\n## The `svc serve` command\n\n## Limits\n\n## Limits\n\n"+
		"```sh\n# not a heading\n```\n\nSee [limits](#limits-1), [gone](#gone) and [b](../README.md#b-and-c).\n")
	write("README.md", "# svc\n\n## B and C\n\n[x](docs/a.md#the-svc-serve-command) [y](docs/a.md#not-a-heading)\n")
	write("x.go", "// See docs/a.md, Limits, and (docs/a.md, The svc serve command);\n"+
		"// not docs/a.md (\"Position\", there) nor https://github.com/svc-project/svc/blob/main/docs/a.md#limits-2.\n"+
		"// Another site's is not ours: https://example.com/x.md#nope, nor missing.md#here.\n")
	broken, checked, err := brokenRefs(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:5: docs/a.md has no section #not-a-heading",
		"docs/a.md:13: no section #gone here",
		"x.go:2: docs/a.md has no section \"Position\"",
		"x.go:2: docs/a.md has no section #limits-2",
		"x.go:3: missing.md#here: no such file",
	}
	slices.Sort(broken)
	if !slices.Equal(broken, want) || checked != 10 {
		t.Errorf("checked %d, found:\n%s\nwant:\n%s", checked, strings.Join(broken, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for heading, want := range map[string]string{
		"Brand settings: corner and languages":                  "brand-settings-corner-and-languages",
		"The corner badge: closing, narrow screens, the offset": "the-corner-badge-closing-narrow-screens-the-offset",
		"not_found":                 "not_found",
		"`svc serve` options":       "svc-serve-options",
		"Größe & Maße":              "größe--maße",
		"Why does it show nothing?": "why-does-it-show-nothing",
		"Limits (v2.1)":             "limits-v21",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// TestEveryProblemTypeIsDocumented: each error code of error.go is the
// anchor of its problem type (internal/httpapi, ProblemTypeBase), so
// docs/errors.md must have a section of that name.
func TestEveryProblemTypeIsDocumented(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "../error.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile("errors.md")
	if err != nil {
		t.Fatal(err)
	}
	have := anchors(md)
	codes := 0
	ast.Inspect(f, func(n ast.Node) bool {
		v, ok := n.(*ast.ValueSpec)
		if !ok || len(v.Names) != 1 || len(v.Values) != 1 || !regexp.MustCompile(`^E[A-Z]+$`).MatchString(v.Names[0].Name) {
			return true
		}
		lit, ok := v.Values[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		code, _ := strconv.Unquote(lit.Value)
		codes++
		if !have[code] {
			t.Errorf("error code %s (%q) has no section in docs/errors.md", v.Names[0].Name, code)
		}
		return true
	})
	if codes < 9 {
		t.Fatalf("found %d error codes in error.go, want at least 9", codes)
	}
}
