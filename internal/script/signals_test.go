package script_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/testwait"
)

// The client script's parts of the live signals, the identifiers and the
// holdout, in Chromium: docs/client-script.md, "Variants", "Carts",
// "Identifiers" and "Holdout".

// lastBody waits for an event sent to path whose body contains want, and
// returns it decoded, with the status the service answered.
func (e *env) lastBody(path, want string) (map[string]any, int) {
	e.t.Helper()
	var body map[string]any
	var status int
	testwait.Eventually(e.t, func() error {
		e.mu.Lock()
		defer e.mu.Unlock()
		for i := len(e.bodies[path]) - 1; i >= 0; i-- {
			if strings.Contains(e.bodies[path][i], want) {
				status = e.answers[path][i]
				return json.Unmarshal([]byte(e.bodies[path][i]), &body)
			}
		}
		return fmt.Errorf("no %s with %s among %q", path, want, e.bodies[path])
	})
	return body, status
}

// identifiers returns what the store keeps of a product's identifiers.
func (e *env) identifiers(product string) [3]string {
	e.t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(e.dir, sqlite.FileName))
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	var g, m, b sql.NullString
	if err := db.QueryRow(`SELECT gtin, mpn, maker FROM products WHERE product_id = ?`, product).Scan(&g, &m, &b); err != nil {
		e.t.Fatal(err)
	}
	return [3]string{g.String, m.String, b.String}
}

func TestIdentifiersFromJSONLD(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name, ld string
		want     map[string]any // the product object sent
		stored   [3]string      // gtin (GTIN-14), mpn, maker as stored
		product  string
	}{
		{
			name:   "EAN-13, mpn, brand object",
			ld:     `{"@context":"https://schema.org","@type":"Product","productID":"p-id1","name":"Lamp","gtin13":"4006381333931","mpn":"MX-500","brand":{"@type":"Brand","name":"Acme"}}`,
			want:   map[string]any{"product_id": "p-id1", "title": "Lamp", "gtin": "04006381333931", "mpn": "MX-500", "brand": "Acme"},
			stored: [3]string{"04006381333931", "MX-500", "Acme"}, product: "p-id1",
		},
		{
			name:   "UPC-A as a number, brand string, in a graph",
			ld:     `{"@context":"https://schema.org","@graph":[{"@type":"WebPage"},{"@type":"Product","sku":"p-id2","gtin12":36000291452,"brand":"Maker Co"}]}`,
			want:   map[string]any{"product_id": "p-id2", "sku": "p-id2", "gtin": "00036000291452", "brand": "Maker Co"},
			stored: [3]string{"00036000291452", "", "Maker Co"}, product: "p-id2",
		},
		{
			// A bad check digit would make the API refuse the whole view:
			// the script leaves the GTIN out and the view counts.
			name:   "bad check digit, generic gtin",
			ld:     `{"@context":"https://schema.org","@type":"Product","productID":"p-id3","gtin":"4006381333932","mpn":"  A\nB  "}`,
			want:   map[string]any{"product_id": "p-id3", "mpn": "A B"},
			stored: [3]string{"", "A B", ""}, product: "p-id3",
		},
		{
			name:   "GTIN-8 and too long a maker",
			ld:     `{"@context":"https://schema.org","@type":"Product","productID":"p-id4","gtin8":"96385074","brand":{"name":"` + strings.Repeat("m", 129) + `"}}`,
			want:   map[string]any{"product_id": "p-id4", "gtin": "00000096385074"},
			stored: [3]string{"00000096385074", "", ""}, product: "p-id4",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			url := e.page(fmt.Sprint("/id", i), productPage("en", e.snippet(), `<script type="application/ld+json">`+tt.ld+`</script>`, ""))
			e.run(chromedp.Navigate(url))
			body, status := e.lastBody("/api/collect/product-view", `"`+tt.product+`"`)
			if status != 200 {
				t.Fatalf("the service answered %d to %v", status, body)
			}
			got, _ := body["product"].(map[string]any)
			delete(got, "url")
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("product sent %v, want %v", got, tt.want)
			}
			e.waitViews(tt.product, 1)
			if s := e.identifiers(tt.product); s != tt.stored {
				t.Fatalf("stored identifiers %q, want %q", s, tt.stored)
			}
			e.noErrors()
		})
	}
	// svc("product", ...) takes them too.
	e.t = t
	e.run(chromedp.Navigate(e.page("/id-call", productPage("en", e.snippet()+`<script>svc("product",{product_id:"p-id5",gtin:"96385074",mpn:"Z1",brand:"Zed"})</script>`, "", ""))))
	body, _ := e.lastBody("/api/collect/product-view", `"p-id5"`)
	if p := body["product"].(map[string]any); p["gtin"] != "00000096385074" || p["mpn"] != "Z1" || p["brand"] != "Zed" {
		t.Fatalf("svc(\"product\") sent %v", p)
	}
}

func TestCart(t *testing.T) {
	e := newEnv(t)
	ld := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","productID":"p-cart","name":"Cart Shoe","gtin13":"4006381333931"}</script>`
	e.run(chromedp.Navigate(e.page("/cart", productPage("fr-FR", e.snippet(), ld, `<div data-svc-proof></div>`))))
	view, _ := e.lastBody("/api/collect/product-view", `"p-cart"`)
	var ok bool
	e.eval(`svc("cart",{quantity:2});svc("cart",{product_id:"p-other",title:"Other\nShoe"});svc("cart");true`, &ok)
	// The page's product: a view's body, plus the quantity.
	body, status := e.lastBody("/api/collect/product-cart", `"quantity":2`)
	if status != 200 {
		t.Fatalf("cart answered %d", status)
	}
	q := body["quantity"]
	delete(body, "quantity")
	if q != 2.0 || fmt.Sprint(body) != fmt.Sprint(view) {
		t.Fatalf("cart body %v (quantity %v), want the view's body %v and quantity 2", body, q, view)
	}
	// Another product, named: its own fields, not the page's URL; no quantity (1).
	other, status := e.lastBody("/api/collect/product-cart", `"p-other"`)
	if p := other["product"].(map[string]any); status != 200 || fmt.Sprint(p) != "map[product_id:p-other title:Other Shoe]" || other["quantity"] != nil {
		t.Fatalf("cart of another product: %d %v", status, other)
	}
	testwait.Eventually(t, func() error {
		var carts float64
		e.eval(`svc("proof").then(p=>p.carts)`, &carts)
		if carts != 1 { // one session, three carts of p-cart... the proof counts sessions
			return fmt.Errorf("carts in the proof: %v, want 1 session", carts)
		}
		return nil
	})
	e.noErrors()
}

// now is the widget's "now" line in each language.
var nowLines = map[string]string{
	"en": "5 people are viewing this now",
	"de": "5 Personen sehen sich diesen Artikel gerade an",
	"fr": "5 personnes consultent cet article en ce moment",
	"es": "5 personas están viendo este artículo ahora",
}

func TestNowLine(t *testing.T) {
	e := newEnv(t)
	e.seed("p-now", 4, 1)
	// p-quiet: 4 viewers in the hour with this tab, 2 of them now.
	e.seed("p-quiet", 1, 0)
	for i := 0; i < 2; i++ {
		e.post("/api/collect/product-view", fmt.Sprintf(`{"brand_id":%q,"product":{"product_id":"p-quiet"},"context":{"session_id":"old-%d","timestamp":%q}}`,
			brandID, i, time.Now().Add(-30*time.Minute).UTC().Format(time.RFC3339)))
	}
	for i, l := range []string{"en", "de", "fr", "es"} {
		for _, tt := range []struct {
			name, attr, product, want string
		}{
			{"now", `data-svc-variant="now"`, "p-now", nowLines[l]},
			{"now and inline", `data-svc-variant="inline now"`, "p-now", nowLines[l] + "|"},
			// 2 viewers now: no now line, but the hour's 4 viewers.
			{"below the threshold", `data-svc-variant="now inline"`, "p-quiet", map[string]string{
				"en": "4 people viewed this in the last hour", "de": "4 Personen haben diesen Artikel in der letzten Stunde angesehen",
				"fr": "4 personnes ont consulté cet article au cours de la dernière heure", "es": "4 personas vieron este artículo en la última hora",
			}[l]},
		} {
			t.Run(l+" "+tt.name, func(t *testing.T) {
				e.t = t
				ld := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","productID":"` + tt.product + `"}</script>`
				url := e.page(fmt.Sprintf("/now/%d/%s", i, strings.ReplaceAll(tt.name, " ", "-")), productPage(l, e.snippet(), ld, `<div data-svc-proof `+tt.attr+`></div>`))
				before := e.proofs.Load()
				e.run(chromedp.Navigate(url))
				e.waitProofs(before)
				if tt.want != "" {
					e.waitFor(widgetText + `.startsWith(` + strconvQuote(tt.want) + `)`)
				}
				var got string
				e.eval(widgetText, &got)
				switch {
				case strings.HasSuffix(tt.want, "|"):
					// With the inline line: the now line first, then the hour's.
					if parts := strings.Split(got, "|"); len(parts) != 3 || parts[0]+"|" != tt.want {
						t.Fatalf("widget says %q, want %q and the two inline sentences", got, tt.want)
					}
				case got != tt.want:
					t.Fatalf("widget says %q, want %q", got, tt.want)
				}
				if tt.name == "now" {
					e.shown()
					e.shot("now-" + l)
				}
				e.noErrors()
			})
		}
	}
}

// bucketed returns a session id whose bucket is below percent when in is
// true, and at or above it otherwise.
func bucketed(percent int, in bool) string {
	for i := 0; ; i++ {
		id := fmt.Sprintf("sess-%d-ü", i) // not ASCII: the hash is over UTF-8 bytes
		if holdout.ArmOf(id, percent) == holdout.ArmHeldOut == in {
			return id
		}
	}
}

func TestHoldout(t *testing.T) {
	e := newEnv(t, func(b *svc.Brand) { b.Holdout = 50 })
	e.seed("p-hold", 5, 2)
	ld := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","productID":"p-hold"}</script>`
	for _, held := range []bool{false, true} {
		t.Run(fmt.Sprint("held out ", held), func(t *testing.T) {
			e.t = t
			sid := bucketed(50, held)
			page := productPage("en", `<script>sessionStorage.setItem("svc_sid",`+strconvQuote(sid)+`)</script>`+harness+e.snippet(), ld,
				`<div data-svc-proof data-svc-variant="inline now toasts"></div>`)
			before := e.proofs.Load()
			e.run(chromedp.Navigate(e.page(fmt.Sprint("/hold/", held), page)))
			e.waitProofs(before)
			// The view counts either way; the server puts it in the same arm.
			body, _ := e.lastBody("/api/collect/product-view", strconvQuote(sid))
			if body["context"].(map[string]any)["session_id"] != sid {
				t.Fatalf("view %v", body)
			}
			if !held {
				e.waitFor(widgetText + ` != ""`)
				e.waitFor(`__net.sent.length && document.querySelector('script[src$="/svc-corner.js"]')`)
				return
			}
			e.waitFor(`__net.settled == __net.sent.length`)
			// The widget's code loads with the proof, before the session's
			// arm is known (docs/client-script.md, Size): it draws nothing.
			var got string
			var toasts bool
			e.eval(widgetText, &got)
			e.eval(`!!document.querySelector('[data-svc-toasts]')`, &toasts)
			if got != "" || toasts {
				t.Fatalf("a held-out session sees %q (toasts: %v)", got, toasts)
			}
			e.noErrors()
		})
	}
	// A page without a product has no proof: the toasts ask for the feed's
	// first product's, and show nothing to a held-out session.
	e.t = t
	e.bought("o-hold", "p-hold", "Hold Shoe", 20*time.Minute, "DE", "")
	for _, held := range []bool{false, true} {
		t.Run(fmt.Sprint("toasts without a product, held out ", held), func(t *testing.T) {
			e.t = t
			sid := bucketed(50, held)
			page := productPage("en", `<script>sessionStorage.clear();sessionStorage.setItem("svc_sid",`+strconvQuote(sid)+`)</script>`+harness+e.snippet(), "",
				`<main><h1>Home</h1></main><span data-svc-variant="toasts"></span>`)
			e.run(chromedp.Navigate(e.page(fmt.Sprint("/hold/home/", held), page)))
			e.waitFor(`window.__svc&&__svc.k&&__svc.k.t&&__clock.pending(8000)==1`)
			var ok bool
			e.eval(`__clock.fire(8000),true`, &ok)
			if !held {
				// minutes_ago counts from a time coarsened within the
				// order's minute (docs/honesty.md, Times): one off either way.
				e.waitFor(`/^Hold Shoe\|Bought (19|20|21) minutes ago$/.test(` + toastText + `)`)
				return
			}
			e.waitFor(`__net.sent.includes("/api/svc/product-proof") && __net.settled == __net.sent.length`)
			if got := e.text(toastText); got != "" {
				t.Fatalf("a held-out session sees the toast %q", got)
			}
			e.noErrors()
		})
	}
	// The script's bucket is the server's, for every holdout.
	e.t = t
	for i := 0; i < 30; i++ {
		sid := fmt.Sprintf("%08x-séance-%d", i*2654435761, i)
		b := holdout.SessionBucket(sid)
		var got []bool
		e.eval(`(()=>{sessionStorage.setItem("svc_sid",`+strconvQuote(sid)+`);const h=__svc.k.h;return [h({widget:{holdout:`+fmt.Sprint(b)+`}}),h({widget:{holdout:`+fmt.Sprint(b+1)+`}}),h({widget:{holdout:0}})]})()`, &got)
		if fmt.Sprint(got) != fmt.Sprint([]bool{false, true, false}) {
			t.Fatalf("session %q, bucket %d: the script says held out %v under holdouts %d, %d and 0", sid, b, got, b, b+1)
		}
	}
}
