package dashboard_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/holdout"
)

// widget sends svc.js's report of the widget, anonymously, as a browser does.
func (f *fixture) widget(body string) (int, string) {
	f.t.Helper()
	resp, err := http.Post(f.srv.URL+"/api/collect/widget", "text/plain", strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func report(brand, session, kind string) string {
	b, _ := json.Marshal(map[string]string{"brand_id": brand, "session_id": session, "kind": kind})
	return string(b)
}

// The widget's reports reach the overview: counted for sessions that sent
// a view, not for strangers, held-out sessions or past the cap; a bad
// report is refused naming every bad field; the sessions that saw it buy
// apart from the others.
func TestWidgetReportsOnTheOverview(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	b, _ := f.store.Brand(ctx, "br_acme")
	b.Holdout = 50
	if err := f.store.UpdateBrand(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := f.auth.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	var shown, held []string
	for i := 0; len(shown) < 3 || len(held) < 1; i++ {
		s := fmt.Sprint("w", i)
		if holdout.ArmOf(s, 50) == holdout.ArmHeldOut {
			held = append(held, s)
		} else {
			shown = append(shown, s)
		}
		f.api("POST", "/api/collect/product-view", "br_acme", map[string]any{"brand_id": "br_acme",
			"product": map[string]any{"product_id": "shoe"}, "context": map[string]any{"session_id": s}})
	}
	for _, r := range []string{report("br_acme", shown[0], "seen"), report("br_acme", shown[0], "click"), report("br_acme", shown[1], "seen"),
		report("br_acme", shown[1], "toast"), report("br_acme", "stranger", "seen"), report("br_acme", held[0], "seen")} {
		if code, body := f.widget(r); code != http.StatusNoContent {
			t.Fatalf("%s: %d %s", r, code, body)
		}
	}
	for range 60 { // past the cap of 50 a session
		f.widget(report("br_acme", shown[2], "seen"))
	}
	code, body := f.widget(`{"brand_id": 5, "session_id": "", "kind": "viewed", "extra": 1}`)
	for _, want := range []string{`"brand_id"`, `"session_id"`, `"kind"`} {
		if code != http.StatusBadRequest || !strings.Contains(body, want) {
			t.Errorf("a bad report: %d %s, lacks %s", code, body, want)
		}
	}
	if code, _ := f.widget(report("br_nobody", shown[0], "seen")); code != http.StatusNotFound {
		t.Errorf("a report for no brand: %d", code)
	}
	if code, _ := f.widget(`{"brand_id":"br_acme","session_id":"` + strings.Repeat("x", 2000) + `","kind":"seen"}`); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a report of 2 KB: %d", code)
	}
	// shown[0] saw the widget and buys.
	f.api("POST", "/api/collect/product-purchase", "br_acme", map[string]any{"brand_id": "br_acme",
		"order": map[string]any{"order_id": "ow", "currency": "EUR", "items": []any{
			map[string]any{"product_id": "shoe", "quantity": 1, "unit_price": 100}}}, "context": map[string]any{"session_id": shown[0]}})

	over := f.signIn("br_acme").get("/dashboard/brands/br_acme/?range=today").body
	for _, want := range []string{
		"<tr><th scope=\"row\">Impressions</th><td>52</td></tr>", // 1 + 1 + 50
		"<tr><th scope=\"row\">Clicks on the widget</th><td>1</td></tr>",
		"<tr><th scope=\"row\">Clicks on the toasts</th><td>1</td></tr>",
		"<tr><th scope=\"row\">Saw the widget</th><td>3</td><td>1</td><td>33.33%</td><td>33.33 EUR</td></tr>",
	} {
		if !strings.Contains(over, want) {
			i := strings.Index(over, "widget-h")
			t.Errorf("overview lacks %q:\n%s", want, over[i:min(len(over), i+2500)])
		}
	}
	// The counts a shopper sees did not move: the widget's reports are not views.
	resp, err := http.Get(f.srv.URL + "/api/svc/product-proof?brand_id=br_acme&product_id=shoe")
	if err != nil {
		t.Fatal(err)
	}
	var proof struct{ Viewers int64 }
	json.NewDecoder(resp.Body).Decode(&proof)
	resp.Body.Close()
	if want := 3 + int64(len(shown)+len(held)); proof.Viewers != want {
		t.Errorf("the proof's viewers: %d, not %d", proof.Viewers, want)
	}
}

// The range: a custom one within the retention, one past it refused, and
// the comparison only where the retention holds the period before.
func TestRange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.signIn("br_acme")
	p := b.get("/dashboard/brands/br_acme/?range=7d")
	if p.status != 200 || strings.Contains(p.body, `id="no-compare"`) || !strings.Contains(p.body, "Date range: Last 7 days") {
		t.Errorf("7 days: %d, compared %v", p.status, !strings.Contains(p.body, `id="no-compare"`))
	}
	p = b.get("/dashboard/brands/br_acme/?range=30d")
	if !strings.Contains(p.body, `id="no-compare"`) || !strings.Contains(p.body, "retention (35 days)") ||
		!strings.Contains(p.body, "<tr><th scope=\"row\">Views</th><td>4</td><td>–</td><td>–</td></tr>") {
		t.Errorf("30 days is compared with days the retention lost")
	}
	p = b.get("/dashboard/brands/br_acme/?range=custom&from=2026-11-20&to=2026-11-21")
	if p.status != 200 || !strings.Contains(p.body, "Date range: 2026-11-20 to 2026-11-21") || !strings.Contains(p.body, "Views and purchases, hourly") {
		t.Errorf("a custom range of two days: %d", p.status)
	}
	for q, want := range map[string]string{
		"range=custom&from=2026-09-01&to=2026-11-21": "From must be within the retention: 2026-10-17 or later",
		"range=custom&from=2026-11-21&to=2026-11-20": "To must not be before From",
		"range=custom&from=nope&to=2026-11-20":       "From must be a day written 2006-01-02",
		"range=year":                                 "Range must be today, 7d, 30d or custom",
	} {
		p := b.get("/dashboard/brands/br_acme/?" + q)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, want) || !strings.Contains(p.body, "Date range: Last 7 days") {
			t.Errorf("%s: %d, lacks %q", q, p.status, want)
		}
	}
}

// Every table as CSV, for the range asked; a title that a spreadsheet
// would run as a formula is defused.
func TestCSV(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.api("POST", "/api/collect/product-view", "br_acme", map[string]any{"brand_id": "br_acme",
		"product": map[string]any{"product_id": "evil", "title": "=HYPERLINK(\"http://x.example\")"}, "context": map[string]any{"session_id": "s9", "country": "FR"}})
	b := f.signIn("br_acme")
	for table, want := range map[string][]string{
		"totals":    {"figure", "range", "period before", "change"},
		"chart":     {"step start (UTC)", "views", "purchases"},
		"countries": {"country", "views", "share of views", "orders", "share of orders"},
		"widget":    {"figure", "value"},
		"products":  {"product_id", "title", "views 24 h", "viewers now", "purchases 24 h", "purchases 7 d"},
	} {
		p := b.get("/dashboard/brands/br_acme/csv/" + table + "?range=today")
		rows, err := csv.NewReader(bytes.NewReader([]byte(p.body))).ReadAll()
		if p.status != 200 || err != nil || len(rows) < 2 || strings.Join(rows[0], "|") != strings.Join(want, "|") ||
			p.header.Get("Content-Type") != "text/csv; charset=utf-8" || !strings.HasPrefix(p.header.Get("Content-Disposition"), `attachment; filename="br_acme-`+table+`-20261121-20261121.csv"`) {
			t.Errorf("%s: %d %v %q %q", table, p.status, err, p.header.Get("Content-Disposition"), p.body)
		}
		if table == "products" && !strings.Contains(p.body, `'=HYPERLINK`) {
			t.Errorf("the formula is not defused:\n%s", p.body)
		}
		if table == "totals" && !strings.Contains(p.body, "Views,5,0,new") {
			t.Errorf("totals:\n%s", p.body)
		}
	}
	if p := b.get("/dashboard/brands/br_acme/csv/secrets"); p.status != http.StatusNotFound {
		t.Errorf("an unknown table: %d", p.status)
	}
	if p := b.get("/dashboard/brands/br_other/csv/totals"); p.status != http.StatusNotFound {
		t.Errorf("another brand's table: %d", p.status)
	}
}
