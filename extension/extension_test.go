package extension_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/extension"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/chrometest"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/httpsig"
	"github.com/svc-project/svc/internal/signing"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/testwait"
	"github.com/svc-project/svc/internal/tracker"
)

// world is a real svc, a proxy in front of it that can tamper with its
// answers, shops and search engines on other origins, and Chromium with
// the extension, packed for that svc, loaded unpacked.
type world struct {
	t       *testing.T
	svc     *httptest.Server
	proxy   *httptest.Server
	pages   *httptest.Server // shops, on http://127.0.0.1
	engines *httptest.Server // www.google.com and www.bing.com, over TLS
	tamper  atomic.Int32     // 0: none, tamperDigest, tamperBody, tamperReplay
	saved   struct {         // the last genuine product-enrich answer through the proxy
		header http.Header
		body   []byte
	}
	ctx      context.Context
	extID    string
	mu       sync.Mutex
	requests []svcRequest      // what reached svc
	errors   chrometest.Errors // exceptions and console errors of the pages
}

// How the proxy tampers with svc's answers.
const (
	tamperBody   = 1 // the body only
	tamperDigest = 2 // the body and its Content-Digest
	tamperReplay = 3 // another request's answer, untouched
)

type svcRequest struct {
	path, body, cookie, digest string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t}
	ctx := context.Background()
	dir := t.TempDir()
	store, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, b := range []*svc.Brand{
		{ID: "br_alpha", Name: "Alpha Shop", Domains: []string{"alpha.example"}},
		{ID: "br_beta", Name: "Beta Store", Domains: []string{"beta.example"}},
	} {
		b.CreatedAt = time.Now()
		secret, k := svc.NewAPIKey(b.ID, time.Now())
		if err := store.CreateBrand(ctx, b, k); err != nil {
			t.Fatal(err)
		}
		keys[b.ID] = secret
	}
	discard := slog.New(slog.DiscardHandler)
	brands, err := auth.Open(ctx, store, 0, discard)
	if err != nil {
		t.Fatal(err)
	}
	catalog := enrich.NewCatalog()
	tr, err := tracker.Open(ctx, store, tracker.Config{Catalog: catalog, Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	kr, err := signing.Open(ctx, store, 0, nil, discard)
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(tr, brands, discard, httpapi.Options{Catalog: catalog, Keys: kr}).Handler()
	w.svc = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		w.mu.Lock()
		w.requests = append(w.requests, svcRequest{r.URL.Path, string(body), r.Header.Get("Cookie"), r.Header.Get("Content-Digest")})
		w.mu.Unlock()
		api.ServeHTTP(rw, r)
	}))
	target, _ := url.Parse(w.svc.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(res *http.Response) error {
		mode := w.tamper.Load()
		if !strings.HasPrefix(res.Request.URL.Path, "/api/svc/") {
			return nil
		}
		if res.Request.URL.Path == "/api/svc/product-enrich" && (mode == 0 || mode == tamperReplay) {
			b, err := io.ReadAll(res.Body)
			if err != nil {
				return err
			}
			w.mu.Lock()
			if mode == 0 {
				w.saved.header, w.saved.body = res.Header.Clone(), b
			} else {
				// Another product's genuine, signed answer, for the same URL.
				res.Header, b = w.saved.header.Clone(), w.saved.body
			}
			w.mu.Unlock()
			res.Body = io.NopCloser(bytes.NewReader(b))
			res.ContentLength = int64(len(b))
			return nil
		}
		if mode == 0 {
			return nil
		}
		// More viewers; with tamperDigest, a man in the middle who knows
		// the protocol also makes Content-Digest match the changed body, so
		// that only the signature can tell.
		b, err := io.ReadAll(res.Body)
		if err != nil {
			return err
		}
		b = regexp.MustCompile(`\b4 people`).ReplaceAll(b, []byte("40 people"))
		res.Body = io.NopCloser(bytes.NewReader(b))
		res.ContentLength = int64(len(b))
		res.Header.Set("Content-Length", fmt.Sprint(len(b)))
		if mode == tamperDigest {
			res.Header.Set("Content-Digest", httpsig.Digest(b))
		}
		return nil
	}
	w.proxy = httptest.NewServer(rp)
	w.pages = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/favicon.ico":
			rw.WriteHeader(http.StatusNoContent)
		case r.URL.Path == "/vector.json":
			http.ServeFile(rw, r, "../internal/httpsig/testdata/rfc9421-b26.json")
		case strings.HasPrefix(r.URL.Path, "/ext/"):
			http.StripPrefix("/ext/", http.FileServerFS(extension.Files())).ServeHTTP(rw, r)
		case r.URL.Path == "/vector.html":
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, vectorPage)
		default:
			// A cookie for 127.0.0.1, which the svc there must never get.
			http.SetCookie(rw, &http.Cookie{Name: "shop_session", Value: "secret", Path: "/"})
			fixture(rw, r, map[string]string{"/p/wh1000xm5": "product.html", "/item/77": "product-og.html", "/about": "page.html",
				"/p/dark": "product-dark.html", "/p/light": "product-light.html"}[r.URL.Path])
		}
	}))
	w.engines = httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.Host)
		fixture(rw, r, map[string]string{"www.google.com/search": "google.html", "www.bing.com/search": "bing.html"}[host+r.URL.Path])
	}))
	t.Cleanup(func() {
		w.engines.Close()
		w.pages.Close()
		w.proxy.Close()
		w.svc.Close()
		kr.Close()
		tr.Close()
		brands.Close()
		store.Close()
	})

	// The catalog: two shops sell the headphones; the phone has one viewer,
	// under the threshold of 3.
	send := func(path, brand string, body map[string]any) {
		t.Helper()
		j, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", w.svc.URL+path, bytes.NewReader(j))
		req.Header.Set("X-svc-Api-Key", keys[brand])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s %s: %d", path, body, res.StatusCode)
		}
	}
	product := func(brand, id, title, url, sku string, viewers int) {
		for i := range viewers {
			send("/api/collect/product-view", brand, map[string]any{"brand_id": brand,
				"product": map[string]any{"product_id": id, "title": title, "url": url, "sku": sku},
				"context": map[string]any{"session_id": fmt.Sprint(id, "-", i)}})
		}
	}
	product("br_alpha", "wh5", "Sony WH-1000XM5 Wireless Headphones Black", "https://www.alpha.example/p/wh1000xm5-black", "SONY-WH1000XM5-B", 4)
	product("br_alpha", "ip15", "Apple iPhone 15 128GB Black", "https://alpha.example/p/iphone-15", "IP15-128-B", 1)
	product("br_beta", "b-77", "WH-1000XM5 Noise Cancelling Headphones - Black by Sony", "https://beta.example/item/77", "SONY-WH1000XM5-B", 5)
	for i, price := range []float64{300, 340, 320} {
		send("/api/collect/product-purchase", "br_alpha", map[string]any{"brand_id": "br_alpha", "order": map[string]any{
			"order_id": fmt.Sprint("o", i), "currency": "EUR", "items": []any{map[string]any{"product_id": "wh5", "quantity": 1, "unit_price": price}}}})
	}
	w.requests = nil

	w.browser(w.unpacked())
	return w
}

func fixture(rw http.ResponseWriter, r *http.Request, name string) {
	if r.URL.Path == "/favicon.ico" {
		rw.WriteHeader(http.StatusNoContent)
		return
	}
	if name == "" {
		http.NotFound(rw, r)
		return
	}
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		http.Error(rw, err.Error(), 500)
		return
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = rw.Write(b)
}

// unpacked packs the extension for the test's svc, as svc extension pack
// does, and unzips it: the browser loads what a store would get.
func (w *world) unpacked() string {
	var zipped bytes.Buffer
	if err := extension.Pack(&zipped, w.svc.URL); err != nil {
		w.t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(zipped.Bytes()), int64(zipped.Len()))
	if err != nil {
		w.t.Fatal(err)
	}
	dir := w.t.TempDir()
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			w.t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			w.t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
	return dir
}

func (w *world) browser(extDir string) {
	t := w.t
	ctx := chrometest.Start(t, 1100, 760,
		chromedp.Flag("headless", "new"),
		chromedp.Flag("disable-extensions", false),
		chromedp.Flag("load-extension", extDir),
		chromedp.Flag("disable-extensions-except", extDir),
		// The search engines' host names lead to the fixture server.
		chromedp.Flag("host-resolver-rules", "MAP www.google.com 127.0.0.1, MAP www.bing.com 127.0.0.1"),
		chromedp.Flag("ignore-certificate-errors", true),
		chromedp.Flag("lang", "en-US"),
	)
	w.listen(ctx)
	w.ctx = ctx
	testwait.Eventually(t, func() error {
		targets, err := chromedp.Targets(ctx)
		if err != nil {
			return err
		}
		for _, tg := range targets {
			if id, ok := strings.CutPrefix(tg.URL, "chrome-extension://"); ok && tg.Type == "service_worker" {
				w.extID, _, _ = strings.Cut(id, "/")
				// The service worker's own errors count too.
				sw, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(tg.TargetID))
				t.Cleanup(cancel)
				w.listen(sw)
				return nil
			}
		}
		return fmt.Errorf("no extension service worker among %d targets", len(targets))
	})
}

func (w *world) listen(ctx context.Context) {
	w.errors.Listen(w.t, ctx)
}

func (w *world) run(actions ...chromedp.Action[chromedp.Void]) {
	w.t.Helper()
	chrometest.Run(w.t, w.ctx, actions...)
}

// poll runs js in the page until it returns something truthy, and
// decodes that into out.
func (w *world) poll(js string, out any) {
	w.t.Helper()
	w.decode(chromedp.Poll[json.RawMessage](js, chromedp.WithPollingTimeout(15*time.Second)), out)
}

// eval runs js in the page once and decodes its value into out (nil: drop it).
func (w *world) eval(js string, out any) {
	w.t.Helper()
	w.decode(chromedp.Evaluate[json.RawMessage](js), out)
}

func (w *world) decode(a chromedp.Action[json.RawMessage], out any) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(w.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		w.t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(v, out); err != nil {
			w.t.Fatalf("%s: %v", v, err)
		}
	}
}

// js is a step that runs js and drops its value.
func js(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[json.RawMessage](expr)(ctx, t)
		return err
	})
}

// shot saves a screenshot as NAME.png in SVC_SCREENSHOTS, when it names a
// folder (docs/extension.md shows them); otherwise it does nothing.
func (w *world) shot(name string) {
	w.t.Helper()
	dir := os.Getenv("SVC_SCREENSHOTS")
	if dir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(w.ctx, 20*time.Second)
	defer cancel()
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		w.t.Fatal(err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		w.t.Fatal(err)
	}
	w.t.Logf("screenshot: %s", p)
}

func (w *world) noErrors() {
	w.t.Helper()
	if errs := w.errors.Take(); len(errs) > 0 {
		w.t.Errorf("errors in the pages:\n%s", strings.Join(errs, "\n"))
	}
}

// svcRequests returns what reached svc since the last call.
func (w *world) svcRequests() []svcRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.requests
	w.requests = nil
	return r
}

const panelJS = `(() => { const h = document.querySelector('svc-extension#svc-panel'); if (!h) return null;
  const r = h.shadowRoot; const q = (s) => [...r.querySelectorAll(s)].map((e) => e.textContent);
  return {verified: r.querySelector('[data-verified]')?.dataset.verified || '', text: r.querySelector('.panel').textContent.replace(/\s+/g, ' '),
    messages: q('.messages li'), price: q('.price, .median'), offers: q('.offers li'), match: q('.match').join(''),
    scheme: h.dataset.scheme, background: getComputedStyle(r.querySelector('.panel')).backgroundColor}; })()`

type panel struct {
	Verified   string
	Text       string
	Messages   []string
	Price      []string
	Offers     []string
	Match      string // the product and shop it names
	Scheme     string // light or dark
	Background string // the panel's computed background colour
}

// saved is what the options page says on saving, in each language
// (auto: the browser's, English here).
var saved = map[string]string{"auto": "Saved.", "en": "Saved.", "de": "Gespeichert.", "fr": "Enregistré.", "es": "Guardado."}

// setOptions fills the options page and saves it.
func (w *world) setOptions(base, lang string, bing bool, off string) {
	w.t.Helper()
	if status := w.trySetOptions(base, lang, bing, off); status != saved[lang] {
		w.t.Fatalf("options: %q, want %q", status, saved[lang])
	}
}

// trySetOptions fills the options page, clicks Save and returns what the
// page says.
func (w *world) trySetOptions(base, lang string, bing bool, off string) string {
	w.t.Helper()
	w.run(chromedp.Navigate("chrome-extension://"+w.extID+"/options.html"),
		chromedp.WaitVisible(chromedp.CSS("#baseURL")))
	var filled string
	w.poll(`document.getElementById('baseURL').value`, &filled)
	w.run(
		js(fmt.Sprintf(`(() => { const f = document.getElementById('options'); f.baseURL.value = %q; f.language.value = %q;
			f.off.value = %q; f.bing.checked = %v; })()`, base, lang, off, bing)),
		chromedp.Click(chromedp.CSS("#save")),
	)
	var status string
	w.poll(`document.getElementById('status').textContent`, &status)
	return status
}

func TestExtension(t *testing.T) {
	w := newWorld(t)

	t.Run("VerifierMatchesRFC9421Vector", func(t *testing.T) {
		w.t = t
		w.run(chromedp.Navigate(w.pages.URL + "/vector.html"))
		defer w.noErrors()
		var res struct {
			Base, Error                                  string
			Verified, TamperedFails, DigestOK, DigestBad bool
			ReplacedChecked                              bool
		}
		var raw string
		w.poll(`document.documentElement.dataset.result`, &raw)
		if err := json.Unmarshal([]byte(raw), &res); err != nil {
			t.Fatal(err)
		}
		if res.Error != "" {
			t.Fatalf("vector page: %s", res.Error)
		}
		v := loadVector(t)
		if res.Base != v.Base {
			t.Errorf("JS signature base:\n got %q\nwant %q", res.Base, v.Base)
		}
		if !res.Verified || !res.TamperedFails || !res.DigestOK || !res.DigestBad || !res.ReplacedChecked {
			t.Errorf("JS verifier on the RFC vector: %+v", res)
		}
		w.noErrors()
	})

	t.Run("OptionsPersist", func(t *testing.T) {
		w.t = t
		w.run(chromedp.Navigate("chrome-extension://"+w.extID+"/options.html"), chromedp.WaitVisible(chromedp.CSS("#baseURL")))
		var base string
		w.poll(`document.getElementById('baseURL').value`, &base)
		if base != w.svc.URL {
			t.Errorf("default svc address %q, want the packed %q", base, w.svc.URL)
		}
		w.setOptions(w.svc.URL+"/", "de", false, "blocked.example\nshop.example")
		w.run(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#baseURL")))
		var got struct {
			Base, Lang, Off string
			Bing, Google    bool
		}
		w.poll(`(() => { const f = document.getElementById('options'); return f.baseURL.value && {Base: f.baseURL.value, Lang: f.language.value, Off: f.off.value, Bing: f.bing.checked, Google: f.google.checked}; })()`, &got)
		want := struct {
			Base, Lang, Off string
			Bing, Google    bool
		}{w.svc.URL, "de", "blocked.example\nshop.example", false, true}
		if got != want {
			t.Errorf("after a reload the options are %+v, want %+v", got, want)
		}
		// The page speaks the language saved, and follows the select.
		var words struct{ Lang, Label, Save, Auto string }
		const wordsJS = `(() => ({Lang: document.documentElement.lang, Label: document.querySelector('[data-i18n=languageLabel]').textContent,
			Save: document.getElementById('save').textContent, Auto: document.querySelector('option[value=auto]').textContent}))()`
		w.eval(wordsJS, &words)
		if words.Lang != "de" || words.Label != "Sätze und Beschriftungen auf" || words.Save != "Speichern" || words.Auto != "Sprache des Browsers" {
			t.Errorf("the options page after saving German: %+v", words)
		}
		if status := w.trySetOptions("ftp://nope", "de", false, ""); !strings.HasPrefix(status, "Die Adresse ist nicht gültig") {
			t.Errorf("a bad address: %q", status)
		}
		w.shot("extension-options")
		// Every language of the widget has every word of the extension.
		var langs struct {
			All     []string
			Missing []string
		}
		w.eval(`(() => { const S = globalThis.SVC_STRINGS;
			const keys = (o, p) => Object.entries(o).flatMap(([k, v]) => v && typeof v === 'object' ? keys(v, p + k + '.') : [p + k]).sort().join();
			return {All: Object.keys(S), Missing: Object.keys(S).filter((l) => keys(S[l], '') !== keys(S.en, ''))}; })()`, &langs)
		if !slices.Equal(langs.All, svc.WidgetLanguages) || len(langs.Missing) > 0 {
			t.Errorf("the extension speaks %q (%q lack words), the widget %q", langs.All, langs.Missing, svc.WidgetLanguages)
		}
		for lang, save := range map[string]string{"fr": "Enregistrer", "es": "Guardar", "en": "Save", "de": "Speichern"} {
			w.run(js(fmt.Sprintf(`(() => { const s = document.getElementById('language'); s.value = %q; s.dispatchEvent(new Event('change')); })()`, lang)))
			w.eval(wordsJS, &words)
			if words.Lang != lang || words.Save != save {
				t.Errorf("the options page in %s: %+v, want the button %q", lang, words, save)
			}
		}
		w.setOptions(w.svc.URL, "auto", true, "")
		w.noErrors()
	})

	t.Run("ProductPanelVerified", func(t *testing.T) {
		w.t = t
		w.svcRequests()
		w.run(chromedp.Navigate(w.pages.URL + "/p/wh1000xm5"))
		var p panel
		w.poll(panelJS, &p)
		if p.Verified != "true" || !strings.Contains(p.Text, "✓ verified") {
			t.Errorf("panel not verified: %+v", p)
		}
		wantMsgs := []string{"4 people viewed this in the last hour", "3 purchases in the last 24 hours"}
		for _, m := range wantMsgs {
			if !contains(p.Messages, m) {
				t.Errorf("messages %q lack %q", p.Messages, m)
			}
		}
		if len(p.Price) != 2 || p.Price[0] != "Below typical price" || p.Price[1] != "Median paid in the last 30 days: €320.00" {
			t.Errorf("price %q", p.Price)
		}
		if len(p.Offers) == 0 || !strings.Contains(strings.Join(p.Offers, "|"), "WH-1000XM5 Noise Cancelling Headphones - Black by Sony") {
			t.Errorf("offers %q", p.Offers)
		}
		if p.Match != "Sony WH-1000XM5 Wireless Headphones Black at Alpha Shop" {
			t.Errorf("the panel names %q, want the product and its shop", p.Match)
		}
		if p.Scheme != "light" || p.Background != "rgb(255, 255, 255)" {
			t.Errorf("on a light page in a light browser the panel is %s on %s", p.Scheme, p.Background)
		}
		w.shot("extension-product-panel")
		reqs := w.svcRequests()
		w.checkPrivacy(reqs)
		if len(reqs) == 0 || !strings.Contains(reqs[0].body, `"title":"Sony WH-1000XM5 Wireless Headphones Black"`) ||
			!strings.Contains(reqs[0].body, `"price":299`) || !strings.Contains(reqs[0].body, `"url":"https://www.alpha.example/p/wh1000xm5-black"`) {
			t.Errorf("product-enrich got %+v", reqs)
		}
		// A page that does not say it is a product sends nothing.
		w.run(chromedp.Navigate(w.pages.URL+"/about"), chromedp.Sleep(500*time.Millisecond))
		if reqs := w.svcRequests(); len(reqs) != 0 {
			t.Errorf("a page that is no product was sent: %+v", reqs)
		}
		w.noErrors()
	})

	t.Run("ProductByURLInGerman", func(t *testing.T) {
		w.t = t
		w.setOptions(w.svc.URL, "de", true, "")
		defer w.setOptions(w.svc.URL, "auto", true, "")
		w.svcRequests()
		w.run(chromedp.Navigate(w.pages.URL + "/item/77"))
		var p panel
		w.poll(panelJS, &p)
		if p.Verified != "true" || !strings.Contains(p.Text, "✓ verifiziert") || !contains(p.Messages, "5 Personen haben sich das in der letzten Stunde angesehen") ||
			p.Match != "WH-1000XM5 Noise Cancelling Headphones - Black by Sony bei Beta Store" {
			t.Errorf("panel %+v", p)
		}
		reqs := w.svcRequests()
		w.checkPrivacy(reqs)
		var sent struct {
			Context map[string]any `json:"context"`
			Product map[string]any `json:"product"`
		}
		for _, r := range reqs {
			if r.path == "/api/svc/product-enrich" {
				_ = json.Unmarshal([]byte(r.body), &sent)
			}
		}
		if sent.Context["url"] != "https://beta.example/item/77" || sent.Context["locale"] != "de-DE" || len(sent.Product) != 0 {
			t.Errorf("product-enrich got %+v", sent)
		}
		w.shot("extension-product-by-url-de")
		w.noErrors()
	})

	t.Run("PanelFollowsTheColourScheme", func(t *testing.T) {
		w.t = t
		// A page that paints a dark background gets a dark panel, whatever
		// the browser prefers.
		w.run(chromedp.Navigate(w.pages.URL + "/p/dark"))
		var p panel
		w.poll(panelJS, &p)
		if p.Verified != "true" || p.Scheme != "dark" || p.Background != "rgb(29, 41, 57)" {
			t.Errorf("on a dark page: %+v", p)
		}
		w.shot("extension-product-panel-dark")
		// A page that paints none follows the browser's preference.
		prefer := func(scheme string) {
			t.Helper()
			if _, err := chromedp.Call(w.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
				t.Fatal(err)
			}
		}
		prefer("dark")
		defer prefer("")
		w.run(chromedp.Navigate(w.pages.URL + "/p/wh1000xm5"))
		w.poll(panelJS, &p)
		if p.Scheme != "dark" {
			t.Errorf("a page without a background in a browser that prefers dark: %+v", p)
		}
		// A light page stays light under the same preference.
		w.run(chromedp.Navigate(w.pages.URL + "/p/light"))
		w.poll(panelJS, &p)
		if p.Scheme != "light" {
			t.Errorf("a white page in a browser that prefers dark: %+v", p)
		}
		w.noErrors()
	})

	t.Run("TamperedAnswerIsNotVerified", func(t *testing.T) {
		w.t = t
		w.setOptions(w.proxy.URL, "auto", true, "")
		defer w.tamper.Store(0)
		var p panel
		for _, mode := range []int32{tamperBody, tamperDigest} {
			w.tamper.Store(mode)
			w.run(chromedp.Navigate(w.pages.URL + "/p/wh1000xm5"))
			w.poll(panelJS, &p)
			if p.Verified != "false" || strings.Contains(strings.ToLower(p.Text), "verified") || strings.Contains(p.Text, "40 people") || len(p.Messages) > 0 {
				t.Errorf("a tampered answer (mode %d) shows %+v", mode, p)
			}
		}
		w.shot("extension-tampered")
		w.tamper.Store(0)
		// Through the same proxy, untouched, the answer verifies.
		w.run(chromedp.Navigate(w.pages.URL + "/p/wh1000xm5"))
		w.poll(panelJS, &p)
		if p.Verified != "true" {
			t.Errorf("an untouched answer through the proxy: %+v", p)
		}
		// That genuine answer, replayed for another product's page: the
		// signature covers the request's body, so it is not this page's.
		w.tamper.Store(tamperReplay)
		w.run(chromedp.Navigate(w.pages.URL + "/item/77"))
		w.poll(panelJS, &p)
		if p.Verified != "false" || len(p.Messages) > 0 {
			t.Errorf("another product's answer, replayed: %+v", p)
		}
		w.tamper.Store(0)
		w.setOptions(w.svc.URL, "auto", true, "")
		w.noErrors()
	})

	for _, engine := range []struct{ name, host string }{{"Google", "www.google.com"}, {"Bing", "www.bing.com"}} {
		t.Run("SearchBadges"+engine.name, func(t *testing.T) {
			w.t = t
			w.svcRequests()
			_, port, _ := net.SplitHostPort(w.engines.Listener.Addr().String())
			w.run(chromedp.Navigate(fmt.Sprintf("https://%s:%s/search?q=sony+wh-1000xm5", engine.host, port)))
			var badges []struct{ Result, Label, Kind string }
			w.poll(`(() => { const b = [...document.querySelectorAll('svc-extension[id^="svc-badge-"]')]; return b.length > 1 &&
				b.map((h) => { const s = h.shadowRoot.querySelector('.badge'); const r = h.closest('.g, .b_algo');
					return {Result: r.querySelector('h3, h2').textContent.trim(), Label: s.textContent, Kind: s.dataset.kind}; }); })()`, &badges)
			var titles []string
			for _, b := range badges {
				titles = append(titles, b.Result+" = "+b.Label)
			}
			got := strings.Join(titles, "\n")
			want := "Sony WH-1000XM5 Wireless Headphones Black | Alpha Shop = Most bought · 24 h\nWH-1000XM5 Noise Cancelling Headphones – Black by Sony = Most viewed · last hour"
			if engine.name == "Bing" {
				want = "WH-1000XM5 Noise Cancelling Headphones – Black by Sony = Most viewed · last hour\nSony WH-1000XM5 Wireless Headphones Black | Alpha Shop = Most bought · 24 h"
			}
			if got != want {
				t.Errorf("badges:\n%s\nwant (the phone under its thresholds, the review unmatched: none):\n%s", got, want)
			}
			w.shot("extension-search-" + strings.ToLower(engine.name))
			reqs := w.svcRequests()
			w.checkPrivacy(reqs)
			for _, r := range reqs {
				if r.path == "/api/svc/search-enrich" && (strings.Contains(r.body, `"query"`) || strings.Contains(r.body, "sony+wh")) {
					t.Errorf("the query was sent: %s", r.body)
				}
			}
			w.noErrors()
		})
	}

	t.Run("SiteTurnedOff", func(t *testing.T) {
		w.t = t
		w.setOptions(w.svc.URL, "auto", true, "127.0.0.1")
		w.svcRequests()
		w.run(chromedp.Navigate(w.pages.URL+"/p/wh1000xm5"), chromedp.Sleep(700*time.Millisecond))
		var p *panel
		w.eval(panelJS, &p)
		if p != nil || len(w.svcRequests()) != 0 {
			t.Errorf("a site turned off: panel %+v", p)
		}
		w.setOptions(w.svc.URL, "auto", true, "")
		w.noErrors()
	})
}

// checkPrivacy fails when svc got a cookie, or anything but the product
// and page fields the extension may send.
func (w *world) checkPrivacy(reqs []svcRequest) {
	w.t.Helper()
	for _, r := range reqs {
		if r.cookie != "" {
			w.t.Errorf("%s got the cookie %q", r.path, r.cookie)
		}
		if r.path == "/.well-known/svc-keys.json" {
			continue
		}
		if r.digest != httpsig.Digest([]byte(r.body)) {
			w.t.Errorf("%s: Content-Digest %q is not the body's", r.path, r.digest)
		}
		var body map[string]any
		_ = json.Unmarshal([]byte(r.body), &body)
		for k := range body {
			if k != "context" && k != "product" && k != "results" && k != "user_context" {
				w.t.Errorf("%s got the field %q: %s", r.path, k, r.body)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type vector struct {
	Base string `json:"signature_base"`
}

func loadVector(t *testing.T) vector {
	b, err := os.ReadFile("../internal/httpsig/testdata/rfc9421-b26.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vector
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// vectorPage runs the extension's verifier on RFC 9421's B.2.6 example:
// the base it builds, the signature it checks, and a changed field.
const vectorPage = `<!doctype html><meta charset="utf-8"><title>RFC 9421 B.2.6</title>
<script type="module">
import { parseDictionary, signatureBase, verifySignature, checkDigest, checkReplaced } from '/ext/verify.js';
const out = {};
try {
  const v = await (await fetch('/vector.json')).json();
  const headers = new Headers(v.headers);
  headers.set('Signature-Input', v.signature_input);
  headers.set('Signature', v.signature);
  const msg = { method: v.method, targetURI: v.target_uri, headers };
  const il = parseDictionary(v.signature_input).get(v.label);
  out.Base = new TextDecoder().decode(signatureBase(msg, il));
  const spki = Uint8Array.from(atob(v.public_spki), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey('spki', spki, { name: 'Ed25519' }, false, ['verify']);
  const keyFor = async (kid) => kid === v.keyid ? key : null;
  const r = await verifySignature(msg, keyFor);
  out.Verified = r.label === v.label && r.created === v.created && r.keyid === v.keyid;
  headers.set('Content-Length', '19');
  out.TamperedFails = await verifySignature(msg, keyFor).then(() => false, () => true);
  // A key replaced before the signature's created refuses it; one replaced
  // after, or not at all, does not.
  const at = (s) => new Date(s * 1000).toISOString();
  const refuses = (replaced) => { try { checkReplaced(r, replaced); return false; } catch { return true; } };
  out.ReplacedChecked = refuses(at(r.created - 1)) && !refuses(at(r.created)) && !refuses(at(r.created + 1)) && !refuses(undefined);
  const body = new TextEncoder().encode(v.body);
  await checkDigest(v.headers.find((h) => h[0] === 'Content-Digest')[1], body);
  await checkDigest(v.content_digest_sha256, body);
  out.DigestOK = true;
  out.DigestBad = await checkDigest(v.content_digest_sha256, new TextEncoder().encode(v.body + ' ')).then(() => false, () => true);
} catch (err) {
  out.Error = String(err && err.stack || err);
}
// In the DOM, which every world of the page sees (the extension's content
// script runs beside this one).
document.documentElement.dataset.result = JSON.stringify(out);
</script>`
