package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// TestMain lets the crash test run this test binary as the svc command.
func TestMain(m *testing.M) {
	if os.Getenv("SVC_TEST_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	code := m.Run()
	if dir, err := sharedDir(); err == nil {
		_ = os.RemoveAll(dir)
	}
	os.Exit(code)
}

func noEnv(string) string { return "" }

const browserUA = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"

// runCmd runs an admin command in-process and returns its stdout.
func runCmd(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(context.Background(), args, noEnv, &out, &errb); err != nil {
		t.Fatalf("svc %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

type brandJSON struct {
	BrandID   string `json:"brand_id"`
	APIKey    string `json:"api_key"`
	KeyPrefix string `json:"key_prefix"`
	ScriptURL string `json:"script_url"`
	Snippet   string `json:"snippet"`
}

func addBrand(t *testing.T, dir string, extra ...string) brandJSON {
	t.Helper()
	var b brandJSON
	out := runCmd(t, append([]string{"brands", "add", "--data", dir, "--name", "Test Brand", "--json"}, extra...)...)
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	return b
}

// server is svc serve running in-process on port 0.
type server struct {
	url    string
	stdout *bufio.Reader
	stop   context.CancelFunc
	done   chan error
}

func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &server{stdout: bufio.NewReader(pr), stop: cancel, done: make(chan error, 1)}
	go func() {
		err := run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), noEnv, pw, io.Discard)
		pw.Close()
		s.done <- err
	}()
	s.url = readURL(t, s.stdout)
	t.Cleanup(func() { s.stop(); <-s.done })
	return s
}

// readURL reads the "svc listening on URL" line and waits for /healthz.
func readURL(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "svc listening on ")
	if err != nil || !ok {
		t.Fatalf("first line %q: %v", line, err)
	}
	testwait.Eventually(t, func() error {
		res, err := http.Get(url + "/healthz")
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("%s/healthz: %s", url, res.Status)
		}
		return nil
	})
	return url
}

func post(url, key, idem string, body any) (int, map[string]any, error) {
	j, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(j))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", browserUA) // anonymous events from Go's client would be bots
	if key != "" {
		req.Header.Set("X-svc-Api-Key", key)
	}
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m, nil
}

func proof(t *testing.T, base, brand, product string) map[string]any {
	t.Helper()
	res, err := http.Get(fmt.Sprintf("%s/api/svc/product-proof?brand_id=%s&product_id=%s", base, brand, product))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil || res.StatusCode != 200 {
		t.Fatalf("proof: %d %v %v", res.StatusCode, m, err)
	}
	return m
}

func viewBody(brand, product string) map[string]any {
	return map[string]any{"brand_id": brand, "product": map[string]any{"product_id": product}}
}

func purchaseBody(brand, order, product string) map[string]any {
	return map[string]any{"brand_id": brand, "order": map[string]any{"order_id": order,
		"items": []any{map[string]any{"product_id": product, "quantity": 1}}}}
}

// status returns an error unless got is want.
func status(what string, got, want int) error {
	if got != want {
		return fmt.Errorf("%s: status %d, want %d", what, got, want)
	}
	return nil
}

// TestAdminChangesReachARunningServer: brands and keys that admin commands
// change in the store reach a running server at its next reload.
func TestAdminChangesReachARunningServer(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	b := addBrand(t, dir, "--domain", "Shop.Example")
	if !strings.HasPrefix(b.BrandID, "br_") || !strings.HasPrefix(b.APIKey, "sk_") || !strings.Contains(b.Snippet, b.BrandID) || !strings.HasSuffix(b.ScriptURL, "/svc.js") {
		t.Fatalf("brands add --json: %+v", b)
	}
	viewURL := s.url + "/api/collect/product-view"
	accepted := 0 // every 200 must show in the proof at the end
	send := func(key string) int {
		st, _, _ := post(viewURL, key, "", viewBody(b.BrandID, "p1"))
		if st == 200 {
			accepted++
		}
		return st
	}
	testwait.Eventually(t, func() error { return status("a view with the new brand's key", send(b.APIKey), 200) })
	var k struct {
		APIKey string `json:"api_key"`
	}
	_ = json.Unmarshal([]byte(runCmd(t, "keys", "create", "--data", dir, "--brand", b.BrandID, "--json")), &k)
	testwait.Eventually(t, func() error { return status("a view with the new key", send(k.APIKey), 200) })
	runCmd(t, "keys", "revoke", "--data", dir, "--brand", b.BrandID, "--key", b.KeyPrefix)
	testwait.Eventually(t, func() error { return status("a view with the revoked key", send(b.APIKey), 401) })
	if st := send(k.APIKey); st != 200 {
		t.Fatalf("the other key stopped working: %d", st)
	}
	var list []struct {
		BrandID string   `json:"brand_id"`
		Domains []string `json:"domains"`
		Keys    []struct {
			Prefix    string     `json:"prefix"`
			RevokedAt *time.Time `json:"revoked_at"`
		} `json:"keys"`
	}
	if err := json.Unmarshal([]byte(runCmd(t, "brands", "list", "--data", dir, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Domains[0] != "shop.example" || len(list[0].Keys) != 2 || list[0].Keys[0].RevokedAt == nil || list[0].Keys[1].RevokedAt != nil {
		t.Fatalf("brands list: %+v", list)
	}
	if m := proof(t, s.url, b.BrandID, "p1"); m["views"] != float64(accepted) {
		t.Fatalf("proof %v", m)
	}
}

func TestCommandErrors(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	tests := []struct {
		args []string
		want string
	}{
		{nil, "no command"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"brands"}, "needs a subcommand"},
		{[]string{"keys", "list"}, `unknown command "keys list": keys takes create, revoke, signing rotate or signing list`},
		{[]string{"keys", "signing", "nope"}, `unknown command "keys signing nope"`},
		{[]string{"brands", "add", "--data", dir}, "--name is required"},
		{[]string{"brands", "add", "--data", dir, "--name", "x", "--domain", "https://x.example/"}, "not a host name"},
		{[]string{"keys", "create", "--data", dir, "--brand", "br_nope"}, "not found"},
		{[]string{"keys", "revoke", "--data", dir, "--brand", "br_nope", "--key", "sk_x"}, "no active key"},
		// On port 0: a test must not need, nor take, the default 8080.
		{[]string{"serve", "--addr", "127.0.0.1:0", "--data", dir, "--store", "mysql://localhost/svc"}, "unknown store"},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--data", dir, "--retention", "24h"}, "the largest window"},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--data", dir, "--bogus"}, "not defined"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			err := run(context.Background(), tt.args, noEnv, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestEnvironmentVariables(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	env := func(k string) string {
		return map[string]string{"SVC_DATA": dir, "SVC_PUBLIC_URL": "https://proof.example"}[k]
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"brands", "add", "--name", "Env", "--json"}, env, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var b brandJSON
	_ = json.Unmarshal(out.Bytes(), &b)
	if b.ScriptURL != "https://proof.example/svc.js" {
		t.Fatalf("script_url %q", b.ScriptURL)
	}
	if _, err := os.Stat(dir + "/svc.db"); err != nil {
		t.Fatalf("SVC_DATA not used: %v", err)
	}
}

func TestDemo(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s1 := startServer(t, "--data", dir, "--demo")
	first := demoKey(t, s1)
	s1.stop()
	err := <-s1.done
	s1.done <- err                               // for the cleanup
	s := startServer(t, "--data", dir, "--demo") // a second run on the same folder
	key := demoKey(t, s)
	if st, _, _ := post(s.url+"/api/collect/product-view", first, "", viewBody(demoBrandID, demoProductID)); st != 401 {
		t.Fatalf("the first run's demo key still works: %d", st)
	}
	if m := proof(t, s.url, demoBrandID, demoProductID); m["views"] != 0.0 {
		t.Fatalf("the demo product starts with made-up views: %v", m)
	}
	res, err := http.Get(s.url + "/demo")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`"productID":"` + demoProductID + `"`, s.url + `/svc.js`, `"` + demoBrandID + `")`, "data-svc-proof"} {
		if res.StatusCode != 200 || !strings.Contains(string(page), want) {
			t.Fatalf("/demo (%d) lacks %s", res.StatusCode, want)
		}
	}
	if st, _, _ := post(s.url+"/api/collect/product-view", "", "", viewBody(demoBrandID, demoProductID)); st != 200 {
		t.Fatalf("view: %d", st)
	}
	if st, m, _ := post(s.url+"/api/collect/product-purchase", key, "", purchaseBody(demoBrandID, "o-1", demoProductID)); st != 200 {
		t.Fatalf("keyed purchase with the printed key: %d %v", st, m)
	}
	if m := proof(t, s.url, demoBrandID, demoProductID); m["views"] != 1.0 || m["purchases"] != 1.0 {
		t.Fatalf("proof %v", m)
	}
}

// demoKey reads what serve --demo prints and returns the API key in it.
func demoKey(t *testing.T, s *server) string {
	t.Helper()
	var text strings.Builder
	for !strings.Contains(text.String(), "product-proof") {
		line, err := s.stdout.ReadString('\n')
		if err != nil {
			t.Fatalf("demo output %q: %v", text.String(), err)
		}
		text.WriteString(line)
	}
	for _, l := range strings.Split(text.String(), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "api_key:" && strings.Contains(text.String(), "curl") {
			return f[1]
		}
	}
	t.Fatalf("no api_key in %q", text.String())
	return ""
}

func TestAdminListener(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--data", sqlitetest.Dir(t), "--admin-addr", "127.0.0.1:0")
	line, err := s.stdout.ReadString('\n')
	admin, ok := strings.CutPrefix(strings.TrimSpace(line), "svc admin (pprof, metrics) on ")
	if err != nil || !ok {
		t.Fatalf("second line %q: %v", line, err)
	}
	status := func(url string) int {
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if status(admin+"/debug/pprof/") != 200 || status(admin+"/metrics") != 200 {
		t.Fatal("the admin listener does not serve pprof and metrics")
	}
	if status(s.url+"/debug/pprof/") != 404 {
		t.Fatal("pprof is on the public listener")
	}
	if status(s.url+"/metrics") != 200 {
		t.Fatal("no /metrics on the public listener")
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	out := runCmd(t, "version")
	if !strings.HasPrefix(out, "svc ") || !strings.Contains(out, "go1.") {
		t.Fatalf("version: %q", out)
	}
}

// One data folder serves one server: a second is refused at once, and the
// folder is free again when the first stops.
func TestOneServerPerDataFolder(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	err := run(context.Background(), []string{"serve", "--data", dir, "--addr", "127.0.0.1:0"}, noEnv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "another svc serve uses the data folder") {
		t.Fatalf("second server: %v", err)
	}
	addBrand(t, dir) // admin commands still share the folder
	s.stop()
	err = <-s.done
	s.done <- err // for the cleanup
	startServer(t, "--data", dir)
}
