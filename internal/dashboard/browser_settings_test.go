package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// frameText is what the real widget shows in the preview frame: the text
// of every shadow root there (the inline widget, the badge, the toasts).
const frameText = `(()=>{const f=document.getElementById("preview-frame");const d=f&&f.contentDocument;if(!d||d.readyState!="complete")return "";` +
	`return [...d.querySelectorAll("*")].filter(e=>e.shadowRoot).map(e=>e.shadowRoot.textContent).join(" | ")})()`

// typeInto sets a field as typing does, with its input event.
func (e *env) typeInto(id, value string) {
	e.t.Helper()
	e.eval(`(()=>{const i=document.getElementById(`+quote(id)+`);i.value=`+quote(value)+`;i.dispatchEvent(new Event("input",{bubbles:true}));return true})()`, new(bool))
}

// toggle clicks a checkbox or radio button, as a person does.
func (e *env) toggle(id string) {
	e.t.Helper()
	e.eval(`(()=>{document.getElementById(`+quote(id)+`).click();return true})()`, new(bool))
}

// previewShows waits until the preview's widget shows every text of want
// and none of not.
func (e *env) previewShows(want []string, not ...string) {
	e.t.Helper()
	var cond []string
	for _, w := range want {
		cond = append(cond, "t.includes("+quote(w)+")")
	}
	for _, n := range not {
		cond = append(cond, "!t.includes("+quote(n)+")")
	}
	js := `(()=>{const t=` + frameText + `;return ` + strings.Join(cond, "&&") + `})()`
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var ok bool
		e.eval(js, &ok)
		if ok {
			return
		}
	}
	var txt, src string
	e.eval(frameText, &txt)
	e.eval(`document.getElementById("preview-frame").src`, &src)
	e.t.Fatalf("the preview shows %q, not %q without %q (frame %s)", txt, want, not, src)
}

// darkMode emulates the system's dark colour scheme, or not.
func (e *env) darkMode(on bool) {
	e.t.Helper()
	v := "light"
	if on {
		v = "dark"
	}
	if _, err := chromedp.Call(e.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}}); err != nil {
		e.t.Fatal(err)
	}
}

// axeBoth runs axe-core at 1280 and 390 px, in light and dark.
func (e *env) axeBoth(name string) {
	e.t.Helper()
	for _, dark := range []bool{false, true} {
		e.darkMode(dark)
		for _, w := range []int64{1280, 390} {
			e.viewport(w, 900, w < 500)
			e.checkAxe(fmt.Sprintf("%s at %d px, dark %t", name, w, dark))
		}
	}
	e.darkMode(false)
	e.viewport(1280, 900, false)
}

// The settings in Chromium: the preview is the real widget and follows
// every setting that shows in it as it is typed; "Saved" after saving;
// keys with a label and their last use; axe on the settings, keys,
// operator and account pages at both widths, light and dark.
func TestBrowserSettings(t *testing.T) {
	f := newFixture(t)
	e := newBrowser(t)
	e.run(chromedp.Navigate(f.srv.URL + "/dashboard/signin?token=" + url.QueryEscape(f.link("br_acme"))))
	e.click("form button[type=submit]")
	e.navigated("/dashboard/brands/br_acme/")
	e.run(chromedp.Navigate(f.srv.URL + "/dashboard/brands/br_acme/settings"))
	e.navigated("/dashboard/brands/br_acme/settings")

	// The real widget, with the real counts of the most viewed product:
	// 3 viewers (threshold 2) and 1 purchase.
	e.previewShows([]string{"3 people viewed this in the last hour", "1 purchase in the last 24 hours"})
	e.axeBoth("settings")
	e.shot("settings")
	e.darkMode(true)
	e.shot("settings-dark")
	e.darkMode(false)

	// Thresholds.
	e.typeInto("min_viewers", "500")
	e.previewShows([]string{"1 purchase in the last 24 hours"}, "people viewed")
	e.typeInto("min_purchases", "500")
	e.previewShows(nil, "people viewed", "purchase in the last")
	e.typeInto("min_viewers", "1")
	e.typeInto("min_purchases", "1")
	e.previewShows([]string{"3 people viewed this in the last hour", "1 purchase in the last 24 hours"})
	// Languages: the first one listed.
	e.typeInto("languages", "de, en")
	e.previewShows([]string{"3 Personen haben diesen Artikel in der letzten Stunde angesehen", "1 Kauf in den letzten 24 Stunden"})
	e.typeInto("languages", "fr")
	e.previewShows([]string{"3 personnes ont consulté cet article"})
	e.typeInto("languages", "en")
	// The font: the page's own, then svc's.
	font := `(()=>{const d=document.getElementById("preview-frame").contentDocument;const h=d&&d.querySelector("[data-svc-proof]");` +
		`const w=h&&h.shadowRoot&&h.shadowRoot.querySelector(".w:not(.e)");return w?w.classList.contains("i")+" "+(getComputedStyle(w).fontFamily==getComputedStyle(d.body).fontFamily):""})()`
	e.toggle("widget_font-inherit")
	e.waitFor(font + ` == "true true"`)
	e.toggle("widget_font-system")
	e.waitFor(font + `.startsWith("false ")`) // the frame's page may use the system's font too
	e.toggle("widget_font-inherit")
	e.waitFor(font + ` == "true true"`)
	// The accent: the numbers take it on the light background.
	number := `(()=>{const d=document.getElementById("preview-frame").contentDocument;const h=d&&d.querySelector("[data-svc-proof]");` +
		`const b=h&&h.shadowRoot&&h.shadowRoot.querySelector(".w:not(.e) b");return b?getComputedStyle(b).color:""})()`
	e.waitFor(number + ` == "rgb(11, 105, 163)"`) // svc's #0b69a3
	e.typeInto("widget_accent", "#c2185b")
	e.waitFor(number + ` == "rgb(194, 24, 91)"`)
	// Parts: who is looking now, without the inline line (none was
	// chosen: the script's default, inline).
	e.toggle("widget_variant-now")
	e.previewShows([]string{"3 people are viewing this now"}, "viewed this in the last hour")
	e.toggle("widget_variant-inline")
	e.previewShows([]string{"3 people are viewing this now", "3 people viewed this in the last hour"})
	// The corner: the badge moves to the bottom end, the right here.
	e.toggle("layout-corner")
	corner := `(()=>{const d=document.getElementById("preview-frame").contentDocument;const h=[...d.querySelectorAll("*")].find(e=>e.shadowRoot&&e.shadowRoot.querySelector(".c"));` +
		`if(!h)return 0;const r=h.shadowRoot.querySelector(".c").getBoundingClientRect();return r.width?(r.left+r.right)/2/d.documentElement.clientWidth:0})()`
	e.waitFor(corner + ` > 0 && ` + corner + ` < 0.5`)
	e.toggle("widget_position-end")
	e.waitFor(corner + ` > 0.5`)
	e.toggle("layout-inline")
	// Toasts, under the privacy rules as typed: the order (keyed, Red
	// Shoe) is 10 minutes old; a delay of 20 minutes hides it.
	f.clock.Add(10 * time.Minute)
	e.toggle("widget_variant-toasts")
	e.typeInto("recent_delay", "20m")
	e.typeInto("recent_window", "1h")
	e.waitFor(`document.getElementById("preview-frame").src.includes("recent_delay=20m")`)
	time.Sleep(2 * time.Second) // the toast would show after 1 s
	var txt string
	e.eval(frameText, &txt)
	if strings.Contains(txt, "Red Shoe") {
		t.Fatalf("a toast despite the delay: %s", txt)
	}
	e.typeInto("recent_delay", "5m")
	e.previewShows([]string{"Red Shoe"})
	e.noErrors()

	// A mistake is named next to its field, and the preview keeps the
	// saved value for it meanwhile.
	e.typeInto("recent_k", "1")
	e.click(`#settings-form button[type=submit]`)
	e.navigated("/dashboard/brands/br_acme/settings")
	e.waitFor(`document.getElementById("recent_k-error") && document.getElementById("recent_k-error").innerText.includes("must be from 2 to 1000") && document.getElementById("recent_k").getAttribute("aria-invalid")=="true"`)
	// The only error reported: the form's own 400.
	if errs := e.errors.Take(); len(errs) != 1 || !strings.Contains(errs[0], "400") {
		t.Fatalf("errors: %q", errs)
	}
	e.axeBoth("settings with a mistake")
	// Saved: the notice, and the values are the brand's.
	e.typeInto("recent_k", "3")
	e.click(`#settings-form button[type=submit]`)
	e.navigated("/dashboard/brands/br_acme/settings")
	e.waitFor(`document.getElementById("saved") && document.getElementById("saved").innerText=="Saved." && location.search=="?saved=settings"`)
	b, err := f.store.Brand(context.Background(), "br_acme")
	if err != nil || b.Languages != "en" || b.Widget.Font != "inherit" || b.Widget.Accent != "#c2185b" || b.WidgetVariant != "inline now toasts" || b.WidgetPosition != "end" || b.Recent.Delay != 5*time.Minute || b.Recent.Window != time.Hour {
		t.Fatalf("saved: %+v %v", b, err)
	}
	e.previewShows([]string{"3 people viewed this in the last hour"})

	// A domain added, then removed.
	e.typeInto("domain-add", "shop.example")
	e.click(`form.add-domain button[type=submit]`)
	e.navigated("/dashboard/brands/br_acme/settings")
	e.waitFor(`document.querySelector('button[aria-label="Remove shop.example"]') && document.getElementById("saved").innerText=="Domains saved."`)
	e.click(`button[aria-label="Remove shop.example"]`)
	e.navigated("/dashboard/brands/br_acme/settings")
	e.waitFor(`!document.querySelector('button[aria-label="Remove shop.example"]')`)

	// A key with a label: shown once, then listed, last used after a
	// collect once the server has written its uses.
	e.click(`nav a[href$="/keys"]`)
	e.navigated("/dashboard/brands/br_acme/keys")
	e.typeInto("label", "shop server")
	e.click(`form.create-key button[type=submit]`)
	e.navigated("/dashboard/brands/br_acme/keys")
	var key string
	e.eval(`document.getElementById("new-key").textContent`, &key)
	if !strings.HasPrefix(key, "sk_") {
		t.Fatalf("new key %q", key)
	}
	e.axeBoth("new key")
	body, _ := json.Marshal(map[string]any{"brand_id": "br_acme", "product": map[string]any{"product_id": "shoe"}, "context": map[string]any{"session_id": "keyed"}})
	req, _ := http.NewRequest("POST", f.srv.URL+"/api/collect/product-view", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-svc-Api-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("collect with the new key: %v %v", resp, err)
	}
	resp.Body.Close()
	e.run(chromedp.Navigate(f.srv.URL + "/dashboard/brands/br_acme/keys"))
	lastUsed := `[...document.querySelectorAll("table.keys tbody tr")].find(r=>r.querySelector("th").innerText=="shop server").querySelector(".last-used").innerText`
	var before string
	e.eval(lastUsed, &before)
	if before != "never" {
		t.Fatalf("last used before the flush: %q", before)
	}
	if err := f.auth.FlushUsage(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.run(chromedp.Navigate(f.srv.URL + "/dashboard/brands/br_acme/keys"))
	e.waitFor(lastUsed + `.endsWith("UTC")`)
	e.axeBoth("keys")
	e.shot("keys")
	e.click(`button[aria-label="Revoke key ` + key[:11] + ` (shop server)"]`)
	e.navigated("/dashboard/brands/br_acme/keys")
	e.waitFor(`document.body.innerText.includes("is revoked")`)

	// The account page, and the operator's.
	e.run(chromedp.Navigate(f.srv.URL + "/dashboard/account"))
	e.navigated("/dashboard/account")
	e.axeBoth("account")
	e.shot("account")
	e.click(`form.logout button`)
	e.navigated("/dashboard/signin")
	e.run(chromedp.Navigate(f.srv.URL + "/dashboard/signin?token=" + url.QueryEscape(f.link(""))))
	e.click("form button[type=submit]")
	e.navigated("/dashboard/operator")
	e.waitFor(`document.body.innerText.includes("a day")`)
	e.axeBoth("operator")
	e.shot("operator")
	e.noErrors()
}
