package script_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/svc-project/svc"
)

// The widget on phones and desktops (docs/client-script.md, Phones): at
// 375 and 1280 px, light and dark, a toast never covers the corner badge,
// each fact has its own icon, the carts line says the proof's real count
// from the brand's threshold on, the brand's font: inherit takes the page's
// typeface, and axe finds nothing serious.

// badgeBox is the corner badge's box (the host that is not the toasts').
const badgeBox = `document.querySelector('body > div:not([data-svc-toasts])').shadowRoot.querySelector('.w')`

// carted sends add-to-carts of product from n sessions.
func (e *env) carted(product string, n int) {
	e.t.Helper()
	for i := 0; i < n; i++ {
		e.post("/api/collect/product-cart", fmt.Sprintf(`{"brand_id":%q,"product":{"product_id":%q},"context":{"session_id":"cart-%s-%d"}}`, brandID, product, product, i))
	}
}

// bottomShot saves the bottom of the viewport, where the corner widgets
// are, as docs/widget/NAME.png when SVC_SCREENSHOTS names that folder.
func (e *env) bottomShot(name string, height float64) {
	e.t.Helper()
	dir := os.Getenv("SVC_SCREENSHOTS")
	if dir == "" {
		return
	}
	var v struct{ W, H float64 }
	e.eval(`({W:innerWidth,H:innerHeight})`, &v)
	res, err := chromedp.Call(e.ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Clip: &page.Viewport{X: 0, Y: v.H - height, Width: v.W, Height: height, Scale: 1},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), res.Data, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// axText is the text of the page's accessibility tree, as Chromium gives it
// to screen readers: every static text not ignored, in order, joined.
func (e *env) axText() string {
	e.t.Helper()
	tree, err := chromedp.Call(e.ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		e.t.Fatal(err)
	}
	var b strings.Builder
	for _, n := range tree.Nodes {
		if n.Ignored || n.Role == nil || n.Name == nil || !strings.Contains(string(n.Role.Value), "StaticText") {
			continue
		}
		var name string
		if json.Unmarshal(n.Name.Value, &name) == nil {
			b.WriteString(name)
		}
	}
	return b.String()
}

func TestWidgetOnPhones(t *testing.T) {
	axe := axeSource(t)
	e := newEnv(t, func(b *svc.Brand) {
		b.WidgetVariant = "now inline carts toasts"
		b.Widget.Font = "inherit"
	})
	e.seed("p-phone", 8, 1)
	e.carted("p-phone", 4)
	e.bought("o-ph", "p-other", "Rain Jacket", 12*time.Minute, "DE", "Berlin")
	e.bought("o-ph2", "p-other", "Rain Jacket", 14*time.Minute, "DE", "Berlin")
	ld := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","productID":"p-phone","name":"Phone Shoe"}</script>`
	const font = `<style>body{font-family:Georgia,serif;margin:0}main{padding:1rem}</style>`
	// Toasts every 90 s: a toast that waits is tried again then (not at the
	// refresh's 60 s).
	corner := productPage("en", harness+e.snippet(), ld+font, `<main><h1>Phone Shoe</h1><p data-svc-toast-every="90">A shoe for walking.</p></main>`)
	inline := productPage("en", harness+e.snippet(), ld+font, `<main><h1>Phone Shoe</h1><div data-svc-proof style="min-height:7.25rem"></div></main>`)
	defer e.viewport(0, 0, 0)
	for _, width := range []int64{375, 1280} {
		for _, scheme := range []string{"light", "dark"} {
			name := fmt.Sprint(width, "-", scheme)
			t.Run(name, func(t *testing.T) {
				e.t = t
				e.viewport(width, 700, 1)
				e.emulate("prefers-color-scheme", scheme)
				defer e.emulate()
				e.freshToasts(e.page("/phone/"+name, corner))
				e.waitFor(`[...` + badgeBox + `.querySelectorAll('p')].length == 4`)
				e.waitFor(`![...` + badgeBox + `.querySelectorAll('p')].some(p=>p.getAnimations().length)`)
				// Every fact in words, the carts line with the proof's count.
				var facts struct {
					Text  []string
					Icons []string
					Font  string
					Size  float64
				}
				e.eval(`(()=>{const w=`+badgeBox+`,ps=[...w.querySelectorAll('p')];return {Text:ps.map(p=>p.textContent),Icons:ps.map(p=>p.querySelector('path').getAttribute('d')),Font:getComputedStyle(w).fontFamily,Size:parseFloat(getComputedStyle(ps[0]).fontSize)}})()`, &facts)
				// Each run is a new session, one more viewer.
				want := regexp.MustCompile(`^(\d+) people are viewing this now\|(\d+) people viewed this in the last hour\|4 people have this in their cart\|1 purchase in the last 24 hours$`)
				if m := want.FindStringSubmatch(strings.Join(facts.Text, "|")); m == nil || m[1] != m[2] {
					t.Fatalf("badge says %q, want %q", facts.Text, want)
				}
				seen := map[string]bool{}
				for _, d := range facts.Icons {
					seen[d] = true
				}
				if len(seen) != 4 {
					t.Fatalf("icons %q: want four different ones, now and the last hour apart", facts.Icons)
				}
				if facts.Font != "Georgia, serif" || facts.Size < 14 {
					t.Fatalf("font %q at %g px, want the page's Georgia, serif at 14 px or more", facts.Font, facts.Size)
				}
				// On a phone the badge is a chip: numbers and icons to the eye,
				// whole sentences to a screen reader (the words are clipped,
				// not removed).
				var chip struct {
					Chip, Read bool
					Words      float64
				}
				e.eval(`(()=>{const w=`+badgeBox+`,s=w.querySelector('p span'),r=w.querySelector('[role=status]');
					const read=[...r.querySelectorAll('span')].every(x=>{const c=getComputedStyle(x);return c.display!='none'&&c.visibility=='visible'&&!x.closest('[aria-hidden=true]')});
					return {Chip:getComputedStyle(r).display=='flex',Words:s.getBoundingClientRect().width,Read:read&&r.getAttribute('aria-live')=='polite'}})()`, &chip)
				if chip.Chip != (width == 375) || width == 375 && chip.Words > 1 || !chip.Read {
					t.Fatalf("at %d px: chip %v, words %g px wide, read by screen readers %v", width, chip.Chip, chip.Words, chip.Read)
				}
				// What a screen reader gets: the accessibility tree's text has
				// each sentence whole, also in the chip.
				if text := e.axText(); !strings.Contains(text, "people are viewing this now") || !strings.Contains(text, "people have this in their cart") {
					t.Fatalf("at %d px the accessibility tree's text is %q, without the sentences", width, text)
				}
				// The toast's turn comes.
				var ok bool
				e.eval(`__clock.fire(8000),true`, &ok)
				e.waitFor(`__net.settled == __net.sent.length && __net.sent.includes('/api/svc/recent-activity')`)
				var r struct {
					Toast, Overlap bool
					Buttons        int
					Waits          int
				}
				const geometry = `(()=>{const t=` + toast + `,b=` + badgeBox + `,tr=t.getBoundingClientRect(),br=b.getBoundingClientRect();
					const shown=!t.classList.contains('e')&&tr.width>0;
					const btn=[...document.querySelectorAll('body > div')].flatMap(h=>h.shadowRoot?[...h.shadowRoot.querySelectorAll('button')]:[]).filter(x=>x.getBoundingClientRect().width>0);
					return {Toast:shown,Overlap:shown&&tr.right>br.left&&tr.left<br.right&&tr.bottom>br.top&&tr.top<br.bottom,Buttons:btn.length,Waits:__clock.pending(90000)}})()`
				// Shown, or put off until the feed is asked again, 90 s on.
				e.waitFor(`__clock.pending(90000) == 1 || ` + toastText + ` != ""`)
				if width == 1280 {
					e.waitFor(`!` + toast + `.getAnimations().length`)
				}
				e.eval(geometry, &r)
				switch {
				case r.Overlap:
					t.Fatalf("at %d px the toast covers the badge: %+v", width, r)
				case width == 1280 && (!r.Toast || r.Buttons != 2):
					t.Fatalf("at 1280 px: %+v, want the toast in the other corner and two close buttons", r)
				case width == 375 && (r.Toast || r.Buttons != 1 || r.Waits != 1):
					t.Fatalf("at 375 px: %+v, want the toast waiting for its next turn and one close button", r)
				}
				e.bottomShot("phone-"+name, map[int64]float64{375: 260, 1280: 200}[width])
				// axe, on the page and inside both shadow roots.
				e.eval(`window.axe?true:(()=>{`+axe+`;return true})()`, &ok)
				var bad []string
				e.eval(`(async()=>[await axe.run(document),await axe.run({fromShadowDom:["body > div:not([data-svc-toasts])",".w"]}),await axe.run({fromShadowDom:["[data-svc-toasts]",".w"]})])().then(rs=>rs.flatMap(r=>r.violations.filter(v=>v.impact=="serious"||v.impact=="critical").map(v=>v.id)))`, &bad)
				if len(bad) > 0 {
					t.Fatalf("axe: %v", bad)
				}
				e.noErrors()
			})
		}
	}
	// With no badge in its place (an inline widget), a phone shows toasts:
	// they wait for the badge, they are not off.
	t.Run("375 inline", func(t *testing.T) {
		e.t = t
		e.viewport(375, 700, 1)
		e.freshToasts(e.page("/phone/inline", inline))
		e.firstToast()
		var r struct{ Font string }
		e.eval(`({Font:getComputedStyle(`+toast+`).fontFamily})`, &r)
		if r.Font != "Georgia, serif" {
			t.Fatalf("toast font %q, want the page's", r.Font)
		}
		e.bottomShot("phone-375-inline-toast", 260)
		e.noErrors()
	})
}

// TestCartsLine: the carts line shows the proof's real count from the
// brand's threshold (3 by default) on, and only when the brand turned the
// part on.
func TestCartsLine(t *testing.T) {
	e := newEnv(t, func(b *svc.Brand) { b.WidgetVariant = "carts" })
	e.carted("p-c2", 2)
	e.carted("p-c3", 3)
	e.carted("p-c7", 7)
	for _, tt := range []struct{ product, lang, variant, want string }{
		{"p-c2", "en", "", ""},
		{"p-c3", "en", "", "3 people have this in their cart"},
		{"p-c7", "de", "", "7 Personen haben diesen Artikel im Warenkorb"},
		{"p-c7", "fr", "", "7 personnes ont cet article dans leur panier"},
		{"p-c7", "es", "", "7 personas tienen este artículo en su carrito"},
		{"p-c7", "en", "inline", ""}, // the page's own variant leaves the part out
	} {
		t.Run(tt.product+" "+tt.lang+" "+tt.variant, func(t *testing.T) {
			e.t = t
			attr := ""
			if tt.variant != "" {
				attr = ` data-svc-variant="` + tt.variant + `"`
			}
			before := e.proofs.Load()
			e.run(chromedp.Navigate(e.page("/carts/"+tt.product+tt.lang+tt.variant, productPage(tt.lang,
				e.snippet()+`<script>svc("product",{product_id:"`+tt.product+`"})</script>`, "", `<div data-svc-proof`+attr+`></div>`))))
			e.waitProofs(before)
			if tt.want != "" {
				e.waitFor(widgetText + ` == ` + strconvQuote(tt.want))
			}
			e.waitFor(`__svc.k.d`)
			var proof struct{ Carts int }
			e.eval(`svc("proof",{product_id:"`+tt.product+`"})`, &proof)
			if got := e.text(widgetText); got != tt.want || !strings.Contains(tt.want, fmt.Sprint(proof.Carts)) && tt.want != "" {
				t.Fatalf("widget says %q with %d carts, want %q", got, proof.Carts, tt.want)
			}
			e.noErrors()
		})
	}
}
