package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// --add-domain and --remove-domain change one host each and keep the
// others; --domain replaces them all, and says so in its help; mixing
// them is refused.
func TestBrandsSetDomains(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir, "--domain", "shop.example")
	domains := func(args ...string) []string {
		t.Helper()
		var out struct {
			Domains []string `json:"domains"`
		}
		if err := json.Unmarshal([]byte(runCmd(t, append([]string{"brands", "set", "--data", dir, "--brand", b.BrandID, "--json"}, args...)...)), &out); err != nil {
			t.Fatal(err)
		}
		return out.Domains
	}
	if got := domains("--add-domain", "shop.other"); !slices.Equal(got, []string{"shop.example", "shop.other"}) {
		t.Fatalf("--add-domain shop.other: %v", got)
	}
	if got := domains("--add-domain", "SHOP.other", "--add-domain", "third.example"); !slices.Equal(got, []string{"shop.example", "shop.other", "third.example"}) {
		t.Fatalf("--add-domain twice, one known: %v", got)
	}
	if got := domains("--remove-domain", "shop.other"); !slices.Equal(got, []string{"shop.example", "third.example"}) {
		t.Fatalf("--remove-domain shop.other: %v", got)
	}
	if got := domains("--domain", "only.example"); !slices.Equal(got, []string{"only.example"}) {
		t.Fatalf("--domain replaces: %v", got)
	}
	for _, args := range [][]string{{"--remove-domain", "never.example"}, {"--domain", "a.example", "--add-domain", "b.example"}, {"--add-domain", ""}} {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"brands", "set", "--data", dir, "--brand", b.BrandID}, args...), noEnv, &out, &errb)
		if err == nil {
			t.Fatalf("%v: no error", args)
		}
	}
	if got := domains("--name", "Same"); !slices.Equal(got, []string{"only.example"}) {
		t.Fatalf("a refused change changed the domains: %v", got)
	}
	var help bytes.Buffer
	_ = run(context.Background(), []string{"brands", "set", "--help"}, noEnv, &help, &help)
	if h := help.String(); !strings.Contains(h, "replaces the brand's host names") || !strings.Contains(h, "-add-domain") || !strings.Contains(h, "-remove-domain") {
		t.Fatalf("brands set --help:\n%s", h)
	}
}

// brands add ends with the export line the walk-through uses, with the
// brand's id and key.
func TestBrandsAddPrintsExport(t *testing.T) {
	t.Parallel()
	out := runCmd(t, "brands", "add", "--data", sqlitetest.Dir(t), "--name", "Acme", "--domain", "acme.example")
	m := regexp.MustCompile(`(?m)^export BRAND=(br_\w+) KEY=(sk_\w+)$`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "brand_id:   "+m[1]) || !strings.Contains(out, "api_key:    "+m[2]) {
		t.Fatalf("brands add printed no export line of its brand and key:\n%s", out)
	}
}

// The hints name svc as the user runs it.
func TestSelfCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ arg0, exe, want string }{
		{"/tmp/go-build3141592/b001/exe/svc", "/tmp/go-build3141592/b001/exe/svc", "go run ./cmd/svc"},
		{"svc", "/home/u/go/bin/svc", "svc"},
		{"./svc", "/home/u/src/svc/svc", "./svc"},
		{"/usr/local/bin/svc", "/usr/local/bin/svc", "/usr/local/bin/svc"},
		{"/odd dir/svc", "/odd dir/svc", "svc"},
		{"svc", "", "svc"},
	} {
		if got := selfCommand(tc.arg0, tc.exe); got != tc.want {
			t.Errorf("selfCommand(%q, %q) = %q, want %q", tc.arg0, tc.exe, got, tc.want)
		}
	}
	var out, errb bytes.Buffer
	env := environment{getenv: noEnv, stdout: &out, stderr: &errb, self: "go run ./cmd/svc"}
	if err := runIn(context.Background(), []string{"brands", "add", "--data", sqlitetest.Dir(t), "--name", "Acme"}, env); err != nil {
		t.Fatal(err)
	}
	for _, hint := range []string{"go run ./cmd/svc brands set --brand br_", "go run ./cmd/svc brands set --brand br_"} {
		if !strings.Contains(out.String(), hint) || !strings.Contains(errb.String(), "go run ./cmd/svc brands set --brand br_") {
			t.Fatalf("hints under go run:\n%s\n%s", out.String(), errb.String())
		}
	}
	if strings.Contains(out.String()+errb.String(), " svc brands") && !strings.Contains(out.String()+errb.String(), "cmd/svc brands") {
		t.Fatalf("a hint says svc under go run:\n%s\n%s", out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "--add-domain shop.example") {
		t.Fatalf("the warning's hint does not add the domain: %s", errb.String())
	}
}
