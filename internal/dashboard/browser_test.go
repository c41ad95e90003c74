package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/svc-project/svc/internal/chrometest"
)

// The dashboard in Chromium: sign in, the overview, a product, a
// threshold and its preview, keys, logout; no console error, and no
// serious or critical axe-core violation on any page.

// axePath is axe-core from the npm registry, pinned by the widget's
// tests' package-lock.json (npm ci in internal/script/testdata/axe).
const axePath = "../script/testdata/axe/node_modules/axe-core/axe.min.js"

type env struct {
	t   *testing.T
	ctx context.Context
	axe string
	// errors are the pages' exceptions, console errors and log errors.
	errors chrometest.Errors
}

// TestMain ends the browser the tests share (chrometest.Tab).
func TestMain(m *testing.M) { os.Exit(chrometest.Main(m)) }

func newBrowser(t *testing.T) *env {
	t.Helper()
	chrometest.Path(t)
	axe, err := os.ReadFile(axePath)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no axe-core (%v): npm ci in internal/script/testdata/axe", err)
		}
		t.Skip("no axe-core: run npm ci in internal/script/testdata/axe")
	}
	e := &env{t: t, axe: string(axe)}
	e.ctx = chrometest.Tab(t, 1280, 900)
	e.errors.Listen(t, e.ctx)
	return e
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

// click clicks the element and waits for the page that follows, if any,
// to be loaded.
func (e *env) click(selector string) {
	e.t.Helper()
	var ok bool
	e.eval(`(()=>{window.__before=true;const el=document.querySelector(`+quote(selector)+`);if(!el)return false;el.click();return true})()`, &ok)
	if !ok {
		e.t.Fatalf("no %s on the page", selector)
	}
}

// navigated waits for a new document at a path starting with prefix.
func (e *env) navigated(prefix string) {
	e.t.Helper()
	e.waitFor(`!window.__before && document.readyState=="complete" && location.pathname.startsWith(` + quote(prefix) + `)`)
}

func (e *env) text() string {
	var s string
	e.eval(`document.body.innerText`, &s)
	return s
}

func (e *env) noErrors() {
	e.t.Helper()
	e.errors.None(e.t)
}

// axe runs axe-core in the page and fails on a serious or critical violation.
func (e *env) checkAxe(name string) {
	e.t.Helper()
	var loaded bool
	e.eval(`window.axe?true:(()=>{`+e.axe+`;return true})()`, &loaded)
	var bad []string
	e.eval(`axe.run(document,{resultTypes:["violations"]}).then(r=>r.violations.filter(v=>v.impact=="serious"||v.impact=="critical").map(v=>v.id+": "+v.nodes.map(n=>JSON.stringify(n.target)).join(" ")))`, &bad)
	if len(bad) > 0 {
		e.t.Fatalf("axe on %s:\n%s", name, strings.Join(bad, "\n"))
	}
}

// shot saves the whole page at a width as NAME-WIDTH.png in the folder
// SVC_SCREENSHOTS names (docs/dashboard when the docs' pictures are
// made); without it, nothing is written.
func (e *env) shot(name string) {
	e.t.Helper()
	dir := os.Getenv("SVC_SCREENSHOTS")
	for _, w := range []struct {
		name   string
		width  int64
		mobile bool
	}{{"desktop", 1280, false}, {"phone", 390, true}} {
		e.viewport(w.width, 800, w.mobile)
		var overflow bool
		e.eval(`document.documentElement.scrollWidth > innerWidth + 1`, &overflow)
		if overflow {
			e.t.Errorf("%s at %d px scrolls sideways", name, w.width)
		}
		if dir == "" {
			continue
		}
		var h float64
		e.eval(`document.documentElement.scrollHeight`, &h)
		e.viewport(w.width, int64(h), w.mobile)
		res, err := chromedp.Call(e.ctx, cdppage.CaptureScreenshot, cdppage.CaptureScreenshotParams{})
		if err != nil {
			e.t.Fatal(err)
		}
		path := filepath.Join(dir, name+"-"+w.name+".png")
		if err := os.WriteFile(path, res.Data, 0o644); err != nil {
			e.t.Fatal(err)
		}
		e.t.Logf("screenshot: %s", path)
	}
	e.viewport(1280, 900, false)
}

func (e *env) viewport(width, height int64, mobile bool) {
	e.t.Helper()
	scale := 1.0
	if mobile {
		scale = 2
	}
	if _, err := chromedp.Call(e.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: width, Height: height, DeviceScaleFactor: scale, Mobile: mobile}); err != nil {
		e.t.Fatal(err)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestBrowserFlows(t *testing.T) {
	f := newFixture(t)
	e := newBrowser(t)
	// The overview's lift needs both arms: Acme holds half its sessions out.
	ctx := context.Background()
	b, _ := f.store.Brand(ctx, "br_acme")
	b.Holdout = 50
	if err := f.store.UpdateBrand(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := f.auth.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	// Some history: sessions over the last 40 hours and 12 days, a few of
	// which buy, at a price that changes.
	for i := range 160 {
		s := fmt.Sprint("shopper-", i)
		at := t0.Add(-time.Duration(i%40) * time.Hour)
		if i >= 100 {
			at = t0.Add(-time.Duration(i%12) * 24 * time.Hour)
		}
		ts := at.Format(time.RFC3339)
		product := []string{"shoe", "shoe", "hat", "sock"}[i%4]
		f.api("POST", "/api/collect/product-view", "br_acme", map[string]any{"brand_id": "br_acme",
			"product": map[string]any{"product_id": product}, "context": map[string]any{"session_id": s, "timestamp": ts}})
		if i%5 == 0 {
			f.api("POST", "/api/collect/product-purchase", "br_acme", map[string]any{"brand_id": "br_acme",
				"order": map[string]any{"order_id": "b" + s, "currency": "EUR", "items": []any{
					map[string]any{"product_id": product, "quantity": 1 + i%3, "unit_price": 45 + float64(i%7)}}}, "context": map[string]any{"session_id": s, "timestamp": ts}})
		}
	}

	// Sign in with the link, see the overview.
	e.run(chromedp.Navigate(f.srv.URL + "/dashboard/signin?token=" + url.QueryEscape(f.link("br_acme"))))
	e.checkAxe("sign-in")
	e.click("form button[type=submit]")
	e.navigated("/dashboard/brands/br_acme/")
	if txt := e.text(); !strings.Contains(txt, "Red Shoe") || !strings.Contains(txt, "Lift of the widget") {
		t.Fatalf("overview:\n%s", txt)
	}
	e.checkAxe("overview")
	e.shot("overview")

	// Open a product.
	e.click(`a[href$="/products/shoe"]`)
	e.navigated("/dashboard/brands/br_acme/products/shoe")
	if txt := e.text(); !strings.Contains(txt, "people viewed this in the last hour") || !strings.Contains(txt, "Mean unit price paid") {
		t.Fatalf("product page:\n%s", txt)
	}
	e.checkAxe("product")
	e.shot("product")

	// Settings and keys: browser_settings_test.go.
	e.click(`nav a[href$="/settings"]`)
	e.navigated("/dashboard/brands/br_acme/settings")
	// The preview frame loads svc-corner.js and the proof after its page:
	// signing out before they come would end the session they ask with.
	e.waitFor(`(()=>{const t=` + frameText + `;return t.trim()!=""})()`)

	// Log out: the dashboard asks to sign in again.
	e.click(`form.logout button`)
	e.navigated("/dashboard/signin")
	e.run(chromedp.Navigate(f.srv.URL + "/dashboard/brands/br_acme/"))
	e.waitFor(`location.pathname=="/dashboard/signin"`)
	e.noErrors()
}
