package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// helpFlag is a flag as a command's --help lists it.
var helpFlag = regexp.MustCompile(`(?m)^  --([a-z-]+)`)

// Every command has a --help in one style, on stdout: how it is called,
// what it does, and its flags with two dashes; svc --help shows every flag
// of every admin command.
func TestHelp(t *testing.T) {
	t.Parallel()
	var top bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, noEnv, &top, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), append(strings.Fields(c.name), "--help"), noEnv, &out, io.Discard)
			help := out.String()
			if !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(help, "Usage: svc "+c.name) {
				t.Fatalf("svc %s --help: %v\n%s", c.name, err, help)
			}
			if !strings.Contains(help, "\n"+strings.ToUpper(c.summary[:1])+c.summary[1:]+".\n") {
				t.Errorf("svc %s --help lacks its description %q:\n%s", c.name, c.summary, help)
			}
			if m := regexp.MustCompile(`(?m)^\s*-[a-z]`).FindString(help); m != "" {
				t.Errorf("svc %s --help names a flag with one dash (%q):\n%s", c.name, m, help)
			}
			if !regexp.MustCompile(`\n  ` + regexp.QuoteMeta(c.name) + `  +` + regexp.QuoteMeta(c.summary) + `\n`).MatchString(top.String()) {
				t.Errorf("svc --help lacks %s and its description, two spaces apart at least", c.name)
			}
			if c.name == "serve" {
				return // its options are many; README.md and serve --help list them all
			}
			synopsis := strings.Join(c.synopsis, " ")
			for _, m := range helpFlag.FindAllStringSubmatch(help, -1) {
				if f := m[1]; f != "data" && f != "store" && !strings.Contains(synopsis, "--"+f) {
					t.Errorf("the usage of svc %s lacks --%s", c.name, f)
				}
			}
			for _, l := range synopses() {
				if strings.HasPrefix(l, "svc "+c.name+" ") && !strings.Contains(top.String(), l) {
					t.Errorf("svc --help lacks %q", l)
				}
			}
		})
	}
	if !strings.Contains(top.String(), "--data DIR") || !strings.Contains(top.String(), "--store URL") {
		t.Errorf("svc --help does not say that every command takes --data and --store:\n%s", top.String())
	}
	for group, subs := range map[string][]string{"brands": {"add", "list", "set"}, "keys": {"create", "revoke"}} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{group, "--help"}, noEnv, &out, io.Discard); err != nil {
			t.Fatalf("svc %s --help: %v", group, err)
		}
		err := run(context.Background(), []string{group}, noEnv, io.Discard, io.Discard)
		var usage usageError
		if !errors.As(err, &usage) {
			t.Fatalf("svc %s: %v, want a usage error", group, err)
		}
		for _, sub := range subs {
			if !strings.Contains(out.String(), "\n  "+sub+" ") || !strings.Contains(err.Error(), sub) {
				t.Errorf("svc %s --help or svc %s does not name %s:\n%s\n%v", group, group, sub, out.String(), err)
			}
		}
	}
}

// svc --help and a group's --help align the descriptions of their
// commands in one column, whatever the length of the names.
func TestHelpColumnsAlign(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"keys", "--help"}, {"brands", "--help"}} {
		var out bytes.Buffer
		if err := run(context.Background(), args, noEnv, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		col := -1
		for _, c := range commands() {
			name := c.name
			if len(args) == 2 {
				var ok bool
				if name, ok = strings.CutPrefix(c.name, args[0]+" "); !ok {
					continue
				}
			}
			line := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + ` .*$`).FindString(out.String())
			at := strings.Index(line, c.summary)
			if at < 0 || at < len("  "+name)+2 {
				t.Errorf("svc %v: the line of %s runs into its description: %q", args, name, line)
			}
			if col >= 0 && at != col {
				t.Errorf("svc %v: %s's description starts at column %d, the one before at %d:\n%s", args, name, at, col, out.String())
			}
			col = at
		}
	}
}

func TestBadFlagIsNamedWithTwoDashes(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), []string{"brands", "list", "--bogus"}, noEnv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not defined: --bogus") || !strings.Contains(err.Error(), "svc brands list --help") {
		t.Fatalf("err %v", err)
	}
}

// Only serve makes a data folder: an admin command run from the wrong
// folder says where it looked, and creates nothing.
func TestAdminCommandsNeedAnExistingDataFolder(t *testing.T) {
	// Not parallel: it changes the working directory (t.Chdir).
	missing := filepath.Join(t.TempDir(), "svc-data")
	for _, args := range [][]string{
		{"brands", "add", "--name", "Acme", "--domain", "acme.example"},
		{"brands", "list"},
		{"brands", "set", "--brand", "br_x", "--name", "Acme"},
		{"keys", "create", "--brand", "br_x"},
		{"keys", "revoke", "--brand", "br_x", "--key", "sk_12345678"},
		{"export", "--brand", "br_x"},
		{"forget", "--brand", "br_x", "--session", "s"},
		{"backup", "--to", filepath.Join(t.TempDir(), "copy.db")},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			env := func(k string) string { return map[string]string{"SVC_DATA": missing}[k] }
			err := run(context.Background(), args, env, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), "no data folder "+missing+":") {
				t.Fatalf("err %v, want it to name %s", err, missing)
			}
			if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the command made the folder: %v", err)
			}
		})
	}
	// A relative folder is named as given and as the absolute path it meant.
	t.Chdir(t.TempDir())
	err := run(context.Background(), []string{"brands", "list"}, noEnv, io.Discard, io.Discard)
	abs, _ := filepath.Abs("svc-data")
	if err == nil || !strings.Contains(err.Error(), "no data folder ./svc-data ("+abs+")") {
		t.Fatalf("err %v, want it to name ./svc-data and %s", err, abs)
	}
	if _, err := os.Stat("svc-data"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("brands list made ./svc-data: %v", err)
	}
}

// A busy port stops serve with a hint, before it has made the data folder.
func TestServeOnABusyPort(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := filepath.Join(t.TempDir(), "svc-data")
	err = run(context.Background(), []string{"serve", "--addr", ln.Addr().String(), "--data", dir}, noEnv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), ln.Addr().String()+" is already in use") || !strings.Contains(err.Error(), "--addr or SVC_ADDR") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("serve made the data folder before it had its address: %v", err)
	}
}

// brands add says when the widget starts to show, and warns on stderr when
// the brand has no domain, its snippet then being of no use in a browser.
func TestBrandsAddSaysWhatTheSnippetNeeds(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	add := func(args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		if err := run(context.Background(), append([]string{"brands", "add", "--data", dir, "--name", "Acme"}, args...), noEnv, &out, &errb); err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String()
	}
	out, warn := add("--domain", "acme.example")
	if !strings.Contains(out, "a product has 3 viewers in the last hour or 1 purchase in the last 24 hours,\nthe widget shows nothing") || !strings.Contains(out, "data-svc-debug") || warn != "" {
		t.Fatalf("brands add with a domain:\n%s\nstderr: %q", out, warn)
	}
	if out, _ := add("--domain", "acme.example", "--min-viewers", "1", "--min-purchases", "2"); !strings.Contains(out, "has 1 viewer in the last hour or 2 purchases") {
		t.Fatalf("brands add with thresholds:\n%s", out)
	}
	for _, asJSON := range []bool{false, true} {
		args := []string{}
		if asJSON {
			args = append(args, "--json")
		}
		out, warn := add(args...)
		if !strings.Contains(warn, "has no --domain") || !strings.Contains(warn, "refuses a browser request") || !strings.Contains(warn, "svc brands set --brand br_") {
			t.Fatalf("brands add without a domain (json %v) warned %q", asJSON, warn)
		}
		if asJSON && !json.Valid([]byte(out)) {
			t.Fatalf("the warning went into the JSON: %s", out)
		}
	}
}

// The command line prints a domain error once, by its message, not as
// "svc: svc not_found: ...".
func TestErrorText(t *testing.T) {
	t.Parallel()
	e := svc.Errorf(svc.ENOTFOUND, "brand %q not found", "br_x")
	for err, want := range map[error]string{
		e:                         `brand "br_x" not found`,
		fmt.Errorf("demo: %w", e): `demo: brand "br_x" not found`,
		svc.Invalid([]svc.FieldError{{Field: "name", Message: "is required"}}): "the request has an invalid field; name is required",
		errors.New("plain"): "plain",
	} {
		if got := errorText(err); got != want {
			t.Errorf("errorText(%v) = %q, want %q", err, got, want)
		}
	}
	err := run(context.Background(), []string{"keys", "create", "--data", sqlitetest.Dir(t), "--brand", "br_nope"}, noEnv, io.Discard, io.Discard)
	if got := errorText(err); err == nil || strings.HasPrefix(got, "svc ") || !strings.Contains(got, "br_nope") {
		t.Fatalf("keys create of an unknown brand: %q", got)
	}
}

func TestVersionHelp(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := run(context.Background(), []string{"version", "--help"}, noEnv, &out, io.Discard)
	if !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(out.String(), "Usage: svc version") || strings.Contains(out.String(), "go1.") {
		t.Fatalf("version --help: %v %q", err, out.String())
	}
}

// keys create --label names the key; brands list shows the label, and no
// last use until a server has written one.
func TestKeyLabel(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	cmd := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(context.Background(), append(args, "--data", dir), noEnv, &out, io.Discard)
		return out.String(), err
	}
	out, err := cmd("brands", "add", "--name", "Acme", "--domain", "acme.example", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var added struct {
		BrandID string `json:"brand_id"`
	}
	if err := json.Unmarshal([]byte(out), &added); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd("keys", "create", "--brand", added.BrandID, "--label", strings.Repeat("x", 101)); svc.ErrorCode(err) != svc.EINVALID {
		t.Fatalf("a label too long: %v", err)
	}
	if _, err := cmd("keys", "create", "--brand", added.BrandID, "--label", " shop server "); err != nil {
		t.Fatal(err)
	}
	out, err = cmd("brands", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var brands []struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal([]byte(out), &brands); err != nil || len(brands) != 1 || len(brands[0].Keys) != 2 {
		t.Fatalf("brands list: %s %v", out, err)
	}
	if k := brands[0].Keys[1]; k["label"] != "shop server" || k["last_used_at"] != nil {
		t.Fatalf("the labelled key: %v", k)
	}
}
