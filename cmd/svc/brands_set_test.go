package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// Thresholds set by `svc brands set` reach a running server's proof and
// enrichment answers.
func TestBrandsSetThresholds(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	b := addBrand(t, dir, "--domain", "shop.example")
	for i, session := range []string{"a", "b"} {
		body := viewBody(b.BrandID, "p1")
		body["product"].(map[string]any)["url"] = "https://shop.example/p1"
		body["context"] = map[string]any{"session_id": session}
		testwait.Eventually(t, func() error {
			st, _, err := post(s.url+"/api/collect/product-view", b.APIKey, "", body)
			if err != nil {
				return err
			}
			return status(fmt.Sprint("view ", i), st, 200)
		})
	}
	viewers := func() any {
		_, m, err := post(s.url+"/api/svc/search-enrich", "", "", map[string]any{"results": []any{map[string]any{"url": "https://shop.example/p1"}}})
		if err != nil {
			t.Fatal(err)
		}
		return m["results"].([]any)[0].(map[string]any)["social_proof"].(map[string]any)["viewers"]
	}
	if v := viewers(); v != nil {
		t.Fatalf("2 viewers shown under the default threshold of 3: %v", v)
	}
	var out struct {
		MinViewers   int      `json:"min_viewers"`
		MinPurchases int      `json:"min_purchases"`
		Domains      []string `json:"domains"`
		Name         string   `json:"name"`
	}
	if err := json.Unmarshal([]byte(runCmd(t, "brands", "set", "--data", dir, "--brand", b.BrandID, "--min-viewers", "2", "--min-purchases", "4", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	if out.MinViewers != 2 || out.MinPurchases != 4 || out.Name != "Test Brand" || len(out.Domains) != 1 {
		t.Fatalf("brands set: %+v", out)
	}
	testwait.Eventually(t, func() error {
		if v := viewers(); v != 2.0 {
			return fmt.Errorf("enrichment shows viewers %v, want 2 under the new threshold", v)
		}
		return nil
	})
	th := proof(t, s.url, b.BrandID, "p1")["thresholds"].(map[string]any)
	if th["viewers"] != 2.0 || th["purchases"] != 4.0 {
		t.Fatalf("proof thresholds %v", th)
	}
}

func TestBrandsSetErrors(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--min-viewers", "2"}, "--brand is required"},
		{[]string{"--brand", b.BrandID}, "nothing to change"},
		{[]string{"--brand", b.BrandID, "--json"}, "nothing to change"},
		{[]string{"--brand", b.BrandID, "--min-viewers", "0", "--min-purchases", "-1"}, "--min-viewers must be at least 1; --min-purchases must be at least 1"},
		{[]string{"--brand", b.BrandID, "--name", " "}, "--name is required"},
		{[]string{"--brand", b.BrandID, "--domain", "https://x.example/"}, "not a host name"},
		{[]string{"--brand", "br_nope", "--min-viewers", "2"}, "not found"},
		{[]string{"--brand", b.BrandID, "--holdout", "51"}, "--holdout must be a whole percent from 0 to 50"},
		{[]string{"--brand", b.BrandID, "--holdout", "-1"}, "--holdout must be a whole percent from 0 to 50"},
	} {
		args := append([]string{"brands", "set", "--data", dir}, tc.args...)
		err := run(context.Background(), args, noEnv, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
	// Flags given change; the others stay.
	runCmd(t, "brands", "set", "--data", dir, "--brand", b.BrandID, "--domain", "a.example", "--domain", "B.example", "--require-key")
	var list []struct {
		Domains    []string `json:"domains"`
		RequireKey bool     `json:"require_key"`
		MinViewers int      `json:"min_viewers"`
	}
	if err := json.Unmarshal([]byte(runCmd(t, "brands", "list", "--data", dir, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if l := list[0]; len(l.Domains) != 2 || l.Domains[1] != "b.example" || !l.RequireKey || l.MinViewers != 3 {
		t.Fatalf("after set: %+v", l)
	}
}

// A holdout set by `svc brands add` or `svc brands set` reaches the
// widget through the proof answer.
func TestBrandsHoldout(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	b := addBrand(t, dir, "--domain", "shop.example", "--holdout", "5")
	testwait.Eventually(t, func() error {
		st, _, err := post(s.url+"/api/collect/product-view", b.APIKey, "", viewBody(b.BrandID, "p1"))
		if err != nil {
			return err
		}
		return status("view", st, 200)
	})
	holdout := func() any { return proof(t, s.url, b.BrandID, "p1")["widget"].(map[string]any)["holdout"] }
	if h := holdout(); h != 5.0 {
		t.Fatalf("proof widget.holdout %v after brands add --holdout 5", h)
	}
	var out struct {
		Holdout int `json:"holdout"`
	}
	if err := json.Unmarshal([]byte(runCmd(t, "brands", "set", "--data", dir, "--brand", b.BrandID, "--holdout", "10", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	if out.Holdout != 10 {
		t.Fatalf("brands set --holdout 10: %+v", out)
	}
	testwait.Eventually(t, func() error {
		if h := holdout(); h != 10.0 {
			return fmt.Errorf("proof widget.holdout %v, want 10", h)
		}
		return nil
	})
}

// svc dashboard link prints a link that signs in once to a running
// server's dashboard; a brand it does not know is refused.
func TestDashboardLink(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	b := addBrand(t, dir)
	var out struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal([]byte(runCmd(t, "dashboard", "link", "--data", dir, "--brand", b.BrandID, "--public-url", s.url, "--json")), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.URL, s.url+"/dashboard/signin?token=") {
		t.Fatalf("link %q", out.URL)
	}
	u, _ := url.Parse(out.URL)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("POST", s.url+"/dashboard/signin", strings.NewReader(url.Values{"token": {u.Query().Get("token")}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin") // as the link's page posts it
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("sign in with the link: %d", resp.StatusCode)
	}
	for _, args := range [][]string{{"--brand", "br_nope"}, {}, {"--brand", b.BrandID, "--operator"}} {
		if err := run(context.Background(), append([]string{"dashboard", "link", "--data", dir}, args...), noEnv, io.Discard, io.Discard); err == nil {
			t.Errorf("dashboard link %v: no error", args)
		}
	}
	if text := runCmd(t, "dashboard", "link", "--data", dir, "--operator"); !strings.Contains(text, "the operator") || !strings.Contains(text, "/dashboard/signin?token=") {
		t.Errorf("operator link: %q", text)
	}
}
