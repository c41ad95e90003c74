package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/bots"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/signing"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/tracker"
)

// clock is the injected time of a fixture.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// sharedDetector builds the bot list once for all fixtures.
var sharedDetector = sync.OnceValues(bots.New)

const browserUA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15"

// fixture is a real server on port 0 over a real SQLite file, with three
// brands: open (domain shop.example), locked (require_key) and closed
// (closed_catalog, domain shop.example), a key for each, and a revoked key.
type fixture struct {
	t       *testing.T
	dir     string
	clock   *clock
	store   *sqlite.Store
	tracker *tracker.Tracker
	auth    *auth.Cache
	srv     *httptest.Server
	keys    map[string]string // brand id -> secret
	revoked string
	opts    httpapi.Options
	keyring *signing.Keyring // signs every fixture's answers
}

func newFixture(t *testing.T, opts ...httpapi.Options) *fixture {
	t.Helper()
	return newFixtureIn(t, sqlitetest.Dir(t), opts...)
}

// newFixtureIn is newFixture with its store in the folder dir.
func newFixtureIn(t *testing.T, dir string, opts ...httpapi.Options) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: dir, clock: &clock{now: t0}, keys: map[string]string{}}
	if len(opts) > 0 {
		f.opts = opts[0]
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, f.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*svc.Brand{
		{ID: "br_open", Name: "Open", Domains: []string{"shop.example"}},
		{ID: "br_locked", Name: "Locked", RequireKey: true, MinViewers: 5, MinPurchases: 2, Widget: svc.WidgetSettings{Font: "inherit", MinCarts: 4}},
		{ID: "br_closed", Name: "Closed", Domains: []string{"shop.example"}, ClosedCatalog: true},
	} {
		b.CreatedAt = t0
		secret, k := svc.NewAPIKey(b.ID, t0)
		if err := store.CreateBrand(ctx, b, k); err != nil {
			t.Fatal(err)
		}
		f.keys[b.ID] = secret
	}
	secret, k := svc.NewAPIKey("br_open", t0)
	if err := store.CreateAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if _, err := store.RevokeAPIKey(ctx, "br_open", secret, t0); err != nil {
		t.Fatal(err)
	}
	f.revoked = secret
	f.store = store
	f.start()
	t.Cleanup(f.stop)
	return f
}

func (f *fixture) start() {
	f.t.Helper()
	if f.store == nil {
		s, err := sqlite.Open(context.Background(), f.dir)
		if err != nil {
			f.t.Fatal(err)
		}
		f.store = s
	}
	detector, err := sharedDetector()
	if err != nil {
		f.t.Fatal(err)
	}
	discard := slog.New(slog.DiscardHandler)
	catalog := enrich.NewCatalog()
	a, err := auth.Open(context.Background(), f.store, 0, discard)
	if err != nil {
		f.t.Fatal(err)
	}
	tr, err := tracker.Open(context.Background(), f.store, tracker.Config{Now: f.clock.Now, Logger: discard, Metrics: f.opts.Metrics, Catalog: catalog})
	if err != nil {
		f.t.Fatal(err)
	}
	kr, err := signing.Open(context.Background(), f.store, 0, f.clock.Now, discard)
	if err != nil {
		f.t.Fatal(err)
	}
	f.tracker, f.auth, f.keyring = tr, a, kr
	opts := f.opts
	opts.IsBot = detector.IsBot
	if opts.Insights == nil {
		opts.Insights = &insights.Cache{Store: f.store, Now: f.clock.Now} // no TTL: every request reads the store
	}
	if opts.Sessions == nil {
		opts.Sessions = f.store
	}
	opts.Keys, opts.Catalog = kr, catalog
	f.srv = httptest.NewServer(checkContract(f.t, httpapi.New(tr, a, discard, opts).Handler()))
}

func (f *fixture) stop() {
	if f.srv == nil {
		return
	}
	f.srv.Close()
	f.tracker.Close()
	f.auth.Close()
	f.keyring.Close()
	f.store.Close()
	f.srv, f.store = nil, nil
}

// restart stops the server and opens everything again from the same folder.
func (f *fixture) restart() { f.stop(); f.start() }

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
	return m
}

// fields returns the field names of a problem's errors, sorted.
func (r response) fields(t *testing.T) []string {
	t.Helper()
	var p httpapi.Problem
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("problem %q: %v", r.body, err)
	}
	var out []string
	for _, e := range p.Errors {
		out = append(out, e.Field)
	}
	sort.Strings(out)
	return out
}

// do sends a request; body is a JSON string or a value to marshal;
// headers alternate names and values.
func (f *fixture) do(method, path string, body any, headers ...string) response {
	f.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			f.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, f.srv.URL+path, rd)
	if err != nil {
		f.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", browserUA) // Go's own agent is on the bot list
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

func (f *fixture) proof(brand, product, extra string, headers ...string) response {
	f.t.Helper()
	return f.do("GET", "/api/svc/product-proof?brand_id="+brand+"&product_id="+product+extra, nil, headers...)
}

// counts reads the proof at default windows and returns views, viewers,
// purchases and units.
func (f *fixture) counts(brand, product string) [4]int {
	f.t.Helper()
	r := f.proof(brand, product, "", "X-svc-Api-Key", f.keys[brand])
	if r.status != 200 {
		f.t.Fatalf("proof %s/%s: %d %s", brand, product, r.status, r.body)
	}
	m := r.json(f.t)
	return [4]int{int(m["views"].(float64)), int(m["viewers"].(float64)), int(m["purchases"].(float64)), int(m["units"].(float64))}
}

func view(brand, product string, ctx map[string]any) map[string]any {
	v := map[string]any{"brand_id": brand, "product": map[string]any{"product_id": product}}
	if ctx != nil {
		v["context"] = ctx
	}
	return v
}

func purchase(brand, order string, lines ...any) map[string]any {
	var items []any
	for i := 0; i+1 < len(lines); i += 2 {
		items = append(items, map[string]any{"product_id": lines[i], "quantity": lines[i+1], "unit_price": 10.5})
	}
	return map[string]any{"brand_id": brand, "order": map[string]any{"order_id": order, "currency": "EUR", "total_value": 21, "items": items}}
}
