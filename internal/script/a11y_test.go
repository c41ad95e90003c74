package script_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
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
	dir := os.Getenv("SVC_SCREENSHOTS")
	if dir == "" {
		return
	}
	var r struct{ X, Y, W, H float64 }
	e.eval(`(()=>{const r=`+box+`.getBoundingClientRect();return {X:r.x,Y:r.y,W:r.width,H:r.height}})()`, &r)
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
				if tt.dark == "dark" {
					var bg string
					e.eval(`getComputedStyle(`+box+`).backgroundColor`, &bg)
					if bg != "rgb(31, 41, 51)" {
						t.Fatalf("dark mode background %s", bg)
					}
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
