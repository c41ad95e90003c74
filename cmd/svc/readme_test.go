package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// readme returns README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// section returns the part of a Markdown text under a "## " heading.
func section(t *testing.T, text, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// step is a command of the README's walk-through and the output shown
// under it, in the comment lines that follow.
type step struct {
	command string
	output  []string
}

// walkThrough reads the steps of the ```sh blocks of a section: commands,
// which may span lines, each followed by its output as "# " lines.
func walkThrough(t *testing.T, text string) []step {
	t.Helper()
	var steps []step
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(text, -1) {
		var cmd string
		for _, line := range strings.Split(strings.TrimSuffix(block[1], "\n"), "\n") {
			if c, ok := strings.CutPrefix(line, "#"); ok && cmd == "" {
				if len(steps) == 0 {
					t.Fatalf("output %q before any command", line)
				}
				last := &steps[len(steps)-1]
				last.output = append(last.output, strings.TrimPrefix(c, " "))
				continue
			}
			cmd += line + "\n"
			if strings.HasSuffix(line, `\`) {
				continue
			}
			if _, err := shellWords(cmd, nil); err != nil {
				continue // a quote spans lines
			}
			steps = append(steps, step{command: strings.TrimSpace(cmd)})
			cmd = ""
		}
	}
	return steps
}

// shellWords splits a command as sh would: quotes, $NAME from vars, a
// backslash at the end of a line, comments.
func shellWords(s string, vars map[string]string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	expand := func(i int) int { // s[i] == '$'
		j := i + 1
		for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		word.WriteString(vars[s[i+1:j]])
		return j
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
		case c == '\\' && i+1 < len(s):
			word.WriteByte(s[i+1])
			inWord, i = true, i+2
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated '")
			}
			word.WriteString(s[i+1 : i+1+j])
			inWord, i = true, i+j+2
		case c == '"':
			inWord, i = true, i+1
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '$' {
					i = expand(i) - 1
				} else {
					word.WriteByte(s[i])
				}
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \"")
			}
			i++
		case c == '$':
			inWord, i = true, expand(i)
		case c == '#' && !inWord:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
			i++
		default:
			word.WriteByte(c)
			inWord, i = true, i+1
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// The README's walk-through, run against a real server: each command's
// output must be the one shown under it, ids, keys and times aside, so
// that the examples cannot drift from what svc does.
func TestReadmeWalkThrough(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	steps := walkThrough(t, section(t, readme(t), "Walk-through"))
	if len(steps) < 7 {
		t.Fatalf("found %d steps in the walk-through: %+v", len(steps), steps)
	}
	vars := map[string]string{}
	var brandID, apiKey string
	ran := 0
	for _, st := range steps {
		words, err := shellWords(st.command, vars)
		if err != nil {
			t.Fatalf("%s: %v", st.command, err)
		}
		switch {
		case slices.Equal(words, []string{"svc", "serve"}):
			continue // running already, on port 0
		case len(words) > 1 && words[0] == "svc" && words[1] != "serve":
			var out, errb bytes.Buffer
			env := func(k string) string { return map[string]string{"SVC_DATA": dir}[k] }
			if err := run(context.Background(), words[1:], env, &out, &errb); err != nil {
				t.Fatalf("%s: %v\n%s", st.command, err, errb.String())
			}
			// The server recorded where it listens, port 0's choice, and
			// brands add prints its URLs there; the README shows the default.
			text := strings.ReplaceAll(out.String(), s.url, "http://127.0.0.1:8080")
			brandID = regexp.MustCompile(`br_[0-9A-Za-z]{12}`).FindString(text)
			apiKey = regexp.MustCompile(`sk_[0-9A-Za-z]{43}`).FindString(text)
			compareLines(t, st, strings.Split(strings.TrimSuffix(text, "\n"), "\n"))
			// A person takes longer than the server's second to pick up the brand.
			if brandID != "" {
				testwait.Eventually(t, func() error {
					if !knows(s.url, brandID) {
						return fmt.Errorf("the server has not learnt of brand %s", brandID)
					}
					return nil
				})
			}
		case words[0] == "export":
			for _, w := range words[1:] {
				name, val, _ := strings.Cut(w, "=")
				switch {
				case strings.HasPrefix(val, "br_") && brandID != "":
					vars[name] = brandID
				case strings.HasPrefix(val, "sk_") && apiKey != "":
					vars[name] = apiKey
				default:
					t.Fatalf("%s: no %s in the output before it", st.command, val)
				}
			}
		case words[0] == "curl":
			compareJSON(t, st, curl(t, s.url, words))
		default:
			t.Fatalf("the walk-through has a command this test does not know: %s", st.command)
		}
		ran++
	}
	t.Logf("ran %d commands of the walk-through", ran)
}

// knows reports whether the server at base knows the brand: a proof of a
// product it has never seen is then "product not found".
func knows(base, brandID string) bool {
	res, err := http.Get(base + "/api/svc/product-proof?brand_id=" + brandID + "&product_id=none")
	if err != nil {
		return false
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return strings.Contains(string(b), "product")
}

// curl makes the request a curl command of the README describes, on the
// server at base, and returns the body of the answer.
func curl(t *testing.T, base string, words []string) string {
	t.Helper()
	method, url, body := "GET", "", ""
	header := http.Header{"User-Agent": {"curl/8.14.1"}} // what curl sends
	for i := 1; i < len(words); i++ {
		switch words[i] {
		case "-s":
		case "-X":
			i++
			method = words[i]
		case "-H":
			i++
			k, v, _ := strings.Cut(words[i], ":")
			header.Set(k, strings.TrimSpace(v))
		case "-d":
			i++
			body = words[i]
			if method == "GET" {
				method = "POST"
			}
		default:
			url = strings.Replace(words[i], "http://127.0.0.1:8080", base, 1)
		}
	}
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// compareLines compares a command's output with the README's, line by
// line: "..." in the README stands for any text, and brand ids and keys
// may differ.
func compareLines(t *testing.T, st step, got []string) {
	t.Helper()
	ids := regexp.MustCompile(`br_[0-9A-Za-z]{12}|sk_[0-9A-Za-z]{43}`)
	norm := func(s string) string {
		return ids.ReplaceAllStringFunc(s, func(id string) string { return id[:3] + "ID" })
	}
	ok := len(got) == len(st.output)
	for i := 0; ok && i < len(got); i++ {
		parts := strings.Split(norm(st.output[i]), "...")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		if strings.HasPrefix(st.output[i], "sk_...") { // the README does not show a key
			parts[0] = "sk_"
		}
		ok = regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(norm(got[i]))
	}
	if !ok {
		t.Errorf("README.md shows, for %s:\n%s\nsvc prints:\n%s", st.command, strings.Join(st.output, "\n"), strings.Join(got, "\n"))
	}
}

// compareJSON compares an answer with the README's: the same fields,
// nested alike, with the same values but for ids and times. An example
// with "..." between its fields shows only some; those must be in the
// answer with the values shown.
func compareJSON(t *testing.T, st step, got string) {
	t.Helper()
	shown := strings.Join(st.output, "")
	var gotV any
	if err := json.Unmarshal([]byte(got), &gotV); err != nil {
		t.Fatalf("%s answered %q: %v", st.command, got, err)
	}
	var want any
	if err := json.Unmarshal([]byte(shown), &want); err == nil {
		if problems := sameShape("", want, gotV); len(problems) > 0 {
			t.Errorf("README.md shows, for %s:\n%s\nsvc answers:\n%s\n%s", st.command, shown, got, strings.Join(problems, "\n"))
		}
		return
	}
	// A partial example: each "field":value shown must be in the answer.
	top, _ := gotV.(map[string]any)
	for _, m := range regexp.MustCompile(`"([a-z_0-9]+)":([0-9.]+|"[^"]*")?`).FindAllStringSubmatch(shown, -1) {
		v, ok := top[m[1]]
		if !ok {
			t.Errorf("README.md shows %q for %s; svc answers %s", m[1], st.command, got)
			continue
		}
		if m[2] != "" {
			if b, _ := json.Marshal(v); string(b) != m[2] {
				t.Errorf("README.md shows %s:%s for %s; svc answers %s", m[1], m[2], st.command, b)
			}
		}
	}
}

// ignored are fields whose values differ from run to run.
var ignored = map[string]bool{"event_id": true, "brand_id": true, "generated_at": true}

// sameShape lists how got differs from want: fields missing or extra,
// values of another type or, but for ignored fields and "..." in a string
// shown, another value.
func sameShape(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: an object shown, %T answered", path, got)}
		}
		var out []string
		for k := range w {
			if _, ok := g[k]; !ok {
				out = append(out, fmt.Sprintf("%s.%s: shown, not answered", path, k))
			}
		}
		for k, v := range g {
			wv, ok := w[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s.%s: answered, not shown", path, k))
				continue
			}
			if !ignored[k] {
				out = append(out, sameShape(path+"."+k, wv, v)...)
			}
		}
		slices.Sort(out)
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: %d elements shown, %v answered", path, len(w), got)}
		}
		var out []string
		for i := range w {
			out = append(out, sameShape(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	case string:
		g, ok := got.(string)
		if before, after, cut := strings.Cut(w, "..."); cut && ok && strings.HasPrefix(g, before) && strings.HasSuffix(g, after) {
			return nil
		}
		if !ok || g != w {
			return []string{fmt.Sprintf("%s: %q shown, %v answered", path, w, got)}
		}
		return nil
	default:
		if !reflect.DeepEqual(want, got) {
			return []string{fmt.Sprintf("%s: %v shown, %v answered", path, want, got)}
		}
		return nil
	}
}

// The README's "The command line" is svc --help's list of commands, and
// it names every field brands add --json prints.
func TestReadmeCommandLine(t *testing.T) {
	t.Parallel()
	text := section(t, readme(t), "The command line")
	block := "```\n" + strings.Join(synopses(), "\n") + "\n```"
	if !strings.Contains(text, block) {
		t.Errorf("README.md's command line is not svc --help's; want\n%s", block)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"brands", "add", "--data", sqlitetest.Dir(t), "--name", "Acme", "--domain", "acme.example", "--json"}, noEnv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(out.Bytes(), &fields); err != nil {
		t.Fatal(err)
	}
	_, add, _ := strings.Cut(text, "- `brands add`")
	add, _, _ = strings.Cut(add, "\n- ")
	for k := range fields {
		if !strings.Contains(add, "`"+k+"`") {
			t.Errorf("README.md's brands add does not name the field %s of --json", k)
		}
	}
}

// The README's Timestamps say which are accepted and which are a 400: an
// event with each of them is answered as it says, and one with none is
// accepted.
func TestReadmeTimestamps(t *testing.T) {
	t.Parallel()
	text := readme(t)
	_, bullet, ok := strings.Cut(text, "- **Timestamps**")
	bullet, _, _ = strings.Cut(bullet, "\n- ")
	refused := regexp.MustCompile("without an offset \\(`([^`]+)`\\) is a 400").FindStringSubmatch(bullet)
	if !ok || refused == nil {
		t.Fatalf("README.md's Timestamps do not say which timestamp is a 400:\n%s", bullet)
	}
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	b := addBrand(t, dir)
	testwait.Eventually(t, func() error {
		return postStatus(s.url+"/api/collect/product-view", b.APIKey, viewBody(b.BrandID, "p0"), 200)
	})
	stamps := regexp.MustCompile("`(\\d{4}-\\d\\d-\\d\\dT[^`]+)`").FindAllStringSubmatch(bullet, -1)
	if len(stamps) < 3 {
		t.Fatalf("README.md's Timestamps show %d timestamps", len(stamps))
	}
	for _, m := range stamps {
		body := map[string]any{"brand_id": b.BrandID, "product": map[string]any{"product_id": "p1"}, "context": map[string]any{"timestamp": m[1]}}
		st, answer, err := post(s.url+"/api/collect/product-view", "", "", body) // anonymous: an old time counts now
		if err != nil {
			t.Fatal(err)
		}
		want := 200
		if m[1] == refused[1] {
			want = 400
		}
		if st != want || want == 400 && !strings.Contains(fmt.Sprint(answer["errors"]), "context.timestamp") {
			t.Errorf("a view at %s: %d %v, want %d as README.md says", m[1], st, answer, want)
		}
	}
	if st, answer, err := post(s.url+"/api/collect/product-view", "", "", viewBody(b.BrandID, "p2")); err != nil || st != 200 {
		t.Errorf("a view without a timestamp: %d %v %v", st, answer, err)
	}
}
