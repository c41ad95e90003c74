package script_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/chrometest"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/script"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
	"github.com/svc-project/svc/internal/tracker"
	"github.com/svc-project/svc/internal/viewblock"
)

const brandID = "br_shop"

// env is a real svc on one origin, a page server on another, and a headless
// Chromium that loads the pages.
type env struct {
	t       testing.TB
	dir     string
	svc     *httptest.Server
	pages   *httptest.Server
	key     string
	ctx     context.Context // the browser tab
	mu      sync.Mutex
	html    map[string]string // path -> page
	headers map[string]string // extra response headers of every page
	proofs  atomic.Int64      // proof requests the service answered
	// viewDelay holds each product view this long before the service
	// sees it, so that a proof that does not wait for the view misses it.
	viewDelay atomic.Int64
	// latency holds every request to the service this long: a network's
	// round trip, for the time to first paint (BenchmarkWidgetFirstPaint).
	latency atomic.Int64
	errors  chrometest.Errors // exceptions, console errors and log errors in the page
	infos   []string          // console.info messages: the script's debug mode
	// bodies holds the bodies of the events the service received, by path.
	bodies map[string][]string
	// answers holds the status of each event the service answered, by path.
	answers map[string][]int
}

// statusRecorder keeps the status of an answer.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// TestMain ends the browser the tests share (chrometest.Tab).
func TestMain(m *testing.M) { os.Exit(chrometest.Main(m)) }

// newEnv starts the service with brand br_shop, which each of set may
// change first (a holdout, say).
func newEnv(t testing.TB, set ...func(*svc.Brand)) *env {
	t.Helper()
	e := &env{t: t, dir: sqlitetest.Dir(t), html: map[string]string{}, headers: map[string]string{}, bodies: map[string][]string{}, answers: map[string][]int{}}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, e.dir)
	if err != nil {
		t.Fatal(err)
	}
	secret, k := svc.NewAPIKey(brandID, time.Now())
	b := &svc.Brand{ID: brandID, Name: "Shop", Domains: []string{"127.0.0.1"}, CreatedAt: time.Now()}
	for _, f := range set {
		f(b)
	}
	if err := store.CreateBrand(ctx, b, k); err != nil {
		t.Fatal(err)
	}
	e.key = secret
	brands, err := auth.Open(ctx, store, 0, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	catalog := enrich.NewCatalog()
	tr, err := tracker.Open(ctx, store, tracker.Config{Catalog: catalog, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	js, err := script.Build()
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(tr, brands, slog.New(slog.DiscardHandler), httpapi.Options{Catalog: catalog, Script: js}).Handler()
	e.svc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/svc/product-proof" {
			e.proofs.Add(1)
		}
		if d := time.Duration(e.latency.Load()); d > 0 {
			time.Sleep(d)
		}
		if d := time.Duration(e.viewDelay.Load()); d > 0 && r.URL.Path == "/api/collect/product-view" {
			time.Sleep(d)
		}
		if !strings.HasPrefix(r.URL.Path, "/api/collect/") || r.Method != "POST" {
			api.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &statusRecorder{ResponseWriter: w, status: 200}
		api.ServeHTTP(rec, r)
		e.mu.Lock()
		e.bodies[r.URL.Path] = append(e.bodies[r.URL.Path], string(body))
		e.answers[r.URL.Path] = append(e.answers[r.URL.Path], rec.status)
		e.mu.Unlock()
	}))
	e.pages = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		page, ok := e.html[r.URL.Path]
		for k, v := range e.headers {
			w.Header().Set(k, v)
		}
		e.mu.Unlock()
		if r.URL.Path == "/favicon.ico" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	t.Cleanup(func() {
		e.pages.Close()
		e.svc.Close()
		tr.Close()
		brands.Close()
		store.Close()
	})
	e.ctx = e.browser()
	return e
}

func (e *env) browser() context.Context {
	e.errors.Info = func(text string) {
		e.mu.Lock()
		e.infos = append(e.infos, text)
		e.mu.Unlock()
	}
	ctx := chrometest.Tab(e.t, 1000, 700)
	e.errors.Listen(e.t, ctx)
	return ctx
}

// page serves html at path on the page origin and returns its URL.
func (e *env) page(path, html string) string {
	e.mu.Lock()
	e.html[path] = html
	e.mu.Unlock()
	return e.pages.URL + path
}

func (e *env) snippet() string {
	return script.Snippet(e.svc.URL+"/svc.js", "svc", brandID)
}

func (e *env) run(actions ...chromedp.Action[chromedp.Void]) {
	e.t.Helper()
	chrometest.Run(e.t, e.ctx, actions...)
}

// eval evaluates a JavaScript expression (awaiting a promise) into out.
func (e *env) eval(js string, out any) {
	e.t.Helper()
	chrometest.Eval(e.t, e.ctx, js, out)
}

// waitFor evaluates a JavaScript expression until it is truthy.
func (e *env) waitFor(js string) {
	e.t.Helper()
	chrometest.WaitFor(e.t, e.ctx, js)
}

func (e *env) noErrors() {
	e.t.Helper()
	e.errors.None(e.t)
}

// views returns the stored views of a product: session, country, locale, keyed.
// productTitle is the title the store keeps for the product.
func (e *env) productTitle(product string) string {
	e.t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(e.dir, sqlite.FileName))
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	var title sql.NullString
	if err := db.QueryRow(`SELECT title FROM products WHERE product_id = ?`, product).Scan(&title); err != nil {
		e.t.Fatal(err)
	}
	return title.String
}

func (e *env) views(product string) [][4]string {
	e.t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(e.dir, sqlite.FileName))
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	// Views are stored in blocks (internal/viewblock), in id order.
	rows, err := db.Query(`SELECT b.data, p.id FROM view_blocks b, products p WHERE p.product_id = ? ORDER BY b.id`, product)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out [][4]string
	for rows.Next() {
		var data []byte
		var ref int64
		if err := rows.Scan(&data, &ref); err != nil {
			e.t.Fatal(err)
		}
		vs, err := viewblock.Decode(nil, data)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, v := range vs {
			if v.Product == ref {
				out = append(out, [4]string{v.Session, v.Country, v.Locale, fmt.Sprint(map[bool]int{false: 0, true: 1}[v.Keyed])})
			}
		}
	}
	return out
}

// waitViews waits until the product has n stored views.
func (e *env) waitViews(product string, n int) [][4]string {
	e.t.Helper()
	var v [][4]string
	testwait.Eventually(e.t, func() error {
		if v = e.views(product); len(v) < n {
			return fmt.Errorf("%s: %d views stored, want %d", product, len(v), n)
		}
		return nil
	})
	return v
}

// waitProofs waits until the service has answered more than n proof
// requests.
func (e *env) waitProofs(n int64) {
	e.t.Helper()
	testwait.Eventually(e.t, func() error {
		if got := e.proofs.Load(); got <= n {
			return fmt.Errorf("%d proof requests, want more than %d", got, n)
		}
		return nil
	})
}

// harness goes first in a page's head, so that a test sees what svc.js
// does without waiting for it. __net lists the paths of the page's fetches
// and counts those settled. __clock holds back every timer of a second or
// more: pending(ms) counts those set for ms, and fire(ms) runs them now.
const harness = `<script>(()=>{
const net = window.__net = {sent: [], settled: 0}, realFetch = window.fetch;
window.fetch = function (u) {
  net.sent.push(new URL(String(u), location.href).pathname);
  return realFetch.apply(window, arguments).finally(() => net.settled++);
};
const timers = new Map(), realSet = window.setTimeout, realClear = window.clearTimeout;
let next = 1e9;
window.setTimeout = function (fn, ms, ...args) {
  if (!(ms >= 1000)) return realSet.apply(window, arguments);
  timers.set(next, {fn, ms, args});
  return next++;
};
window.clearTimeout = function (id) {
  if (!timers.delete(id)) realClear.apply(window, arguments);
};
window.__clock = {
  pending: ms => [...timers.values()].filter(t => t.ms === ms).length,
  fire: ms => [...timers].forEach(([id, t]) => { if (t.ms === ms && timers.delete(id)) t.fn(...t.args); }),
};
})()</script>`

// fetches returns how many fetches of the page went to path, and whether
// every fetch of the page has settled.
func (e *env) fetches(path string) (n int, settled bool) {
	e.t.Helper()
	var r struct {
		N       int
		Settled bool
	}
	e.eval(`({N: __net.sent.filter(p => p == "`+path+`").length, Settled: __net.settled == __net.sent.length})`, &r)
	return r.N, r.Settled
}

// seed sends keyed views from n other sessions and m purchases.
func (e *env) seed(product string, viewers, purchases int) {
	e.t.Helper()
	for i := 0; i < viewers; i++ {
		e.post("/api/collect/product-view", fmt.Sprintf(`{"brand_id":%q,"product":{"product_id":%q},"context":{"session_id":"seed-%d"}}`, brandID, product, i))
	}
	for i := 0; i < purchases; i++ {
		e.post("/api/collect/product-purchase", fmt.Sprintf(`{"brand_id":%q,"order":{"order_id":"%s-%d","items":[{"product_id":%q,"quantity":1}]}}`, brandID, product, i, product))
	}
}

func (e *env) post(path, body string) {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.svc.URL+path, strings.NewReader(body))
	req.Header.Set("X-svc-Api-Key", e.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		e.t.Fatalf("seed %s: %v %v", path, res, err)
	}
	res.Body.Close()
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func productPage(lang, snippet, extraHead, body string) string {
	return `<!doctype html><html lang="` + lang + `"><head><meta charset="utf-8"><title>Shop</title>` + extraHead +
		`</head><body>` + snippet + body + `</body></html>`
}

// shiftObserver sums the page's layout shifts into window.shifts.
const shiftObserver = `<script>window.shifts=0;new PerformanceObserver(l=>l.getEntries().forEach(x=>window.shifts+=x.value)).observe({type:"layout-shift",buffered:true})</script>`

const widgetText = `(()=>{const h=document.querySelector('[data-svc-proof]')||document.body.lastElementChild;const w=h&&h.shadowRoot&&h.shadowRoot.querySelector('.w');return w&&!w.hidden?[...w.querySelectorAll('p')].map(p=>p.textContent).join('|'):''})()`

func TestEmbedQueuesBeforeLoadAndTracksTheView(t *testing.T) {
	e := newEnv(t)
	url := e.page("/p", productPage("de-AT",
		e.snippet()+`<script>svc("product",{product_id:"p-queued",title:"Queued"});window.queuedBefore=typeof svc.loaded</script>`,
		`<script id="first">window.firstRan=1</script>`, `<div data-svc-proof></div>`))
	e.run(chromedp.Navigate(url))
	var before string
	e.eval("window.queuedBefore", &before)
	if before != "undefined" {
		t.Fatalf("the call was not made before svc.js loaded (svc.loaded was %s)", before)
	}
	// The async element went before the page's first script.
	var first string
	e.eval(`document.scripts[0].src+" "+document.scripts[0].async+" "+document.scripts[1].id`, &first)
	if first != e.svc.URL+"/svc.js true first" {
		t.Fatalf("first scripts: %q", first)
	}
	v := e.waitViews("p-queued", 1)
	if v[0][0] == "" || v[0][1] != "AT" || v[0][2] != "de-AT" || v[0][3] != "0" {
		t.Fatalf("stored view: %v, want a session, AT, de-AT, anonymous", v[0])
	}
	// A reload is another page view of the same session.
	e.run(chromedp.Reload())
	v = e.waitViews("p-queued", 2)
	if len(v) != 2 || v[1][0] != v[0][0] {
		t.Fatalf("after reload: %v", v)
	}
	var cookies string
	e.eval("document.cookie", &cookies)
	if cookies != "" {
		t.Fatalf("cookies set: %q", cookies)
	}
	e.noErrors()
}

func TestDoubleEmbedAndTakenName(t *testing.T) {
	e := newEnv(t)
	ld := `<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebPage","name":"x"},{"@type":["Product"],"name":"Graph Shoe","sku":"G-1","productID":"p-graph","offers":{"@type":"Offer","price":"10"}}]}</script>`
	e.run(chromedp.Navigate(e.page("/twice", productPage("en", e.snippet()+e.snippet(), harness+ld, ""))))
	e.waitViews("p-graph", 1)
	// The load event waits for the async script, which sends its view as
	// it runs: once loaded, the page has sent every view it ever will.
	e.waitFor(`document.readyState == "complete"`)
	var n int
	e.eval(`[...document.scripts].filter(s=>s.src.endsWith('/svc.js')).length`, &n)
	if sent, _ := e.fetches("/api/collect/product-view"); n != 1 || sent != 1 {
		t.Fatalf("double embed: %d script elements, %d views sent", n, sent)
	}
	// A page that already has the name keeps it untouched: no script, no call.
	for _, taken := range []string{
		`<script>window.svc=function(){window.calls=(window.calls||0)+1}</script>`,
		`<div id="svc"></div>`, // named elements are globals too
	} {
		e.run(chromedp.Navigate(e.page("/taken", productPage("en", taken+e.snippet(), "", ""))))
		var calls int
		e.eval(`document.querySelectorAll('script[src$="/svc.js"]').length*100+(window.calls||0)`, &calls)
		if calls != 0 {
			t.Fatalf("taken name %s: got %d, want no script inserted and no call", taken, calls)
		}
	}
	e.noErrors()
}

func TestWidget(t *testing.T) {
	e := newEnv(t)
	e.seed("p-widget", 5, 2)
	e.seed("p-few", 1, 0)
	ld := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","productID":"p-widget","name":"Widget Shoe"}</script>`
	tests := []struct {
		name, lang, init, product string
		want                      string
	}{
		{"english", "en", "", "p-widget", "6 people viewed this in the last hour|2 purchases in the last 24 hours"},
		{"german", "de", `svc("init",{brandId:"` + brandID + `",locale:"de-DE"});`, "p-widget", "6 Personen haben diesen Artikel in der letzten Stunde angesehen|2 Käufe in den letzten 24 Stunden"},
		{"french", "fr-FR", "", "p-widget", "6 personnes ont consulté cet article au cours de la dernière heure|2 achats au cours des 24 dernières heures"},
		{"spanish, 15 min window", "es-ES", `svc("init",{brandId:"` + brandID + `",widget:{windowViews:15}});`, "p-widget", "6 personas vieron este artículo en los últimos 15 minutos|2 compras en las últimas 24 horas"},
		{"below thresholds", "en", "", "p-few", ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			head := strings.ReplaceAll(ld, "p-widget", tt.product)
			url := e.page(fmt.Sprint("/w", i), productPage(tt.lang, e.snippet()+"<script>"+tt.init+"</script>", head, `<div data-svc-proof style="min-height:3.625rem"></div><p id="after">after</p>`+shiftObserver))
			before := e.proofs.Load()
			e.run(chromedp.Navigate(url)) // the same tab: one session, counted once
			e.waitProofs(before)
			if tt.want != "" {
				e.waitFor(widgetText + ` == ` + strconvQuote(tt.want))
			}
			var got string
			e.eval(widgetText, &got)
			if got != tt.want {
				t.Fatalf("widget says %q, want %q", got, tt.want)
			}
			var live string
			e.eval(`(()=>{const w=document.querySelector('[data-svc-proof]').shadowRoot.querySelector('.w');const r=w.querySelector('.r');return r.getAttribute('role')+' '+r.getAttribute('aria-live')})()`, &live)
			if live != "status polite" {
				t.Fatalf("live region: %q", live)
			}
			// docs/client-script.md: min-height 3.625rem keeps the page
			// still with both sentences shown, and the widget fits in it.
			var height, shifts float64
			e.eval(`(()=>{const w=document.querySelector('[data-svc-proof]').shadowRoot.querySelector('.w');return w.hidden?0:w.getBoundingClientRect().height})()`, &height)
			e.eval(`window.shifts`, &shifts)
			if lines := strings.Count(tt.want, "|") + 1; tt.want != "" && lines == 2 && height != 58 || height > 58 || shifts != 0 {
				t.Fatalf("the widget is %g px tall and shifted the page by %g, want at most 58 px (58 on two lines) and no shift", height, shifts)
			}
			e.noErrors()
		})
	}
}

func TestCornerBadgeAndReducedMotion(t *testing.T) {
	e := newEnv(t)
	e.seed("p-corner", 4, 0)
	page := productPage("en", e.snippet()+`<script>svc("product",{product_id:"p-corner"})</script>`, "",
		`<p style="height:2000px">content</p>`+shiftObserver)
	for _, reduced := range []bool{false, true} {
		feature := "no-preference"
		if reduced {
			feature = "reduce"
		}
		if _, err := chromedp.Call(e.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: feature}},
		}); err != nil {
			t.Fatal(err)
		}
		e.run(chromedp.Navigate(e.page("/corner", page)))
		e.waitFor(`document.body.lastElementChild.shadowRoot&&document.body.lastElementChild.shadowRoot.querySelector('.w:not([hidden]):not(.e)')`)
		var got string
		e.eval(`(()=>{const w=document.body.lastElementChild.shadowRoot.querySelector('.w'),s=getComputedStyle(w);return s.position+' '+getComputedStyle(w.querySelector('p')).animationName+' '+window.shifts})()`, &got)
		want := "fixed f 0"
		if reduced {
			want = "fixed none 0"
		}
		if got != want {
			t.Fatalf("reduced motion %v: position, animation, layout shift = %q, want %q", reduced, got, want)
		}
	}
	e.noErrors()
}

func TestCrossOriginUnderStrictCSP(t *testing.T) {
	e := newEnv(t)
	e.seed("p-csp", 3, 1)
	e.headers["Content-Security-Policy"] = "default-src 'none'; script-src 'nonce-r4nd0m' " + e.svc.URL + "; connect-src " + e.svc.URL + "; style-src 'none'; img-src 'none'"
	snippet := strings.Replace(e.snippet(), "<script>", `<script nonce="r4nd0m">`, 1)
	e.run(chromedp.Navigate(e.page("/csp", productPage("en", snippet+`<script nonce="r4nd0m">svc("product",{product_id:"p-csp"})</script>`, "", `<div data-svc-proof></div>`))))
	e.waitViews("p-csp", 4)
	e.waitFor(`document.querySelector('[data-svc-proof]').shadowRoot&&document.querySelector('[data-svc-proof]').shadowRoot.querySelector('.w:not([hidden]):not(.e)')`)
	var got string
	e.eval(widgetText, &got)
	if got != "4 people viewed this in the last hour|1 purchase in the last 24 hours" {
		t.Fatalf("widget under CSP: %q", got)
	}
	// A cross-origin request that needs a preflight works too.
	var status int
	e.eval(`fetch("`+e.svc.URL+`/api/collect/product-view",{method:"POST",headers:{"Content-Type":"application/json"},body:JSON.stringify({brand_id:"`+brandID+`",product:{product_id:"p-csp"}})}).then(r=>r.status)`, &status)
	if status != 200 {
		t.Fatalf("preflighted POST: %d", status)
	}
	// A thank-you page reports the order; the proof promise sees it.
	var ok bool
	e.eval(`svc("purchase",{order_id:"csp-1",currency:"EUR",items:[{product_id:"p-csp",quantity:2,unit_price:9.5}]});true`, &ok)
	testwait.Eventually(t, func() error {
		var proof map[string]any
		if e.eval(`svc("proof")`, &proof); proof["views"] != 5.0 || proof["purchases"] != 2.0 || proof["units"] != 3.0 {
			return fmt.Errorf("proof promise after a purchase: %v, want 5 views, 2 purchases, 3 units", proof)
		}
		return nil
	})
	e.noErrors() // CSP violations are logged as errors
}

func TestDeadAndSlowService(t *testing.T) {
	e := newEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	// The slow service holds every request until the test ends: a page
	// whose load waited for it would never finish loading.
	var held atomic.Int64
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		held.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) }) // before slow.Close, which waits for its requests
	body := `<div data-svc-proof></div><p id="after">after</p>`
	for _, tt := range []struct {
		name, head string
		fetches    int // the page's fetches, all settled, once svc.js has done all it will
	}{
		{"script unreachable", script.Snippet(dead+"/svc.js", "svc", brandID), 0},
		{"API unreachable", e.snippet() + `<script>svc("init",{brandId:"` + brandID + `",apiBase:"` + dead + `"});svc("product",{product_id:"p"});svc("proof",function(){})</script>`, 3},
		{"API slow", e.snippet() + `<script>svc("init",{brandId:"` + brandID + `",apiBase:"` + slow.URL + `"});svc("product",{product_id:"p"})</script>`, -1},
		{"API errors", e.snippet() + `<script>svc("init",{brandId:"br_unknown"});svc("product",{product_id:"p"});svc("proof",function(){})</script>`, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			heldBefore := held.Load()
			e.run(chromedp.Navigate(e.page("/dead", productPage("en", tt.head, harness, body))))
			e.waitFor(`document.readyState=="complete"`)
			// Wait for what svc.js does after the load: a view and two proofs
			// that fail, or a view the slow service holds.
			testwait.Eventually(t, func() error {
				var n struct{ Sent, Settled int }
				e.eval(`({Sent: __net.sent.length, Settled: __net.settled})`, &n)
				if tt.fetches < 0 {
					if n.Sent != 1 || held.Load() == heldBefore {
						return fmt.Errorf("%d fetches, the slow service holds %d: want the view held", n.Sent, held.Load()-heldBefore)
					}
				} else if n.Sent != tt.fetches || n.Settled != n.Sent {
					return fmt.Errorf("%d fetches, %d settled, want %d settled", n.Sent, n.Settled, tt.fetches)
				}
				return nil
			})
			var state string
			e.eval(`document.readyState+' '+document.getElementById('after').textContent+' '+!!(document.querySelector('[data-svc-proof]').shadowRoot&&document.querySelector('[data-svc-proof]').shadowRoot.querySelector('.w:not([hidden]):not(.e)'))`, &state)
			if state != "complete after false" {
				t.Fatalf("page state %q, want it loaded, its content intact and no widget", state)
			}
			// Failed network requests are logged by Chromium itself; what must
			// not appear is an exception or a console call of ours.
			for _, m := range e.errors.Take() {
				if !strings.HasPrefix(m, "log: Failed to load resource") {
					t.Errorf("page error: %s", m)
				}
			}
		})
	}
}

// TestNoPollingWhileHidden runs the widget's refresh timer on demand (see
// harness) rather than waiting for it.
func TestNoPollingWhileHidden(t *testing.T) {
	e := newEnv(t)
	e.seed("p-poll", 3, 0)
	e.run(chromedp.Navigate(e.page("/poll", productPage("en",
		e.snippet()+`<script>svc("init",{brandId:"`+brandID+`",widget:{refresh:1}});svc("product",{product_id:"p-poll"})</script>`, harness, `<div data-svc-proof></div>`))))
	const proofPath = "/api/svc/product-proof"
	// refreshed waits until the page has fetched n proofs, all answered,
	// and set its next refresh a second ahead, as refresh:1 asks.
	refreshed := func(n int) {
		t.Helper()
		testwait.Eventually(t, func() error {
			got, settled := e.fetches(proofPath)
			var pending int
			e.eval(`__clock.pending(1000)`, &pending)
			if got != n || !settled || pending != 1 {
				return fmt.Errorf("%d proofs fetched (all answered: %v), %d refreshes due in a second; want %d, answered, and 1", got, settled, pending, n)
			}
			return nil
		})
	}
	fire := func() {
		var ok bool
		e.eval(`__clock.fire(1000),true`, &ok)
	}
	setVisibility := func(state string) {
		var ok bool
		e.eval(`Object.defineProperty(document,"visibilityState",{configurable:true,get:()=>"`+state+`"});document.dispatchEvent(new Event("visibilitychange"));true`, &ok)
	}
	refreshed(1) // the first draw
	for n := 2; n <= 3; n++ {
		fire()
		refreshed(n)
	}
	setVisibility("hidden")
	fire() // a refresh due now does nothing in a hidden tab
	fire()
	if got, _ := e.fetches(proofPath); got != 3 {
		t.Fatalf("%d proofs fetched while the tab was hidden", got-3)
	}
	setVisibility("visible")
	refreshed(4)
	e.noErrors()
}

func TestTrackingEdgeCases(t *testing.T) {
	e := newEnv(t)
	ld := func(json string) string { return `<script type="application/ld+json">` + json + `</script>` }
	tests := []struct {
		name, lang, head, body string
		product                string // whose view must arrive
		country                string
	}{
		{"mainEntity of a page", "en-GB", ld(`{"@context":"https://schema.org","@type":"ItemPage","mainEntity":{"@type":"Product","sku":"p-main","name":"Main"}}`), "", "p-main", "GB"},
		{"ProductGroup; region from the browser", "en", ld(`{"@type":"http://schema.org/ProductGroup","productGroupID":"p-group","name":{"@value":"odd"}}`), "", "p-group", "US"},
		{"script subtag", "zh-Hant-TW", "", `<script>svc("product",{product_id:"p-zh",sku:123})</script>`, "p-zh", "TW"},
		{"a second init adds options", "en", "", `<script>svc("init",{locale:"fr-FR"});svc("product",{product_id:"p-init2"})</script>`, "p-init2", "FR"},
		{"a list item as container", "en", "", `<ul><li data-svc-proof></li></ul><script>svc("product",{product_id:"p-li"})</script>`, "p-li", "US"},
		{"single-page app", "en", "", `<script>svc("product",{product_id:"p-spa-1"});setTimeout(()=>svc("product",{product_id:"p-spa-2"}),300)</script>`, "p-spa-2", "US"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			e.run(chromedp.Navigate(e.page(fmt.Sprint("/edge", i), productPage(tt.lang, e.snippet(), tt.head, tt.body))))
			v := e.waitViews(tt.product, 1)
			if v[0][1] != tt.country {
				t.Fatalf("view %v, want country %q", v[0], tt.country)
			}
			e.noErrors()
		})
	}
	// A name broken over lines and tabs, as page templates write them, is
	// sent as one line: the API refuses control characters in titles.
	e.run(chromedp.Navigate(e.page("/ws", productPage("en", e.snippet(),
		ld(`{"@type":"Product","productID":"p-ws","name":"  Trail\n\tRunner  2 \u0007"}`), ""))))
	e.waitViews("p-ws", 1)
	if title := e.productTitle("p-ws"); title != "Trail Runner 2" {
		t.Fatalf("title stored as %q, want %q", title, "Trail Runner 2")
	}
	// The custom-rendering example of docs/client-script.md: proof queued
	// before load on a page whose product comes from JSON-LD. The callback
	// runs after the page's own view was answered, so it counts this visit
	// even when the view is slow.
	e.seed("p-custom", 3, 0)
	e.viewDelay.Store(int64(300 * time.Millisecond))
	defer e.viewDelay.Store(0)
	page := productPage("en", e.snippet()+`<script>svc("init",{widget:{show:false}});svc("proof",function(p,err){window.got=p?p.viewers:String(err)})</script>`,
		ld(`{"@type":"Product","productID":"p-custom"}`), "")
	e.run(chromedp.Navigate(e.page("/custom", page)))
	e.waitFor(`window.got!==undefined`)
	var got any
	e.eval(`window.got`, &got)
	if got != 4.0 {
		t.Fatalf("queued proof callback got %v viewers, want 4: the 3 seeded and this page's own", got)
	}
	e.noErrors()
}

// In debug mode the console says why the widget shows nothing: counts
// below the thresholds, an origin that is not the brand's, an unknown
// brand. Without it the script says nothing.
func TestDebugSaysWhyTheWidgetIsEmpty(t *testing.T) {
	e := newEnv(t)
	e.seed("p-few", 1, 0)
	other := strings.Replace(e.pages.URL, "127.0.0.1", "localhost", 1) // not one of the brand's domains
	debugTag := strings.Replace(e.snippet(), "<script>", "<script data-svc-debug>", 1)
	for _, tt := range []struct {
		name, base, head string
		want             string // in a console.info of the script; "" for none
	}{
		{"quiet without debug", e.pages.URL, e.snippet() + `<script>svc("product",{product_id:"p-few"})</script>`, ""},
		{"below thresholds", e.pages.URL, debugTag + `<script>svc("product",{product_id:"p-few"})</script>`,
			"svc: below thresholds: viewers 2/3, purchases 0/1"},
		{"origin refused", other, e.snippet() + `<script>svc("debug");svc("product",{product_id:"p-few"})</script>`,
			`svc: view refused: 401 origin "` + other + `" is not one of brand "` + brandID + `"'s domains; svc brands set --brand ` + brandID + ` --add-domain localhost adds it`},
		{"brand unknown", e.pages.URL, e.snippet() + `<script>svc("init",{brandId:"br_unknown"});svc("debug");svc("product",{product_id:"p-few"})</script>`,
			`svc: no proof: 404 brand "br_unknown" not found`},
		{"no product", e.pages.URL, debugTag, `svc: no product: svc("product", ...) or JSON-LD`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			e.mu.Lock()
			e.infos = nil
			e.mu.Unlock()
			before := e.proofs.Load()
			e.run(chromedp.Navigate(tt.base + strings.TrimPrefix(e.page("/debug", productPage("en", tt.head, "", `<div data-svc-proof></div>`)), e.pages.URL)))
			logged := func() string {
				e.mu.Lock()
				defer e.mu.Unlock()
				return strings.Join(e.infos, "\n")
			}
			if tt.want == "" {
				for deadline := time.Now().Add(10 * time.Second); e.proofs.Load() == before; time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("no proof request")
					}
				}
				time.Sleep(300 * time.Millisecond) // the proof's answer is drawn
				if l := logged(); l != "" {
					t.Fatalf("the script logged without debug: %s", l)
				}
				return
			}
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logged(), tt.want); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("console said:\n%s\nwant a line with %s", logged(), tt.want)
				}
			}
			e.errors.Take() // Chromium logs the refused requests itself
		})
	}
}
