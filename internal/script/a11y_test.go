package script_test

import (
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/svc-project/svc/internal/script"
	"github.com/svc-project/svc/internal/testwait"
)

// The widget's accessibility, layout and theming in Chromium: the rules of
// docs/client-script.md, "The widget" and "Accessibility".

// axePath is axe-core, installed from the npm registry by .ci/run
// (npm ci in testdata/axe, pinned by its package-lock.json).
const axePath = "testdata/axe/node_modules/axe-core/axe.min.js"

func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(axePath)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no axe-core (%v): .ci/run installs it with npm ci in internal/script/testdata/axe", err)
		}
		t.Skip("no axe-core: run npm ci in internal/script/testdata/axe")
	}
	return string(b)
}

// box is a JavaScript expression for the widget's box: inside
// [data-svc-proof], else the corner badge at the end of <body>.
const box = `(document.querySelector('[data-svc-proof]')||document.body.lastElementChild).shadowRoot.querySelector('.w')`

// shown waits until the widget shows text.
func (e *env) shown() {
	e.t.Helper()
	e.waitFor(`(()=>{const h=document.querySelector('[data-svc-proof]')||document.body.lastElementChild,w=h&&h.shadowRoot&&h.shadowRoot.querySelector('.w');return w&&!w.hidden&&w.querySelector('p')&&[...w.querySelectorAll('p')].every(p=>p.getAnimations().length==0)})()`) // past the fade-in
}

func (e *env) emulate(features ...string) {
	e.t.Helper()
	var f []*emulation.MediaFeature
	for i := 0; i+1 < len(features); i += 2 {
		f = append(f, &emulation.MediaFeature{Name: features[i], Value: features[i+1]})
	}
	if _, err := chromedp.Call(e.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: f}); err != nil {
		e.t.Fatal(err)
	}
}

// viewport sets the layout viewport in CSS pixels; scale 4 with 320 px is
// a 1280 px window at 400% zoom.
func (e *env) viewport(width, height int64, scale float64) {
	e.t.Helper()
	if _, err := chromedp.Call(e.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: width, Height: height, DeviceScaleFactor: scale}); err != nil {
		e.t.Fatal(err)
	}
}

// shot saves the widget's box, with a margin, as docs/widget/NAME.png when
// SVC_SCREENSHOTS names that folder (the gallery of docs/client-script.md);
// otherwise it does nothing, so CI rewrites no file.
func (e *env) shot(name string) {
	e.t.Helper()
	e.shotOf(name, box)
}

// shotOf saves the element that the JavaScript expression el names, like shot.
func (e *env) shotOf(name, el string) {
	e.t.Helper()
	dir := os.Getenv("SVC_SCREENSHOTS")
	if dir == "" {
		return
	}
	var r struct{ X, Y, W, H float64 }
	e.eval(`(()=>{const r=`+el+`.getBoundingClientRect();return {X:r.x,Y:r.y,W:r.width,H:r.height}})()`, &r)
	const m = 12
	x, y := math.Max(r.X-m, 0), math.Max(r.Y-m, 0)
	res, err := chromedp.Call(e.ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Clip: &page.Viewport{X: x, Y: y, Width: r.X + r.W + m - x, Height: r.Y + r.H + m - y, Scale: 1},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, res.Data, 0o644); err != nil {
		e.t.Fatal(err)
	}
	e.t.Logf("screenshot: %s (%d bytes)", path, len(res.Data))
}

var closeNames = map[string]string{
	"en": "Dismiss product activity",
	"de": "Hinweis zur Produktaktivität schließen",
	"fr": "Masquer l’activité de l’article",
	"es": "Ocultar la actividad del artículo",
}

// TestWidgetAxe runs axe-core on every variant in every language, in light
// and dark mode, and on a right-to-left page: no serious or critical
// violation in the page or in the widget's shadow root.
func TestWidgetAxe(t *testing.T) {
	axe := axeSource(t)
	e := newEnv(t)
	e.seed("p-axe", 5, 2)
	ld := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","productID":"p-axe","name":"Shoe"}</script>`
	type variant struct{ page, lang, want, dark string }
	var tests []variant
	for _, l := range []struct{ page, lang, want string }{
		{"en", "en", "6 people viewed this in the last hour"},
		{"de-DE", "de", "6 Personen haben diesen Artikel in der letzten Stunde angesehen"},
		{"fr", "fr", "6 personnes ont consulté cet article au cours de la dernière heure"},
		{"es", "es", "6 personas vieron este artículo en la última hora"},
		{"ar", "en", "6 people viewed this in the last hour"}, // right to left, English fallback
	} {
		tests = append(tests, variant{l.page, l.lang, l.want, "light"})
	}
	tests = append(tests, variant{"en", "en", "6 people viewed this in the last hour", "dark"}, variant{"ar", "en", "6 people viewed this in the last hour", "dark"})
	for _, tt := range tests {
		for _, corner := range []bool{false, true} {
			name := fmt.Sprintf("%s %s inline", tt.page, tt.dark)
			body := `<main><h1>Shoe</h1><div data-svc-proof style="min-height:3.625rem"></div></main>`
			if corner {
				name = fmt.Sprintf("%s %s corner", tt.page, tt.dark)
				body = `<main><h1>Shoe</h1><p>Text</p></main><footer><a href="#legal">Legal notice</a></footer>`
			}
			t.Run(name, func(t *testing.T) {
				e.t = t
				e.emulate("prefers-color-scheme", tt.dark)
				dir := ""
				if tt.page == "ar" {
					dir = ` dir="rtl"`
				}
				html := strings.Replace(productPage(tt.page, e.snippet(), ld, body), "<html ", "<html"+dir+" ", 1)
				e.run(chromedp.Navigate(e.page("/axe/"+strings.ReplaceAll(name, " ", "-"), html)))
				e.shown()
				// The sentence in the DOM: in logical order, in its own
				// language and direction, with the page's digits nowhere.
				var p struct{ Text, Lang, Dir string }
				e.eval(`(()=>{const p=`+box+`.querySelector('p');return {Text:p.textContent,Lang:p.lang,Dir:p.dir}})()`, &p)
				if p.Text != tt.want || p.Lang != tt.lang || p.Dir != "ltr" {
					t.Fatalf("first sentence %+v, want %q in %s, ltr", p, tt.want, tt.lang)
				}
				if corner {
					// The badge mirrors: 16 px from the inline start.
					var edge float64
					e.eval(`(()=>{const r=`+box+`.getBoundingClientRect();return document.dir=='rtl'?innerWidth-r.right:r.left})()`, &edge)
					if edge != 16 {
						t.Fatalf("the badge is %g px from the inline start, want 16", edge)
					}
					var name string
					e.eval(box+`.querySelector('button').getAttribute('aria-label')`, &name)
					if name != closeNames[tt.lang] {
						t.Fatalf("close button named %q, want %q", name, closeNames[tt.lang])
					}
				}
				// The theme's colours: background, and the accent of the numbers.
				var colors string
				e.eval(`getComputedStyle(`+box+`).backgroundColor+" "+getComputedStyle(`+box+`.querySelector('b')).color`, &colors)
				if want := map[string]string{"light": "rgb(255, 255, 255) rgb(11, 105, 163)", "dark": "rgb(31, 41, 51) rgb(124, 196, 250)"}[tt.dark]; colors != want {
					t.Fatalf("%s mode: background and accent %s, want %s", tt.dark, colors, want)
				}
				var loaded bool
				e.eval(`window.axe?true:(()=>{`+axe+`;return true})()`, &loaded)
				var bad []string
				const run = `.then(r=>r.violations.filter(v=>v.impact=="serious"||v.impact=="critical").map(v=>v.id+": "+v.nodes.map(n=>JSON.stringify(n.target)).join(" ")))`
				e.eval(`axe.run(document,{resultTypes:["violations"]})`+run, &bad)
				if len(bad) > 0 {
					t.Fatalf("axe, page:\n%s", strings.Join(bad, "\n"))
				}
				// The shadow root alone, to be sure axe looked inside it:
				// its colour contrast passes.
				var inside struct {
					Bad    []string
					Passes []string
				}
				host := "[data-svc-proof]"
				if corner {
					host = "body > div:last-child"
				}
				e.eval(`axe.run({fromShadowDom:[`+strconvQuote(host)+`,".w"]}).then(r=>({Bad:r.violations.filter(v=>v.impact=="serious"||v.impact=="critical").map(v=>v.id),Passes:r.passes.map(v=>v.id)}))`, &inside)
				if len(inside.Bad) > 0 || !strings.Contains(strings.Join(inside.Passes, " "), "color-contrast") {
					t.Fatalf("axe, shadow root: violations %v, passes %v", inside.Bad, inside.Passes)
				}
				kind := "inline"
				if corner {
					kind = "corner"
				}
				switch {
				case tt.page == "ar" && tt.dark == "light":
					e.shot(kind + "-rtl")
				case tt.page != "ar":
					e.shot(kind + "-" + tt.lang + map[string]string{"light": "", "dark": "-dark"}[tt.dark])
				}
				e.noErrors()
			})
		}
	}
	e.emulate()
}

// TestLiveRegionWritesOnlyWhatChanged counts the live region's mutations:
// a refresh with the same counts writes nothing, a new viewer rewrites only
// that number, and the region never holds the close button.
func TestLiveRegionWritesOnlyWhatChanged(t *testing.T) {
	e := newEnv(t)
	e.seed("p-live", 5, 1)
	e.run(chromedp.Navigate(e.page("/live", productPage("en",
		e.snippet()+`<script>svc("product",{product_id:"p-live"})</script>`, harness, `<p>content</p>`))))
	// The region is there, empty and not hidden, before the first text.
	// (The script mounts the shadow root and the region in one task.)
	var early struct{ Region, Hidden bool }
	e.waitFor(`document.body.lastElementChild.shadowRoot`)
	e.eval(`(()=>{const r=`+box+`.querySelector('.r');return {Region:!!r,Hidden:!r||r.closest('[hidden]')!=null||getComputedStyle(r).display=='none'}})()`, &early)
	e.shown()
	var parts struct {
		Role, Live, Text string
		Buttons          int
		ButtonOutside    bool
	}
	e.eval(`(()=>{const w=`+box+`,r=w.querySelector('[role=status]');return {Role:r.getAttribute('role'),Live:r.getAttribute('aria-live'),Text:r.textContent,Buttons:r.querySelectorAll('button').length,ButtonOutside:w.querySelector('button').parentNode===w}})()`, &parts)
	if !early.Region || early.Hidden || parts.Live != "polite" || parts.Buttons != 0 || !parts.ButtonOutside ||
		parts.Text != "6 people viewed this in the last hour1 purchase in the last 24 hours" {
		t.Fatalf("live region before text %+v, after %+v", early, parts)
	}
	e.eval(`(()=>{window.muts=[];new MutationObserver(l=>l.forEach(m=>muts.push(m.type+" "+(m.target.nodeType==3?m.target.parentNode.localName:m.target.localName)+" "+(m.target.nodeType==3?m.target.data:"")+" "+(m.target.parentNode.closest?m.target.parentNode.closest('p'):m.target.closest('p'))?.textContent))).observe(`+box+`.querySelector('.r'),{subtree:true,childList:true,characterData:true,attributes:true});return true})()`, new(bool))
	refresh := func() {
		n, _ := e.fetches("/api/svc/product-proof")
		e.waitFor(`__clock.pending(60000) == 1`)
		e.eval(`__clock.fire(60000),true`, new(bool))
		testwait.Eventually(t, func() error {
			if m, settled := e.fetches("/api/svc/product-proof"); m <= n || !settled {
				return fmt.Errorf("proof %d of %d, settled %v", m, n+1, settled)
			}
			return nil
		})
		e.waitFor(`__clock.pending(60000) == 1`) // drawn, and the next refresh set
	}
	refresh()
	var muts []string
	if e.eval(`muts`, &muts); len(muts) != 0 {
		t.Fatalf("a refresh with the same counts wrote %q", muts)
	}
	e.post("/api/collect/product-view", `{"brand_id":"`+brandID+`","product":{"product_id":"p-live"},"context":{"session_id":"another"}}`)
	refresh()
	e.eval(`muts`, &muts)
	if want := []string{"characterData b 7 7 people viewed this in the last hour"}; strings.Join(muts, "|") != strings.Join(want, "|") {
		t.Fatalf("a new viewer wrote %q, want %q", muts, want)
	}
	e.noErrors()
}

// TestCloseByKeyboard closes the badge with Enter, Space and Escape:
// focus goes back where it was, and the badge stays closed for the session.
func TestCloseByKeyboard(t *testing.T) {
	e := newEnv(t)
	e.seed("p-kbd", 4, 0)
	url := e.page("/kbd", productPage("de", e.snippet()+`<script>svc("product",{product_id:"p-kbd"})</script>`, harness,
		`<main><p>Text</p></main><footer><a id="legal" href="#legal">Impressum</a></footer>`))
	for _, key := range []string{"\r", " ", kb.Escape} {
		t.Run(fmt.Sprintf("%q", key), func(t *testing.T) {
			e.t = t
			e.run(chromedp.Navigate(url))
			e.eval(`sessionStorage.removeItem('svc_closed'),true`, new(bool))
			e.run(chromedp.Reload())
			e.shown()
			e.eval(`document.getElementById('legal').focus(),true`, new(bool))
			e.run(chromedp.KeyEvent(kb.Tab))
			var focus string
			e.eval(`document.activeElement===document.body.lastElementChild&&document.activeElement.shadowRoot.activeElement.getAttribute('aria-label')`, &focus)
			if focus != closeNames["de"] {
				t.Fatalf("Tab from the last link focused %q, want the close button", focus)
			}
			var size struct{ W, H float64 }
			e.eval(`(()=>{const r=`+box+`.querySelector('button').getBoundingClientRect();return {W:r.width,H:r.height}})()`, &size)
			if size.W < 24 || size.H < 24 {
				t.Fatalf("close button %gx%g px, want at least 24x24", size.W, size.H)
			}
			e.run(chromedp.KeyEvent(key))
			e.waitFor(box + `.hidden`)
			e.eval(`document.activeElement.id`, &focus)
			if focus != "legal" {
				t.Fatalf("after closing, focus is on %q, want the link focused before", focus)
			}
			// Closed for the session: a reload draws nothing.
			e.run(chromedp.Reload())
			testwait.Eventually(t, func() error {
				if n, settled := e.fetches("/api/collect/product-view"); n != 1 || !settled {
					return fmt.Errorf("view not answered yet")
				}
				return nil
			})
			var shown bool
			e.eval(`(()=>{const h=document.body.lastElementChild;return !!(h.shadowRoot&&!h.shadowRoot.querySelector('.w').hidden)})()`, &shown)
			if shown {
				t.Fatal("the closed badge came back after a reload")
			}
			// An inline widget is not the badge: it still shows.
			e.run(chromedp.Navigate(e.page("/kbd-inline", productPage("de", e.snippet()+`<script>svc("product",{product_id:"p-kbd"})</script>`, "", `<div data-svc-proof></div>`))))
			e.shown()
			e.noErrors()
		})
	}
}

// TestCloseButtonOnTouch: 44x44 px with a coarse pointer.
func TestCloseButtonOnTouch(t *testing.T) {
	e := newEnv(t)
	e.seed("p-touch", 4, 0)
	if _, err := chromedp.Call(e.ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	e.run(chromedp.Navigate(e.page("/touch", productPage("en", e.snippet()+`<script>svc("product",{product_id:"p-touch"})</script>`, "", `<p>content</p>`))))
	e.shown()
	var coarse bool
	if e.eval(`matchMedia('(pointer: coarse)').matches`, &coarse); !coarse {
		t.Fatal("touch emulation gave no coarse pointer")
	}
	var size struct{ W, H float64 }
	e.eval(`(()=>{const r=`+box+`.querySelector('button').getBoundingClientRect();return {W:r.width,H:r.height}})()`, &size)
	if size.W < 44 || size.H < 44 {
		t.Fatalf("close button on touch %gx%g px, want at least 44x44", size.W, size.H)
	}
}

// TestBadgeNeverCoversFocus focuses every link of a long page at 320 px and
// at 400% zoom: the badge never covers the focused one; it stays inside the
// viewport, and narrow it is a chip that a tap opens. data-svc-offset
// lifts it.
func TestBadgeNeverCoversFocus(t *testing.T) {
	e := newEnv(t)
	e.seed("p-narrow", 5, 2)
	var links strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&links, `<p><a href="#l%d">Link number %d</a></p>`, i, i)
	}
	html := productPage("en", e.snippet()+`<script>svc("product",{product_id:"p-narrow"})</script>`, "",
		`<main>`+links.String()+`</main><footer><a href="#imprint">Imprint</a> <a href="#privacy">Privacy</a> <a href="#terms">Terms</a></footer>`)
	defer e.viewport(0, 0, 0)
	// A tab without the window's focus gets no focus events; a shopper's has it.
	if _, err := chromedp.Call(e.ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		name          string
		width, height int64
		scale         float64
	}{{"320px", 320, 640, 1}, {"400% zoom", 320, 180, 4}} {
		t.Run(v.name, func(t *testing.T) {
			e.t = t
			e.viewport(v.width, v.height, v.scale)
			e.run(chromedp.Navigate(e.page("/narrow", html)))
			e.shown()
			var r struct{ Left, Right, Width, Inner float64 }
			e.eval(`(()=>{const r=`+box+`.getBoundingClientRect();return {Left:r.left,Right:r.right,Width:r.width,Inner:innerWidth}})()`, &r)
			if r.Left < 16 || r.Right > r.Inner-16 || r.Width > r.Inner/2 {
				t.Fatalf("badge %+v: want a chip inside 16 px of each edge", r)
			}
			if v.scale == 1 {
				e.shot("corner-narrow-chip")
			}
			var under, covered []string
			var n int
			e.eval(`document.querySelectorAll('a').length`, &n)
			for i := 0; i < n; i++ {
				e.eval(fmt.Sprintf(`document.querySelectorAll('a')[%d].focus(),true`, i), new(bool))
				// Two frames: the script checks in the frame after focus.
				e.eval(`new Promise(r=>requestAnimationFrame(()=>requestAnimationFrame(()=>r(true))))`, new(bool))
				var c struct {
					Name           string
					Under, Covered bool
				}
				e.eval(`(()=>{const a=document.activeElement,r=a.getBoundingClientRect(),w=`+box+`,s=w.getBoundingClientRect(),o=r.right>s.left&&r.left<s.right&&r.bottom>s.top&&r.top<s.bottom;return {Name:a.textContent,Under:o,Covered:o&&getComputedStyle(w).opacity!="0"}})()`, &c)
				if c.Under {
					under = append(under, c.Name)
				}
				if c.Covered {
					covered = append(covered, c.Name)
				}
			}
			if len(under) == 0 || len(covered) > 0 {
				t.Fatalf("links under the badge %q, covered by it %q: want some under, none covered", under, covered)
			}
			// Focus on its button, or a tap, opens the chip into sentences.
			var open float64
			e.eval(box+`.querySelector('button').focus(),`+box+`.getBoundingClientRect().width`, &open)
			if open <= r.Width {
				t.Fatalf("focused, the chip is %g px wide, closed %g", open, r.Width)
			}
			e.eval(`document.activeElement.blur(),`+box+`.click(),`+box+`.getBoundingClientRect().width`, &open)
			if open <= r.Width {
				t.Fatalf("tapped, the chip is %g px wide, closed %g", open, r.Width)
			}
			e.noErrors()
		})
	}
	t.Run("offset", func(t *testing.T) {
		e.t = t
		e.viewport(800, 600, 1)
		e.run(chromedp.Navigate(e.page("/offset", strings.Replace(html, "<body>", `<body data-svc-offset="64">`, 1))))
		e.shown()
		var gap float64
		e.eval(`innerHeight-`+box+`.getBoundingClientRect().bottom`, &gap)
		if gap != 80 {
			t.Fatalf("the badge is %g px above the bottom, want 16+64", gap)
		}
	})
}

// TestWidgetFontSizeAndLayoutShift: the widget follows the shopper's font
// size, and its reserved height (min-height 3.625rem on [data-svc-proof])
// holds at 320, 768 and 1280 px, in every language and on an Arabic page:
// cumulative layout shift under 0.01.
func TestWidgetFontSizeAndLayoutShift(t *testing.T) {
	e := newEnv(t)
	e.seed("p-cls", 5, 2)
	pageFor := func(lang string) string {
		html := productPage(lang, e.snippet()+`<script>svc("product",{product_id:"p-cls"})</script>`, shiftObserver,
			`<main><h1>Schuh</h1><div data-svc-proof style="min-height:3.625rem"></div><p>Beschreibung des Artikels, lang genug für eine Zeile.</p></main>`)
		if lang == "ar" {
			html = strings.Replace(html, "<html ", `<html dir="rtl" `, 1)
		}
		return html
	}
	html := pageFor("de")
	defer e.viewport(0, 0, 0)
	for _, width := range []int64{320, 768, 1280} {
		for _, lang := range []string{"en", "de", "fr", "es", "ar"} {
			t.Run(fmt.Sprint(width, lang), func(t *testing.T) {
				e.t = t
				e.viewport(width, 800, 1)
				e.run(chromedp.Navigate(e.page("/cls", pageFor(lang))))
				e.shown()
				var m struct{ Shift, Height, Reserved, Left, HostLeft, Right, HostRight float64 }
				e.eval(`(()=>{const h=document.querySelector('[data-svc-proof]'),w=`+box+`;return {Shift:window.shifts,Height:w.getBoundingClientRect().height,Reserved:h.getBoundingClientRect().height,Left:w.getBoundingClientRect().left,HostLeft:h.getBoundingClientRect().left,Right:w.getBoundingClientRect().right,HostRight:h.getBoundingClientRect().right}})()`, &m)
				if m.Shift >= 0.01 || m.Height != m.Reserved || m.Left < m.HostLeft || m.Right > m.HostRight {
					t.Fatalf("at %d px: %+v, want CLS < 0.01 and the widget filling its reserved height, inside its host", width, m)
				}
			})
		}
	}
	t.Run("font size 32px", func(t *testing.T) {
		e.t = t
		e.viewport(1280, 800, 1)
		if _, err := chromedp.Call(e.ctx, page.SetFontSizes, page.SetFontSizesParams{FontSizes: &page.FontSizes{Standard: 32}}); err != nil {
			t.Fatal(err)
		}
		defer chromedp.Call(e.ctx, page.SetFontSizes, page.SetFontSizesParams{FontSizes: &page.FontSizes{Standard: 16}})
		e.run(chromedp.Navigate(e.page("/cls", html)))
		e.shown()
		var m struct {
			Font          string
			Height, Shift float64
		}
		e.eval(`(()=>{const w=`+box+`;return {Font:getComputedStyle(w.querySelector('p')).fontSize,Height:w.getBoundingClientRect().height,Shift:window.shifts}})()`, &m)
		if m.Font != "28px" || m.Height != 3.625*32 || m.Shift >= 0.01 {
			t.Fatalf("with 32 px text: %+v, want 28 px sentences, 116 px tall, no shift", m)
		}
		e.shot("inline-font-32px")
	})
}

// TestAccentColour: widget.accent colours the icons and numbers on a light
// background; a value that could end the CSS rule is ignored.
func TestAccentColour(t *testing.T) {
	e := newEnv(t)
	e.seed("p-accent", 4, 1)
	for _, tt := range []struct{ accent, want string }{
		{"#c2185b", "rgb(194, 24, 91)"},
		{"red}.w{display:none", "rgb(11, 105, 163)"},
	} {
		e.run(chromedp.Navigate(e.page("/accent", productPage("en", e.snippet()+`<script>svc("init",{widget:{accent:`+strconvQuote(tt.accent)+`}});svc("product",{product_id:"p-accent"})</script>`, "", `<p>content</p>`))))
		e.shown()
		var got string
		e.eval(`getComputedStyle(`+box+`.querySelector('b')).color+" "+getComputedStyle(`+box+`.querySelector('svg')).color`, &got)
		if got != tt.want+" "+tt.want {
			t.Fatalf("accent %q: number and icon %s, want %s", tt.accent, got, tt.want)
		}
		if tt.accent == "#c2185b" {
			e.shot("corner-accent")
		}
	}
	e.noErrors()
}

// TestDemoPageAxe: the demo page, its own text included, passes axe.
func TestDemoPageAxe(t *testing.T) {
	axe := axeSource(t)
	e := newEnv(t)
	e.seed("p-demo", 5, 1)
	h, err := script.DemoPage(script.DemoProduct{BrandID: brandID, ProductID: "p-demo", Title: "Trail Shoe", Description: "A shoe.", Price: 89, Currency: "EUR"}, e.snippet())
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/demo", nil))
	e.run(chromedp.Navigate(e.page("/demo", rec.Body.String())))
	e.shown()
	var bad []string
	e.eval(`(()=>{`+axe+`;return axe.run(document,{resultTypes:["violations"]})})().then(r=>r.violations.filter(v=>v.impact=="serious"||v.impact=="critical").map(v=>v.id+": "+v.nodes.map(n=>JSON.stringify(n.target)).join(" ")))`, &bad)
	if len(bad) > 0 {
		t.Fatalf("axe, demo page:\n%s", strings.Join(bad, "\n"))
	}
	e.noErrors()
}
