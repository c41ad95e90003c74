package dashboard_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/dashboard"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/mail"
	"github.com/svc-project/svc/internal/mail/mailtest"
	"github.com/svc-project/svc/internal/postgres"
	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/tracker"
)

// On PostgreSQL, sessions live in the shared store: a session opened on
// one node works on another, and logging out on one ends it on both.
func TestSessionsAcrossNodes(t *testing.T) {
	t.Parallel()
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
		catalog := enrich.NewCatalog()
		tr, err := tracker.Open(ctx, store, tracker.Config{Catalog: catalog, Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		ins := &insights.Cache{Store: store, Now: tr.Now}
		dash, err := dashboard.New(dashboard.Config{Store: store, Brands: a, Tracker: tr, Insights: ins, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(httpapi.New(tr, a, log, httpapi.Options{Catalog: catalog, Insights: ins, Dashboard: dash}).Handler())
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

// pgNode is one dashboard server on a shared PostgreSQL store, mailing
// through the test's SMTP server.
type pgNode struct {
	store *postgres.Store
	srv   *httptest.Server
	dash  *dashboard.Handler
}

func startPGNode(t *testing.T, dbURL string, smtp *mailtest.Server, now func() time.Time) *pgNode {
	t.Helper()
	ctx := context.Background()
	store, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	a, err := auth.Open(ctx, store, 0, log)
	if err != nil {
		t.Fatal(err)
	}
	catalog := enrich.NewCatalog()
	tr, err := tracker.Open(ctx, store, tracker.Config{Catalog: catalog, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	mailer, err := mail.New(mail.Config{URL: smtp.URL(), From: "svc@shop.example", RootCAs: smtp.RootCAs})
	if err != nil {
		t.Fatal(err)
	}
	ins := &insights.Cache{Store: store, Now: now}
	var handler atomic.Pointer[http.Handler]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*handler.Load()).ServeHTTP(w, r) }))
	dash, err := dashboard.New(dashboard.Config{Store: store, Brands: a, Tracker: tr, Insights: ins, Log: log, Mail: mailer, PublicURL: srv.URL, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	h := httpapi.New(tr, a, log, httpapi.Options{Catalog: catalog, Insights: ins, Dashboard: dash}).Handler()
	handler.Store(&h)
	t.Cleanup(func() { srv.Close(); dash.Wait(); tr.Close(); a.Close(); store.Close() })
	return &pgNode{store, srv, dash}
}

// Two dashboard servers on one PostgreSQL store: a member signed in on
// one sees their sessions on the other; ending a session, or removing the
// member, on one node signs them out on the other at once (well within
// the 1 s the issue asks); and the weekly digest, sent by both nodes at
// once, reaches the member once.
func TestAccountsAcrossNodes(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	ctx := context.Background()
	smtp := mailtest.Start(t, true)
	clock := &clock{now: time.Now().UTC()}
	a := startPGNode(t, dbURL, smtp, clock.Now)
	b := startPGNode(t, dbURL, smtp, clock.Now)
	if err := a.store.CreateBrand(ctx, &svc.Brand{ID: "br_pg", Name: "Postgres Brand", CreatedAt: clock.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{"ann@shop.example", "bob@shop.example"} {
		if _, err := a.store.PutMember(ctx, &svc.Member{BrandID: "br_pg", Email: email, Role: svc.RoleOwner, Digest: true, CreatedAt: clock.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	// A fixture whose server is node A's, for the member helper.
	f := &fixture{t: t, clock: clock, srv: a.srv, mail: smtp}
	laptop, phone := f.member("192.0.2.1"), f.member("192.0.2.2")
	laptop.signIn("ann@shop.example", 0)
	phone.signIn("ann@shop.example", 1)
	onB := func(m *member, path string) page {
		t.Helper()
		return m.get(b.srv.URL + path)
	}
	account := onB(laptop, "/dashboard/account")
	refs := regexp.MustCompile(`name="session" value="([0-9a-f]+)"`).FindAllStringSubmatch(account.body, -1)
	if account.status != 200 || len(refs) != 2 {
		t.Fatalf("node B's account page: %d, %d sessions", account.status, len(refs))
	}
	csrf := csrfRe.FindStringSubmatch(account.body)[1]
	// End the phone's session (not this one, the laptop's) on node B ...
	other := refs[0][1]
	if before := account.body[:strings.Index(account.body, other)]; strings.Contains(before[strings.LastIndex(before, "<tr"):], "(this one)") {
		other = refs[1][1]
	}
	form := url.Values{"csrf": {csrf}, "session": {other}}
	if p := laptop.do("POST", b.srv.URL+"/dashboard/account/sessions/end", form); p.status != http.StatusSeeOther {
		t.Fatalf("end on node B: %d", p.status)
	}
	// ... and node A refuses it on its next request.
	ended := time.Now()
	if p := phone.get("/dashboard/brands/br_pg/"); p.status != http.StatusSeeOther || time.Since(ended) > time.Second {
		t.Fatalf("node A after the session ended on node B: %d after %s", p.status, time.Since(ended))
	}
	t.Logf("a session ended on node B was refused on node A %s later", time.Since(ended).Round(time.Millisecond))
	// Removing Ann on node A signs her out on node B.
	if err := a.store.RemoveMember(ctx, "br_pg", "ann@shop.example"); err != nil {
		t.Fatal(err)
	}
	if p := onB(laptop, "/dashboard/brands/br_pg/"); p.status != http.StatusSeeOther {
		t.Fatalf("node B after the member was removed on node A: %d", p.status)
	}

	// Both nodes send the digests due, at once: Bob gets one.
	var sent [2]int
	var errs [2]error
	var wg sync.WaitGroup
	for i, n := range []*pgNode{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); sent[i], errs[i] = n.dash.SendDigests(ctx) }()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || sent[0]+sent[1] != 1 {
		t.Fatalf("digests sent %v, %v", sent, errs)
	}
	smtp.Wait("bob@shop.example", 0)
	time.Sleep(100 * time.Millisecond)
	n := 0
	for _, m := range smtp.Messages() {
		if m.To[0] == "bob@shop.example" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("bob got %d digests", n)
	}
}
