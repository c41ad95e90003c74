package script_test

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The recent-purchase toasts in Chromium (docs/client-script.md, Toasts),
// against the service's real feed, GET /api/svc/recent-activity. Their
// timers run on the harness's clock: __clock.fire(ms) runs the timers of
// ms now, so the test decides when time passes.

// toast is a JavaScript expression for the toast box, or null.
const toast = `(document.querySelector('[data-svc-toasts]')&&document.querySelector('[data-svc-toasts]').shadowRoot.querySelector('.w'))`

// toastText is the toast's lines joined by |, or "" while it is empty.
const toastText = `(()=>{const w=` + toast + `;return w?[...w.querySelectorAll('p')].map(p=>p.textContent).join('|'):''})()`

// bought sends a keyed order of one product, ago before now, from a place.
func (e *env) bought(order, product, title string, ago time.Duration, country, city string) {
	e.t.Helper()
	ctx := map[string]any{"session_id": "buyer-" + order, "timestamp": time.Now().Add(-ago).UTC().Format(time.RFC3339)}
	if country != "" {
		ctx["country"] = country
	}
	if city != "" {
		ctx["city"] = city
	}
	b, _ := json.Marshal(map[string]any{
		"brand_id": brandID, "context": ctx,
		"order": map[string]any{"order_id": order, "items": []any{map[string]any{"product_id": product, "quantity": 1, "title": title}}},
	})
	e.post("/api/collect/product-purchase", string(b))
}

// toastLines are the second line of the first toast in each language: the
// feed's newest purchase, made in Berlin by 3 of its sessions.
var toastLines = map[string]string{
	"en": "Bought %d minutes ago · Berlin, Germany",
	"de": "Gekauft vor %d Minuten · Berlin, Deutschland",
	"fr": "Acheté il y a %d minutes · Berlin, Allemagne",
	"es": "Comprado hace %d minutos · Berlin, Alemania",
}

// freshToasts starts a new session on the page: no toast seen, none closed.
func (e *env) freshToasts(url string) {
	e.t.Helper()
	e.run(chromedp.Navigate(url))
	var ok bool
	e.eval(`sessionStorage.clear();true`, &ok)
	e.run(chromedp.Reload())
	// The corner code is loaded and the first toast waits for its delay.
	e.waitFor(`window.__svc&&__svc.k&&__svc.k.t&&__clock.pending(8000)==1`)
}

// firstToast lets the delay pass and waits for the first toast.
func (e *env) firstToast() string {
	e.t.Helper()
	if got := e.text(toastText); got != "" {
		e.t.Fatalf("a toast before its delay: %q", got)
	}
	var ok bool
	e.eval(`__clock.fire(8000),true`, &ok)
	e.waitFor(toastText + ` != ""`)
	e.waitFor(`!` + toast + `.getAnimations().length`) // past the slide-in
	return e.text(toastText)
}

func (e *env) text(js string) string {
	e.t.Helper()
	var s string
	e.eval(js, &s)
	return s
}

func TestToasts(t *testing.T) {
	e := newEnv(t)
	start := time.Now()
	for i, city := range []string{"Berlin", "Berlin", "Berlin"} {
		ago := []time.Duration{12*time.Minute + 10*time.Second, 40 * time.Minute, 2*time.Hour + 5*time.Minute}[i]
		e.bought(fmt.Sprint("o-", i), fmt.Sprint("p-t", i), []string{"Trail Shoe", "Rain Jacket", "Wool Socks"}[i], ago, "DE", city)
	}
	// One purchase from Lyon: too few share the place to show it.
	e.bought("o-3", "p-t3", "Sun Hat", 3*time.Hour+10*time.Minute, "FR", "Lyon")
	e.headers["Content-Security-Policy"] = "default-src 'none'; script-src 'nonce-r4nd0m' " + e.svc.URL + "; connect-src " + e.svc.URL + "; style-src 'none'; img-src 'none'"
	nonced := func(html string) string { return strings.ReplaceAll(html, "<script>", `<script nonce="r4nd0m">`) }
	ld := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","productID":"p-t0","name":"Trail Shoe"}</script>`
	body := `<main><h1>Trail Shoe</h1><button type="button">Add to cart</button></main><div data-svc-variant="toasts" data-svc-toast-max="4"></div>`
	pageURL := func(lang string) string {
		return e.page("/toasts/"+lang, nonced(productPage(lang, harness+e.snippet(), ld, body)))
	}

	for _, lang := range []string{"en", "de", "fr", "es"} {
		t.Run(lang, func(t *testing.T) {
			e.t = t
			e.freshToasts(pageURL(lang))
			got := e.firstToast()
			m := int(time.Since(start.Add(-12*time.Minute - 10*time.Second)).Minutes())
			want := fmt.Sprintf("Trail Shoe|"+toastLines[lang], m)
			// minutes_ago counts from a time coarsened within the order's
			// minute (docs/honesty.md, Times): one off either way.
			if got != want && got != fmt.Sprintf("Trail Shoe|"+toastLines[lang], m-1) && got != fmt.Sprintf("Trail Shoe|"+toastLines[lang], m+1) {
				t.Fatalf("toast %q, want %q", got, want)
			}
			var a struct{ Role, Live, Atomic, Lang, Close string }
			e.eval(`(()=>{const w=`+toast+`,r=w.querySelector('.r');return {Role:r.getAttribute('role'),Live:r.getAttribute('aria-live'),Atomic:r.getAttribute('aria-atomic'),Lang:r.lastChild.lang,Close:w.querySelector('button').getAttribute('aria-label')}})()`, &a)
			wantClose := map[string]string{"en": "Hide recent purchases", "de": "Letzte Käufe ausblenden", "fr": "Masquer les achats récents", "es": "Ocultar las compras recientes"}[lang]
			if a.Role != "status" || a.Live != "polite" || a.Atomic != "true" || a.Lang != lang || a.Close != wantClose {
				t.Fatalf("toast region and button %+v, want status, polite, atomic, %s, %q", a, lang, wantClose)
			}
			e.shotOf("toast-"+lang, toast)
			// Each toast shown is reported, for the dashboard's toast impressions.
			for deadline := time.Now().Add(5 * time.Second); !slices.Contains(e.reports(), "toast_seen"); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("reports %v, want a toast_seen", e.reports())
				}
			}
			e.noErrors()
		})
	}

	t.Run("timing, hover, the session's quota", func(t *testing.T) {
		e.t = t
		url := pageURL("en")
		e.freshToasts(url)
		e.firstToast()
		// Shown for 6 s; the pointer over it holds it, leaving lets it go.
		waitPending := func(ms, n int) {
			t.Helper()
			e.waitFor(fmt.Sprintf(`__clock.pending(%d)==%d`, ms, n))
		}
		waitPending(6000, 1)
		var r struct{ X, Y float64 }
		e.eval(`(()=>{const b=`+toast+`.getBoundingClientRect();return {X:b.x+b.width/2,Y:b.y+b.height/2}})()`, &r)
		e.run(chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, r.X, r.Y))
		waitPending(6000, 0)
		e.run(chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 5, 5))
		waitPending(6000, 1)
		// So does focus in it, for keyboard users.
		var ok bool
		e.eval(toast+`.querySelector('button').focus(),true`, &ok)
		waitPending(6000, 0)
		e.eval(`document.activeElement.blur(),true`, &ok) // the shadow host: its focus goes
		waitPending(6000, 1)
		// Then it goes, and the next comes 20 s after the first began.
		e.eval(`__clock.fire(6000),true`, &ok)
		e.waitFor(toastText + ` == ""`)
		waitPending(14000, 1)
		wantNext := []*regexp.Regexp{
			regexp.MustCompile(`^Rain Jacket\|Bought (39|4[012]) minutes ago · Berlin, Germany$`),
			regexp.MustCompile(`^Wool Socks\|Bought 2 hours ago · Berlin, Germany$`),
			regexp.MustCompile(`^Sun Hat\|Bought 3 hours ago$`), // no place: too few purchases share it
		}
		for i, want := range wantNext {
			e.eval(`__clock.fire(14000),true`, &ok)
			e.waitFor(toastText + ` != ""`)
			if got := e.text(toastText); !want.MatchString(got) {
				t.Fatalf("toast %d: %q, want %s", i+2, got, want)
			}
			e.eval(`__clock.fire(6000),true`, &ok)
			e.waitFor(toastText + ` == ""`)
		}
		// Four shown: the session's quota. None more, on this page or the next.
		waitPending(14000, 0)
		e.run(chromedp.Reload())
		e.waitFor(`window.__svc&&__svc.k&&__svc.k.t`)
		if n := e.text(`String(__clock.pending(8000))`); n != "0" {
			t.Fatalf("after the quota, %s toasts planned", n)
		}
		e.noErrors()
	})

	t.Run("closed for the session", func(t *testing.T) {
		e.t = t
		url := pageURL("en")
		e.freshToasts(url)
		e.firstToast()
		var ok bool
		e.eval(toast+`.querySelector('button').click(),true`, &ok)
		var after struct {
			Host   bool
			Stored string
			Timers int
		}
		e.eval(`({Host:!!document.querySelector('[data-svc-toasts]'),Stored:sessionStorage.getItem('svc_tc'),Timers:__clock.pending(6000)+__clock.pending(14000)})`, &after)
		if after.Host || after.Stored != "1" || after.Timers != 0 {
			t.Fatalf("after closing: %+v, want no toast, svc_tc 1, no timer", after)
		}
		e.run(chromedp.Reload())
		e.waitFor(`window.__svc&&__svc.k&&__svc.k.t`)
		if n := e.text(`String(__clock.pending(8000))`); n != "0" {
			t.Fatalf("closed, yet %s toasts planned after a reload", n)
		}
		// Escape closes it too, while focus is in it.
		e.freshToasts(url)
		e.firstToast()
		e.eval(toast+`.querySelector('button').focus(),true`, &ok)
		e.run(chromedp.KeyEvent(kb.Escape))
		e.waitFor(`!document.querySelector('[data-svc-toasts]')&&sessionStorage.getItem('svc_tc')=='1'`)
		e.noErrors()
	})

	t.Run("position, motion, dark mode", func(t *testing.T) {
		e.t = t
		url := pageURL("en")
		type place struct{ Left, Right, Bottom float64 }
		where := func() place {
			var p place
			e.eval(`(()=>{const b=`+toast+`.getBoundingClientRect();return {Left:b.left,Right:innerWidth-b.right,Bottom:innerHeight-b.bottom}})()`, &p)
			return p
		}
		e.freshToasts(url)
		e.firstToast()
		if p := where(); p.Left != 16 || p.Bottom != 16 {
			t.Fatalf("desktop: toast at %+v, want 16 px from the left and bottom", p)
		}
		if a := e.text(`getComputedStyle(` + toast + `).animationName`); a != "s" {
			t.Fatalf("animation %q, want s", a)
		}
		// A right-to-left page mirrors it.
		e.freshToasts(e.page("/toasts/rtl", nonced(strings.Replace(productPage("ar", harness+e.snippet(), ld, body), "<html ", `<html dir="rtl" `, 1))))
		e.firstToast()
		if p := where(); p.Right != 16 || p.Bottom != 16 {
			t.Fatalf("right to left: toast at %+v, want 16 px from the right and bottom", p)
		}
		// Below 480 px: centred at the bottom.
		e.viewport(375, 700, 1)
		e.freshToasts(url)
		e.firstToast()
		if p := where(); math.Abs(p.Left-p.Right) > 1 || p.Left < 16 || p.Bottom != 16 {
			t.Fatalf("375 px: toast at %+v, want centred, 16 px from the bottom", p)
		}
		e.shotOf("toast-mobile", `({getBoundingClientRect:()=>({x:12,y:12,width:innerWidth-24,height:innerHeight-24})})`) // the whole screen
		e.viewport(1000, 700, 1)
		// Reduced motion: no slide.
		e.emulate("prefers-reduced-motion", "reduce")
		e.freshToasts(url)
		e.firstToast()
		if a := e.text(`getComputedStyle(` + toast + `).animationName`); a != "none" {
			t.Fatalf("reduced motion: animation %q, want none", a)
		}
		e.emulate("prefers-color-scheme", "dark")
		e.freshToasts(url)
		e.firstToast()
		if bg := e.text(`getComputedStyle(` + toast + `).backgroundColor`); bg != "rgb(31, 41, 51)" {
			t.Fatalf("dark mode: background %s", bg)
		}
		e.shotOf("toast-en-dark", toast)
		e.emulate()
		e.noErrors()
	})

	t.Run("beside the corner badge", func(t *testing.T) {
		e.t = t
		e.seed("p-t0", 4, 0)
		page := nonced(productPage("en", harness+e.snippet(), ld, `<main><h1>Trail Shoe</h1></main><span data-svc-variant="inline toasts"></span>`))
		e.freshToasts(e.page("/toasts/badge", page))
		e.firstToast()
		var p struct{ Badge, Toast float64 }
		e.eval(`(()=>{const t=`+toast+`.getBoundingClientRect(),b=document.querySelector('body > div:not([data-svc-toasts])').shadowRoot.querySelector('.w').getBoundingClientRect();return {Badge:b.left,Toast:innerWidth-t.right}})()`, &p)
		if p.Badge != 16 || p.Toast != 16 {
			t.Fatalf("badge %g px from the left, toast %g px from the right; want 16 and 16", p.Badge, p.Toast)
		}
		// Closing the badge ends the toasts too: the next one is never asked for.
		var ok bool
		e.eval(`document.querySelector('body > div:not([data-svc-toasts])').shadowRoot.querySelector('button').click(),__clock.fire(6000),__clock.fire(14000),true`, &ok)
		e.waitFor(`__net.settled == __net.sent.length`)
		if n, _ := e.fetches("/api/svc/recent-activity"); n != 1 || e.text(toastText) != "" {
			t.Fatalf("after closing the badge: %d feed requests, toast %q", n, e.text(toastText))
		}
		e.noErrors()
	})

	t.Run("axe", func(t *testing.T) {
		e.t = t
		axe := axeSource(t)
		delete(e.headers, "Content-Security-Policy")
		for _, dark := range []string{"light", "dark"} {
			e.emulate("prefers-color-scheme", dark)
			e.freshToasts(pageURL("de"))
			e.firstToast()
			var loaded bool
			e.eval(`window.axe?true:(()=>{`+axe+`;return true})()`, &loaded)
			var inside struct {
				Bad    []string
				Passes []string
			}
			e.eval(`axe.run(document,{resultTypes:["violations"]}).then(p=>axe.run({fromShadowDom:["[data-svc-toasts]",".w"]}).then(r=>({Bad:p.violations.concat(r.violations).filter(v=>v.impact=="serious"||v.impact=="critical").map(v=>v.id),Passes:r.passes.map(v=>v.id)})))`, &inside)
			if len(inside.Bad) > 0 || !strings.Contains(strings.Join(inside.Passes, " "), "color-contrast") {
				t.Fatalf("axe, %s: violations %v, passes %v", dark, inside.Bad, inside.Passes)
			}
		}
		e.emulate()
		e.noErrors()
	})
}
