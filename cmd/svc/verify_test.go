package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/signing"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// runVerify runs svc verify in-process and returns its output and error.
func runVerify(args ...string) (string, error) {
	var out bytes.Buffer
	err := run(context.Background(), append([]string{"verify"}, args...), noEnv, &out, io.Discard)
	return out.String(), err
}

// saveAnswer fetches url and writes the answer as curl -i does.
func saveAnswer(t *testing.T, url, path string) (http.Header, []byte) {
	t.Helper()
	res, err := getSigned(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %s\r\n", res.Status)
	_ = res.Header.Write(&b)
	b.WriteString("\r\n")
	b.Write(body)
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return res.Header, body
}

var keyIDParam = regexp.MustCompile(`keyid="([^"]+)"`)

// getSigned gets url asking for a signed answer, as svc verify does.
func getSigned(url string) (*http.Response, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept-Signature", signing.AcceptSignature)
	return http.DefaultClient.Do(req)
}

// signingKeyOf returns the keyid an answer of url is signed with.
func signingKeyOf(url string) (string, error) {
	res, err := getSigned(url)
	if err != nil {
		return "", err
	}
	res.Body.Close()
	m := keyIDParam.FindStringSubmatch(res.Header.Get("Signature-Input"))
	if m == nil {
		return "", fmt.Errorf("no keyid in %q", res.Header.Get("Signature-Input"))
	}
	return m[1], nil
}

func TestVerify(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	b := addBrand(t, dir)
	testwait.Eventually(t, func() error {
		return postStatus(s.url+"/api/collect/product-view", b.APIKey, viewBody(b.BrandID, "p1"), 200)
	})
	proofURL := s.url + "/api/svc/product-proof?brand_id=" + b.BrandID + "&product_id=p1"

	out, err := runVerify("--url", proofURL)
	if err != nil || !strings.HasPrefix(out, "verified: 200 answer of GET "+proofURL) {
		t.Fatalf("verify --url: %v\n%s", err, out)
	}
	body := `{"context":{"url":"https://shop.example/p1"},"product":{"title":"A shoe"}}`
	if out, err := runVerify("--url", s.url+"/api/svc/product-enrich", "--data", body); err != nil {
		t.Fatalf("verify a POST: %v\n%s", err, out)
	}

	// A saved answer verifies offline too, with a saved key set.
	saved := filepath.Join(t.TempDir(), "answer.http")
	_, raw := saveAnswer(t, proofURL, saved)
	keysFile := filepath.Join(t.TempDir(), "keys.json")
	res, err := http.Get(s.url + "/.well-known/svc-keys.json")
	if err != nil {
		t.Fatal(err)
	}
	jwks, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if err := os.WriteFile(keysFile, jwks, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := runVerify("--url", proofURL, "--answer", saved, "--keys", keysFile); err != nil {
		t.Fatalf("verify --answer: %v\n%s", err, out)
	}

	// A saved request names the URL instead of --url.
	u, _ := url.Parse(proofURL)
	request := writeFile(t, "GET "+u.RequestURI()+" HTTP/1.1\r\nHost: "+u.Host+"\r\nAccept: */*\r\n\r\n")
	if out, err := runVerify("--request", request, "--answer", saved, "--keys", keysFile); err == nil || !strings.Contains(err.Error(), "signature does not match") {
		t.Errorf("a saved request without its scheme is https: %v\n%s", err, out)
	}
	request = writeFile(t, "GET "+proofURL+" HTTP/1.1\r\nHost: "+u.Host+"\r\n\r\n")
	if out, err := runVerify("--request", request, "--answer", saved, "--keys", keysFile); err != nil {
		t.Errorf("verify --request: %v\n%s", err, out)
	}

	// Each failure is a 1 that says why.
	tampered := filepath.Join(t.TempDir(), "tampered.http")
	file, _ := os.ReadFile(saved)
	changed := bytes.Replace(raw, []byte(`"views":1`), []byte(`"views":9`), 1)
	if bytes.Equal(changed, raw) {
		t.Fatalf("no views in %s", raw)
	}
	if err := os.WriteFile(tampered, bytes.Replace(file, raw, changed, 1), 0o600); err != nil {
		t.Fatal(err)
	}
	status200 := []byte("HTTP/1.1 200 OK")
	statusFile := filepath.Join(t.TempDir(), "status.http")
	if err := os.WriteFile(statusFile, bytes.Replace(file, status200, []byte("HTTP/1.1 203 Non-Authoritative Information"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		why  string
	}{
		{"a changed byte", []string{"--url", proofURL, "--answer", tampered}, "Content-Digest does not match"},
		{"a changed status", []string{"--url", proofURL, "--answer", statusFile}, "signature does not match"},
		{"another URL", []string{"--url", proofURL + "&window_views=5", "--answer", saved}, "signature does not match"},
		{"an error answer", []string{"--url", s.url + "/api/svc/product-proof?brand_id=" + b.BrandID + "&product_id=nope"}, "only 2xx answers are signed"},
		{"an old answer", []string{"--url", proofURL, "--answer", saved, "--max-age", "1ns"}, "more than --max-age"},
		{"an unknown key", []string{"--url", proofURL, "--answer", saved, "--keys", writeFile(t, `{"keys":[]}`)}, "key set is empty"},
	} {
		out, err := runVerify(c.args...)
		var nv notVerified
		if !errors.As(err, &nv) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %q, %v; want not verified because %q", c.name, out, err, c.why)
		}
	}
	for _, args := range [][]string{{}, {"--url", "proof.example/x"}, {"--url", proofURL, "--data", "{}", "--data-file", "x"}, {"--url", proofURL, "--answer", "/nonexistent"}, {"--request", "x"}, {"--request", "x", "--answer", "y", "--url", proofURL}} {
		var usage usageError
		if _, err := runVerify(args...); !errors.As(err, &usage) {
			t.Errorf("verify %q: %v, want a usage error", args, err)
		}
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestVerifyExitCodes runs the binary: 0 verified, 1 not, 2 usage.
func TestVerifyExitCodes(t *testing.T) {
	t.Parallel()
	_, url := startChild(t, sqlitetest.Dir(t))
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--url", url + "/api/svc/product-enrich", "--data", `{"product":{"title":"A shoe"}}`}, 0},
		{[]string{"--url", url + "/api/svc/product-proof?brand_id=br_none&product_id=p"}, 1},
		{[]string{"--url", "nonsense"}, 2},
	} {
		cmd := testCommand(append([]string{"verify"}, c.args...)...)
		out, _ := cmd.CombinedOutput()
		if got := cmd.ProcessState.ExitCode(); got != c.code {
			t.Errorf("svc verify %q: exit %d, want %d\n%s", c.args, got, c.code, out)
		}
	}
}

// TestRotateReachesRunningNodes: on PostgreSQL, every node signs with the
// rotated key within a second, and publishes the old one beside it.
func TestRotateReachesRunningNodes(t *testing.T) {
	// Not parallel: it asserts that every node signs with the new key within a second.
	store := pgtest.URL(t)
	b := addBrand(t, "", "--store", store)
	nodes := []*server{startServer(t, "--store", store), startServer(t, "--store", store)}
	testwait.Eventually(t, func() error {
		return postStatus(nodes[0].url+"/api/collect/product-view", b.APIKey, viewBody(b.BrandID, "p1"), 200)
	})
	path := "/api/svc/product-proof?brand_id=" + b.BrandID + "&product_id=p1"
	var first string
	for _, n := range nodes {
		var kid string
		testwait.Eventually(t, func() (err error) { kid, err = signingKeyOf(n.url + path); return err })
		if first == "" {
			first = kid
		} else if kid != first {
			t.Fatalf("the nodes sign with %s and %s", first, kid)
		}
	}
	saved := filepath.Join(t.TempDir(), "answer.http")
	saveAnswer(t, nodes[1].url+path, saved)

	var rotated struct {
		Kid           string `json:"kid"`
		ReplacedUntil string `json:"replaced_until"`
	}
	if err := json.Unmarshal([]byte(runCmd(t, "keys", "signing", "rotate", "--store", store, "--json")), &rotated); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for _, n := range nodes {
		testwait.Eventually(t, func() error {
			kid, err := signingKeyOf(n.url + path)
			if err == nil && kid != rotated.Kid {
				err = fmt.Errorf("%s still signs with %s", n.url, kid)
			}
			return err
		})
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("the nodes signed with the new key after %v, want within 1 s", took)
	}
	if until, err := time.Parse(time.RFC3339, rotated.ReplacedUntil); err != nil || until.Sub(start) < 7*24*time.Hour-time.Minute {
		t.Errorf("replaced_until %q, want 7 days on", rotated.ReplacedUntil)
	}
	for _, n := range nodes {
		if out, err := runVerify("--url", nodes[1].url+path, "--answer", saved, "--keys", n.url+"/.well-known/svc-keys.json"); err != nil {
			t.Errorf("an answer of the old key, with %s's keys: %v\n%s", n.url, err, out)
		}
		if out, err := runVerify("--url", n.url+path); err != nil {
			t.Errorf("a new answer of %s: %v\n%s", n.url, err, out)
		}
	}
	list := runCmd(t, "keys", "signing", "list", "--store", store)
	if !strings.Contains(list, rotated.Kid+"  created") || !strings.Contains(list, first) || !strings.Contains(list, "published until") {
		t.Errorf("keys signing list:\n%s", list)
	}
}

// testCommand is the svc command as its own process (see TestMain).
func testCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SVC_TEST_RUN_MAIN=1")
	return cmd
}

// verify prints what the signature vouches for: the figures of the body,
// in its order, its strings quoted.
func TestVerifyPrintsTheFigures(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	b := addBrand(t, dir)
	testwait.Eventually(t, func() error {
		return postStatus(s.url+"/api/collect/product-view", b.APIKey, viewBody(b.BrandID, "p1"), 200)
	})
	out, err := runVerify("--url", s.url+"/api/svc/product-proof?brand_id="+b.BrandID+"&product_id=p1&window_views=15")
	if err != nil {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	_, says, ok := strings.Cut(out, "\nthe signed body says:\n")
	for _, want := range []string{`  brand_id: "` + b.BrandID + `"`, `  product_id: "p1"`, "  views_last_15_min: 1", "  views: 1",
		"  purchases_last_24h: 0", "  window_views: 15", "  window_purchases: 24", "  thresholds.viewers: 3", `  reasons.viewers_now: "below_threshold"`, "  viewers_now: null", `  generated_at: "20`} {
		if !ok || !strings.Contains(says, want+"\n") && !strings.Contains(says, want) {
			t.Errorf("verify does not print %q:\n%s", want, out)
		}
	}
	if strings.Index(says, "brand_id") > strings.Index(says, "generated_at") {
		t.Errorf("the figures are not in the body's order:\n%s", says)
	}
}

func TestBodyFigures(t *testing.T) {
	t.Parallel()
	got := bodyFigures([]byte(`{"a":{"b":[1,"x\u001b[31m"],"c":true},"d":null,"e":[]}`), 10)
	want := []string{"a.b[0]: 1", `a.b[1]: "x\x1b[31m"`, "a.c: true", "d: null"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("bodyFigures: %q, want %q", got, want)
	}
	if got := bodyFigures([]byte(`[1,2,3,4]`), 2); len(got) != 3 || got[2] != "... and 2 more values" {
		t.Errorf("figures beyond the bound: %q", got)
	}
	if got := bodyFigures([]byte(`not json`), 10); got != nil {
		t.Errorf("figures of a body that is not JSON: %q", got)
	}
}
