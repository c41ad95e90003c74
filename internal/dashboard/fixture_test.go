package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
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
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/tracker"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }
func (c *clock) Set(t time.Time)     { c.mu.Lock(); c.now = t; c.mu.Unlock() }

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// syncBuffer is a log that the server writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// fixture is the whole server over a real SQLite file, on port 0, with
// two brands that have events: Acme (br_acme) and Other (br_other).
type fixture struct {
	t     testing.TB
	clock *clock
	store *sqlite.Store
	srv   *httptest.Server
	auth  *auth.Cache
	keys  map[string]string
	log   *syncBuffer
	mail  *mailtest.Server // a real SMTP server on port 0
	dash  *dashboard.Handler
}

func newFixture(t *testing.T, configure ...func(*dashboard.Config)) *fixture {
	t.Helper()
	return newFixtureAt(t, "127.0.0.1", configure...)
}

// newFixtureAt is newFixture whose public URL names host for the server
// (localhost: a WebAuthn relying party needs a host name, not an address);
// configure changes the dashboard's Config before it is made.
func newFixtureAt(t *testing.T, host string, configure ...func(*dashboard.Config)) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{t: t, clock: &clock{now: t0}, keys: map[string]string{}, log: &syncBuffer{}}
	store, err := sqlite.Open(ctx, sqlitetest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	f.store = store
	for _, b := range []*svc.Brand{
		{ID: "br_acme", Name: "Acme", Domains: []string{"acme.example"}, MinViewers: 2, MinPurchases: 1},
		{ID: "br_other", Name: "Other", Domains: []string{"other.example"}, MinViewers: 3, MinPurchases: 1},
	} {
		b.CreatedAt = t0
		secret, k := svc.NewAPIKey(b.ID, t0)
		if err := store.CreateBrand(ctx, b, k); err != nil {
			t.Fatal(err)
		}
		f.keys[b.ID] = secret
	}
	// Every secret reaches the log if anything logs it.
	log := slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a, err := auth.Open(ctx, store, 0, log)
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	catalog := enrich.NewCatalog()
	tr, err := tracker.Open(ctx, store, tracker.Config{Catalog: catalog, Now: f.clock.Now, Logger: log, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	f.auth = a
	ins := &insights.Cache{Store: store, Now: f.clock.Now}
	f.mail = mailtest.Start(t, false)
	mailer, err := mail.New(mail.Config{URL: f.mail.URL(), From: "svc <svc@shop.example>", RootCAs: f.mail.RootCAs, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	// The server first, so that the dashboard knows its address (links in
	// mail are made from it); its handler follows.
	var handler atomic.Pointer[http.Handler]
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*handler.Load()).ServeHTTP(w, r) }))
	// The test is the trusted proxy: X-Forwarded-For says the client address.
	proxies := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	cfg := dashboard.Config{Store: store, Brands: a, Tracker: tr, Insights: ins, Metrics: m, Log: log, Now: f.clock.Now,
		Mail: mailer, PublicURL: strings.Replace(f.srv.URL, "127.0.0.1", host, 1), ClientIP: func(r *http.Request) netip.Addr { return httpapi.ClientIP(r, proxies) },
		ProofJSON: httpapi.ProofJSON, RecentJSON: httpapi.RecentJSON, ProofQuery: httpapi.ParseProofQuery}
	for _, c := range configure {
		c(&cfg)
	}
	dash, err := dashboard.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.dash = dash
	h := httpapi.New(tr, a, log, httpapi.Options{Catalog: catalog, Insights: ins, Dashboard: dash, Metrics: m}).Handler()
	handler.Store(&h)
	t.Cleanup(func() {
		f.srv.Close()
		dash.Wait()
		tr.Close()
		a.Close()
		store.Close()
	})
	f.seed()
	return f
}

// seed sends a few views and orders through the API, as a shop would.
func (f *fixture) seed() {
	for i, s := range []string{"s1", "s2", "s3"} {
		f.api("POST", "/api/collect/product-view", "br_acme", map[string]any{"brand_id": "br_acme",
			"product": map[string]any{"product_id": "shoe", "title": "Red Shoe"}, "context": map[string]any{"session_id": s}})
		if i == 0 {
			f.api("POST", "/api/collect/product-view", "br_acme", map[string]any{"brand_id": "br_acme",
				"product": map[string]any{"product_id": "hat", "title": "Blue Hat"}, "context": map[string]any{"session_id": s}})
		}
	}
	f.api("POST", "/api/collect/product-purchase", "br_acme", map[string]any{"brand_id": "br_acme",
		"order": map[string]any{"order_id": "o1", "currency": "EUR", "total_value": 59.9, "items": []any{
			map[string]any{"product_id": "shoe", "quantity": 1, "unit_price": 59.9}}}, "context": map[string]any{"session_id": "s1"}})
	f.api("POST", "/api/collect/product-cart", "br_acme", map[string]any{"brand_id": "br_acme",
		"product": map[string]any{"product_id": "shoe"}, "context": map[string]any{"session_id": "s2"}})
	f.api("POST", "/api/collect/product-view", "br_other", map[string]any{"brand_id": "br_other",
		"product": map[string]any{"product_id": "secret-widget", "title": "Other's Secret Product"}})
}

func (f *fixture) api(method, path, brand string, body any) *http.Response {
	f.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, f.srv.URL+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if brand != "" {
		req.Header.Set("X-svc-Api-Key", f.keys[brand])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		f.t.Fatalf("%s %s: %d", method, path, resp.StatusCode)
	}
	return resp
}

// link makes a sign-in link as svc dashboard link does; brand "" is the operator's.
func (f *fixture) link(brand string) string {
	f.t.Helper()
	token, l := svc.NewSignInLink(brand, f.clock.Now())
	if err := f.store.CreateSignInLink(context.Background(), l); err != nil {
		f.t.Fatal(err)
	}
	return token
}

// browser is a client that keeps its cookie and does not follow redirects.
type browser struct {
	f      *fixture
	cookie string
}

type page struct {
	status int
	body   string
	header http.Header
}

func (b *browser) do(method, path string, form url.Values, headers ...string) page {
	b.f.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, b.f.srv.URL+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method == http.MethodPost {
		req.Header.Set("Origin", b.f.srv.URL) // as a browser sends on a form's POST
	}
	if b.cookie != "" {
		req.AddCookie(&http.Cookie{Name: dashboard.CookieName, Value: b.cookie})
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i]) // "" takes the header away
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		b.f.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	for _, c := range resp.Cookies() {
		if c.Name == dashboard.CookieName {
			b.cookie = c.Value
		}
	}
	return page{resp.StatusCode, string(raw), resp.Header}
}

func (b *browser) get(path string) page { return b.do("GET", path, nil) }

// signIn signs in with a fresh link of the brand ("" for the operator).
func (f *fixture) signIn(brand string) *browser {
	f.t.Helper()
	b := &browser{f: f}
	token := f.link(brand)
	if p := b.get("/dashboard/signin?token=" + url.QueryEscape(token)); p.status != 200 || !strings.Contains(p.body, token) {
		f.t.Fatalf("sign-in page: %d", p.status)
	}
	if p := b.do("POST", "/dashboard/signin", url.Values{"token": {token}}); p.status != 303 || b.cookie == "" {
		f.t.Fatalf("sign in: %d %s", p.status, p.body)
	}
	return b
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the form token from a page.
func (b *browser) csrf(path string) string {
	b.f.t.Helper()
	m := csrfRe.FindStringSubmatch(b.get(path).body)
	if m == nil {
		b.f.t.Fatalf("no CSRF token on %s", path)
	}
	return m[1]
}

var newKeyRe = regexp.MustCompile(`<code id="new-key">(sk_[0-9A-Za-z]+)</code>`)

func decode(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) proofStatus(key string) int { return f.proofStatusOf("br_acme", key) }

func (f *fixture) proofStatusOf(brand, key string) int {
	req, _ := http.NewRequest("GET", f.srv.URL+"/api/svc/product-proof?brand_id="+brand+"&product_id=shoe", nil)
	req.Header.Set("X-svc-Api-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
