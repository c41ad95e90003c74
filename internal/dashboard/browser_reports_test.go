package dashboard_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/svc-project/svc/internal/dashboard"
)

// The overview's reports in Chromium: the date range, the real-time panel
// refreshed in place, a CSV downloaded, and axe at both widths in light
// and dark.
func TestBrowserReports(t *testing.T) {
	f := newFixture(t, func(c *dashboard.Config) { c.RealtimeRefresh = time.Second })
	e := newBrowser(t)
	for i := range 120 {
		s := fmt.Sprint("visitor-", i)
		at := t0.Add(-time.Duration(i%30) * 5 * time.Hour)
		product := []string{"shoe", "hat", "sock"}[i%3]
		country := []string{"DE", "FR", "NL", "US", "DE"}[i%5]
		ctx := map[string]any{"session_id": s, "timestamp": at.Format(time.RFC3339)}
		if i%7 != 0 {
			ctx["country"] = country
		}
		f.api("POST", "/api/collect/product-view", "br_acme", map[string]any{"brand_id": "br_acme",
			"product": map[string]any{"product_id": product}, "context": ctx})
		if i%4 == 0 {
			f.widget(report("br_acme", s, "seen"))
		}
		if i%5 == 0 { // 24 sessions cart; 4 of them (i%30 == 0) buy too
			f.api("POST", "/api/collect/product-cart", "br_acme", map[string]any{"brand_id": "br_acme",
				"product": map[string]any{"product_id": product}, "context": ctx})
		}
		if i%6 == 0 {
			// Keyed orders give a city: 19 to Berlin, one to Lyon, too
			// few to be named (k = 3).
			octx := map[string]any{"session_id": s, "timestamp": at.Format(time.RFC3339), "country": "DE", "city": "Berlin"}
			if i == 6 {
				octx["country"], octx["city"] = "FR", "Lyon"
			}
			f.api("POST", "/api/collect/product-purchase", "br_acme", map[string]any{"brand_id": "br_acme",
				"order": map[string]any{"order_id": "r" + s, "currency": "EUR", "items": []any{
					map[string]any{"product_id": product, "quantity": 1, "unit_price": 30 + float64(i%5)}}},
				"context": octx})
		}
	}
	f.widget(report("br_acme", "visitor-0", "click"))
	f.widget(report("br_acme", "visitor-4", "toast_seen"))
	f.widget(report("br_acme", "visitor-4", "toast"))

	e.run(chromedp.Navigate(f.srv.URL + "/dashboard/signin?token=" + url.QueryEscape(f.link("br_acme"))))
	e.click("form button[type=submit]")
	e.navigated("/dashboard/brands/br_acme/")
	if txt := e.text(); !strings.Contains(txt, "Date range: Last 7 days") || !strings.Contains(txt, "Impressions") || !strings.Contains(txt, "Countries") {
		t.Fatalf("overview:\n%s", txt)
	}
	e.checkAxe("overview, 7 days")
	// The funnel: the fixture's 3 sessions, one of which carted and
	// bought, and the 120 visitors: 24 carted (i%5 == 0), 20 bought
	// (i%6 == 0), of which 4 carted too (i%30 == 0).
	var funnel string
	e.eval(`[...document.querySelectorAll("table.funnel tbody tr")].map(r=>[...r.cells].map(c=>c.innerText).join("/")).join("|")`, &funnel)
	if want := "Viewed/123/100.0%/100.0%|Added to cart/25/20.3%/20.3%|Bought/21/84.0%/17.1%"; funnel != want {
		t.Errorf("the funnel: %q, want %q", funnel, want)
	}
	var cities string
	e.eval(`[...document.querySelectorAll("table.cities tbody tr")].map(r=>[...r.cells].map(c=>c.innerText).join("/")).join("|")`, &cities)
	if want := "Berlin, DE/19/95.0%|Others (each fewer than 3 orders)/1/5.0%"; cities != want {
		t.Errorf("the cities: %q, want %q", cities, want)
	}
	var toasts string
	e.eval(`[...document.querySelectorAll("#widget-h ~ .table-wrap tbody tr")].slice(0,6).map(r=>r.innerText.replace(/\s+/g," ")).join("|")`, &toasts)
	if !strings.Contains(toasts, "Toasts shown 1|Clicks on the toasts 1|Clicks per toast shown 100.00%") {
		t.Errorf("the widget's toasts: %q", toasts)
	}

	// The range: Today, then a custom one of two days, typed in.
	e.click(`.range-choices a[href$="range=today"]`)
	e.navigated("/dashboard/brands/br_acme/")
	e.waitFor(`document.querySelector("h2#range-h")?.innerText=="Date range: Today" && document.querySelector(".range-choices a[aria-current]")?.innerText=="Today"`)
	e.eval(`(()=>{const f=document.querySelector(".range-custom");f.from.value="2026-11-19";f.to.value="2026-11-20";f.querySelector("button").click();window.__before=true;return true})()`, new(bool))
	e.waitFor(`!window.__before && location.search.includes("range=custom") && document.querySelector("h2#range-h")?.innerText=="Date range: 2026-11-19 to 2026-11-20"`)
	var caption string
	e.eval(`document.querySelector("#charts ~ * figcaption, .chart-box figcaption").innerText`, &caption)
	if caption != "Views and purchases, hourly, 2026-11-19 to 2026-11-20" {
		t.Errorf("the chart follows the range: %q", caption)
	}
	// 30 days: the period before is not all kept, and the page says so.
	e.click(`.range-choices a[href$="range=30d"]`)
	e.navigated("/dashboard/brands/br_acme/")
	e.waitFor(`document.getElementById("no-compare") && document.getElementById("no-compare").innerText.includes("retention")`)
	for _, dark := range []bool{false, true} {
		scheme := "light"
		if dark {
			scheme = "dark"
		}
		if _, err := chromedp.Call(e.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			t.Fatal(err)
		}
		for _, w := range []int64{1280, 390} {
			e.viewport(w, 900, w < 500)
			e.checkAxe(fmt.Sprintf("overview, 30 days, %s, %d px", scheme, w))
		}
		name := "reports"
		if dark {
			name = "reports-dark"
		}
		e.shot(name)
	}
	if _, err := chromedp.Call(e.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}}); err != nil {
		t.Fatal(err)
	}

	// The real-time panel: a view arrives, the panel shows it without a reload.
	var before string
	e.eval(`document.getElementById("rt-views").innerText`, &before)
	e.eval(`window.__page = 1`, new(int))
	f.api("POST", "/api/collect/product-view", "br_acme", map[string]any{"brand_id": "br_acme",
		"product": map[string]any{"product_id": "sock"}, "context": map[string]any{"session_id": "live-1"}})
	e.waitFor(`window.__page == 1 && Number(document.getElementById("rt-views").innerText.replace(/,/g, "")) == ` + fmt.Sprint(mustAtoi(t, before)+1) +
		` && document.getElementById("realtime").dataset.refreshed >= 1`)
	e.checkAxe("overview, refreshed real time")

	// A CSV downloaded as a file.
	dir := t.TempDir()
	// In the tab's own browser context (chrometest.Tab): none is the default one.
	allow := cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, BrowserContextID: chromedp.FromContext(e.ctx).BrowserContextID}
	if _, err := chromedp.Call(e.ctx, cdpbrowser.SetDownloadBehavior, allow); err != nil {
		t.Fatal(err)
	}
	download := func(table string) string {
		t.Helper()
		e.click(`a.csv[href*="/csv/` + table + `"]`)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			matches, _ := filepath.Glob(filepath.Join(dir, "br_acme-"+table+"-*.csv"))
			if len(matches) == 1 {
				if data, _ := os.ReadFile(matches[0]); len(data) > 0 {
					return string(data)
				}
			}
		}
		t.Fatalf("no %s CSV downloaded", table)
		return ""
	}
	if data := download("countries"); !strings.HasPrefix(data, "country,views,share of views,orders,share of orders\n") || !strings.Contains(data, "\nDE,") {
		t.Fatalf("the countries' CSV: %q", data)
	}
	// The live view of live-1 is a new session of today.
	if data, want := download("funnel"), "step,sessions,of the step before,of the sessions that viewed\nViewed,124,100.0%,100.0%\nAdded to cart,25,20.2%,20.2%\nBought,21,84.0%,16.9%\n"; data != want {
		t.Fatalf("the funnel's CSV: %q, want %q", data, want)
	}
	if data, want := download("cities"), "city,orders,share of orders with a city\n\"Berlin, DE\",19,95.0%\nOthers (each fewer than 3 orders),1,5.0%\n"; data != want {
		t.Fatalf("the cities' CSV: %q, want %q", data, want)
	}
	e.noErrors()
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(strings.ReplaceAll(s, ",", ""), &n); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}
