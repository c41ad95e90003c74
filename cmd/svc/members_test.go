package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// svc brands members adds, changes, lists and removes members; the last
// owner stays, and a bad address or role names its field.
func TestBrandsMembers(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	var added struct {
		Email string `json:"email"`
		Role  string `json:"role"`
		Added bool   `json:"added"`
	}
	out := runCmd(t, "brands", "members", "add", "--data", dir, "--brand", b.BrandID, "--email", "Ann@Shop.example", "--role", "owner", "--json")
	if err := json.Unmarshal([]byte(out), &added); err != nil || added.Email != "ann@shop.example" || added.Role != "owner" || !added.Added {
		t.Fatalf("add: %q %v", out, err)
	}
	runCmd(t, "brands", "members", "add", "--data", dir, "--brand", b.BrandID, "--email", "bob@shop.example", "--role", "viewer")
	if out := runCmd(t, "brands", "members", "list", "--data", dir, "--brand", b.BrandID); !strings.Contains(out, "ann@shop.example  owner") || !strings.Contains(out, "bob@shop.example  viewer") {
		t.Fatalf("list:\n%s", out)
	}
	fail := func(want string, args ...string) {
		t.Helper()
		err := run(context.Background(), append([]string{"brands", "members"}, args...), noEnv, io.Discard, io.Discard)
		if err == nil || !strings.Contains(errorText(err), want) {
			t.Errorf("svc brands members %s: %v, want %q", strings.Join(args, " "), err, want)
		}
	}
	fail("last owner", "remove", "--data", dir, "--brand", b.BrandID, "--email", "ann@shop.example")
	fail("last owner", "add", "--data", dir, "--brand", b.BrandID, "--email", "ann@shop.example", "--role", "viewer")
	fail("email", "add", "--data", dir, "--brand", b.BrandID, "--email", "ann", "--role", "admin")
	fail("role", "add", "--data", dir, "--brand", b.BrandID, "--email", "ann", "--role", "admin")
	fail("no brand", "add", "--data", dir, "--brand", "br_nope", "--email", "x@shop.example", "--role", "owner")
	fail("give --brand ID", "add", "--data", dir, "--email", "x@shop.example")
	if out := runCmd(t, "brands", "members", "remove", "--data", dir, "--brand", b.BrandID, "--email", "Bob@shop.example"); !strings.Contains(out, "bob@shop.example removed") {
		t.Fatalf("remove: %q", out)
	}
	if out := runCmd(t, "brands", "members", "list", "--data", dir, "--json"); strings.Count(out, "\n") != 1 || strings.Contains(out, "bob@") {
		t.Fatalf("list after remove:\n%s", out)
	}

	// The operator's changes on the command line are in the brand's audit log.
	runCmd(t, "keys", "create", "--data", dir, "--brand", b.BrandID)
	runCmd(t, "brands", "set", "--data", dir, "--brand", b.BrandID, "--min-viewers", "5", "--shopify-secret", "shpss_abc")
	store, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	events, err := store.AuditEvents(context.Background(), b.BrandID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range events {
		lines = append(lines, e.Actor+" "+e.IP+" "+e.Action+" "+e.Detail)
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{"operator command line member-add ann@shop.example as owner", "operator command line member-remove bob@shop.example",
		"operator command line key-create key ", "operator command line settings svc brands set --min-viewers",
		"operator command line webhook-secret shopify secret set or removed by svc brands set"} {
		if !strings.Contains(got, want) {
			t.Errorf("the audit log lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "shpss_abc") {
		t.Error("the audit log holds a secret")
	}
}

// lockedBuffer is a log the server writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// Without SMTP, serve --demo says so, and a member's sign-in link is
// written to the log at info level, where it works in the browser that
// asked.
func TestSignInLinkLoggedWithoutSMTP(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	logs := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", dir, "--demo"}, noEnv, pw, logs)
		pw.Close()
	}()
	t.Cleanup(func() { cancel(); <-done })
	stdout := bufio.NewReader(pr)
	base := readURL(t, stdout)
	var demo strings.Builder
	for !strings.Contains(demo.String(), "/dashboard/signin\n") {
		line, err := stdout.ReadString('\n')
		if err != nil {
			t.Fatalf("demo text: %v\n%s", err, demo.String())
		}
		demo.WriteString(line)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	if !strings.Contains(demo.String(), "No SMTP server (--smtp-url): the dashboard's sign-in emails are written to the log") {
		t.Fatalf("the demo does not say where sign-in mail goes:\n%s", demo.String())
	}
	runCmd(t, "brands", "members", "add", "--data", dir, "--brand", "br_demo", "--email", "owner@shop.example", "--role", "owner")
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	postForm := func(form url.Values) (*http.Response, error) {
		req, _ := http.NewRequest("POST", base+"/dashboard/signin", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base) // the sign-in page's own form
		return client.Do(req)
	}
	resp, err := postForm(url.Values{"email": {"owner@shop.example"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var link string
	testwait.Eventually(t, func() error {
		m := regexp.MustCompile(`level=INFO msg="mail: no SMTP server.*to=owner@shop.example.*link="?(http://[^" ]+)`).FindStringSubmatch(logs.String())
		if m == nil {
			return io.EOF
		}
		link = m[1]
		return nil
	})
	u, _ := url.Parse(link)
	resp, err = postForm(url.Values{"token": {u.Query().Get("token")}})
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/dashboard/brands/br_demo/" || !strings.Contains(string(page), "Demo Shop") {
		t.Fatalf("the logged link: %d at %s", resp.StatusCode, resp.Request.URL)
	}
}
