package dashboard_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/dashboard"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/postgres"
	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/tracker"
)

// On PostgreSQL, sessions live in the shared store: a session opened on
// one node works on another, and logging out on one ends it on both.
func TestSessionsAcrossNodes(t *testing.T) {
	dbURL := pgtest.URL(t)
	ctx := context.Background()
	node := func() (*postgres.Store, *httptest.Server) {
		store, err := postgres.Open(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		log := slog.New(slog.DiscardHandler)
		a, err := auth.Open(ctx, store, 0, log)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := tracker.Open(ctx, store, tracker.Config{Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		ins := &insights.Cache{Store: store, Now: tr.Now}
		dash, err := dashboard.New(dashboard.Config{Store: store, Brands: a, Tracker: tr, Insights: ins, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(httpapi.New(tr, a, log, httpapi.Options{Insights: ins, Dashboard: dash}).Handler())
		t.Cleanup(func() { srv.Close(); tr.Close(); a.Close(); store.Close() })
		return store, srv
	}
	storeA, srvA := node()
	if err := storeA.CreateBrand(ctx, &svc.Brand{ID: "br_pg", Name: "Postgres Brand"}, nil); err != nil {
		t.Fatal(err)
	}
	_, srvB := node()
	token, link := svc.NewSignInLink("br_pg", time.Now())
	if err := storeA.CreateSignInLink(ctx, link); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, target string, form url.Values, cookie string) (*http.Response, string) {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, target, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Sec-Fetch-Site", "same-origin") // as a browser posts the page's form
		}
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: dashboard.CookieName, Value: cookie})
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, _ := do("POST", srvA.URL+"/dashboard/signin", url.Values{"token": {token}}, "")
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("sign in on node A: %d", resp.StatusCode)
	}
	cookie := resp.Cookies()[0].Value
	if resp, _ := do("POST", srvB.URL+"/dashboard/signin", url.Values{"token": {token}}, ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the same link on node B: %d", resp.StatusCode)
	}
	resp, page := do("GET", srvB.URL+"/dashboard/brands/br_pg/settings", nil, cookie)
	if resp.StatusCode != 200 || !strings.Contains(page, "Postgres Brand") {
		t.Fatalf("node A's session on node B: %d", resp.StatusCode)
	}
	csrf := csrfRe.FindStringSubmatch(page)[1]
	if resp, _ := do("POST", srvB.URL+"/dashboard/logout", url.Values{"csrf": {csrf}}, cookie); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout on node B: %d", resp.StatusCode)
	}
	if resp, _ := do("GET", srvA.URL+"/dashboard/brands/br_pg/", nil, cookie); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("node A after logout on node B: %d", resp.StatusCode)
	}
}
