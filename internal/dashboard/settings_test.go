package dashboard_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// every setting of the form, as saved for Acme below.
func acmeForm(csrf string) url.Values {
	return url.Values{"csrf": {csrf}, "name": {"Acme Shoes"}, "require_key": {"on"}, "min_viewers": {"5"}, "min_purchases": {"2"},
		"widget_variant": {"toasts", "inline"}, "widget_position": {"end"}, "languages": {"FR, en"},
		"recent_delay": {"10m"}, "recent_window": {"48h"}, "recent_max": {"7"}, "recent_k": {"4"}, "holdout": {"10"},
		"min_carts": {"4"}, "widget_font": {"inherit"}, "widget_accent": {"#C2185B"}}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.signIn("br_acme")
	settings := b.get("/dashboard/brands/br_acme/settings")
	for _, want := range []string{"Fewest viewers shown", "Copy snippet", "acme.example", "Recent purchases", `id="preview-frame"`, "Require an API key"} {
		if !strings.Contains(settings.body, want) {
			t.Errorf("settings lack %q", want)
		}
	}
	if strings.Contains(settings.body, `id="saved"`) {
		t.Error("Saved before saving")
	}
	csrf := b.csrf("/dashboard/brands/br_acme/settings")
	post := func(path string, form url.Values, headers ...string) page {
		return b.do("POST", "/dashboard/brands/br_acme/"+path, form, headers...)
	}
	form := acmeForm(csrf)
	without := acmeForm("")
	without.Del("csrf")
	if p := post("settings", without); p.status != http.StatusForbidden {
		t.Errorf("settings without the CSRF token: %d", p.status)
	}
	if p := post("settings", acmeForm("wrong")); p.status != http.StatusForbidden {
		t.Errorf("settings with a wrong CSRF token: %d", p.status)
	}
	if p := post("settings", form, "Sec-Fetch-Site", "cross-site"); p.status != http.StatusForbidden {
		t.Errorf("settings from another site: %d", p.status)
	}

	// Every bad field is named next to itself, with the domain's own message.
	bad := acmeForm(csrf)
	bad.Set("name", " ")
	bad.Set("min_viewers", "0")
	bad.Set("holdout", "60")
	bad.Set("widget_position", "left")
	bad.Set("languages", "en, nl")
	bad.Set("recent_k", "1")
	bad.Set("recent_delay", "soon")
	bad.Set("widget_accent", "#ffee00")
	bad.Set("widget_font", "serif")
	p := post("settings", bad)
	if p.status != http.StatusBadRequest {
		t.Fatalf("bad settings: %d", p.status)
	}
	for field, msg := range map[string]string{
		"recent_delay": "must be a duration such as 5m", // parsed first: Validate is not reached
	} {
		if !regexp.MustCompile(`id="` + field + `-error">[^<]*` + regexp.QuoteMeta(msg)).MatchString(p.body) {
			t.Errorf("no %q next to %s:\n%s", msg, field, p.body)
		}
	}
	bad.Set("recent_delay", "10m")
	p = post("settings", bad)
	for field, msg := range map[string]string{
		"name": "is required", "min_viewers": "must be at least 1", "holdout": "must be a whole percent from 0 to 50",
		"widget_position": "must be start or end", "languages": "must be languages among en, de, fr, es", "recent_k": "must be from 2 to 1000",
		"widget_accent": "must be dark enough to read on white: 1.2:1, at least 4.5:1", "widget_font": `must be &#34;inherit&#34;`,
	} {
		if !regexp.MustCompile(`id="` + field + `-error">[^<]*` + regexp.QuoteMeta(msg)).MatchString(p.body) {
			t.Errorf("no %q next to %s", msg, field)
		}
		if !strings.Contains(p.body, `href="#`+field+`"`) {
			t.Errorf("the summary does not link to %s", field)
		}
	}
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, `value="en, nl"`) || !strings.Contains(p.body, `aria-invalid="true"`) {
		t.Errorf("the form does not keep what was typed: %d", p.status)
	}
	if got, _ := f.store.Brand(context.Background(), "br_acme"); got.MinViewers != 2 || got.Name != "Acme" {
		t.Fatalf("a refused form changed the brand: %+v", got)
	}

	// Saved: post, redirect, get, and the page says so.
	p = post("settings", form)
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/brands/br_acme/settings?saved=settings" {
		t.Fatalf("save: %d %s", p.status, p.header.Get("Location"))
	}
	if p := b.get(p.header.Get("Location")); !strings.Contains(p.body, `id="saved">Saved.`) {
		t.Error("no Saved notice after saving")
	}
	got, _ := f.store.Brand(context.Background(), "br_acme")
	want := svc.RecentSettings{Delay: 10 * time.Minute, Window: 48 * time.Hour, MaxItems: 7, K: 4}
	if got.Name != "Acme Shoes" || !got.RequireKey || got.ClosedCatalog || got.MinViewers != 5 || got.MinPurchases != 2 || got.Holdout != 10 ||
		got.WidgetVariant != "inline toasts" || got.WidgetPosition != "end" || got.Languages != "fr,en" || got.Recent != want ||
		got.Widget != (svc.WidgetSettings{Font: "inherit", Accent: "#c2185b", MinCarts: 4}) {
		t.Errorf("saved brand %+v", got)
	}
	// The API follows at once.
	req, _ := http.NewRequest("GET", f.srv.URL+"/api/svc/product-proof?brand_id=br_acme&product_id=shoe", nil)
	req.Header.Set("X-svc-Api-Key", f.keys["br_acme"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var proof struct {
		Widget struct {
			Holdout   int
			Variant   string
			Position  string
			Languages []string
			Font      string
			Accent    string
		} `json:"widget"`
		Thresholds struct{ Viewers int } `json:"thresholds"`
	}
	decode(t, resp, &proof)
	if proof.Widget.Holdout != 10 || proof.Widget.Variant != "inline toasts" || proof.Thresholds.Viewers != 5 ||
		proof.Widget.Position != "end" || strings.Join(proof.Widget.Languages, ",") != "fr,en" || proof.Widget.Font != "inherit" || proof.Widget.Accent != "#c2185b" {
		t.Errorf("proof after saving: %+v", proof)
	}
	// The audit log has the values.
	if p := b.get("/dashboard/brands/br_acme/audit"); !strings.Contains(p.body, "recent_k=&#34;4&#34;") && !strings.Contains(p.body, `recent_k=&#34;4&#34;`) {
		t.Errorf("the audit log lacks the settings")
	}
}

// Domains are added and removed one by one, each checked by the domain's
// rules as svc brands set checks them.
func TestDomains(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.signIn("br_acme")
	csrf := b.csrf("/dashboard/brands/br_acme/settings")
	post := func(form url.Values) page {
		form.Set("csrf", csrf)
		return b.do("POST", "/dashboard/brands/br_acme/domains", form)
	}
	domains := func() []string {
		got, _ := f.store.Brand(context.Background(), "br_acme")
		return got.Domains
	}
	if p := post(url.Values{"add": {"https://shop.example/path"}}); p.status != http.StatusBadRequest ||
		!regexp.MustCompile(`id="domain-add-error">[^<]*is not a host name such as shop.example`).MatchString(p.body) {
		t.Errorf("a bad domain: %d", p.status)
	}
	if p := post(url.Values{"add": {" Shop.Example. "}}); p.status != http.StatusSeeOther || !strings.Contains(p.header.Get("Location"), "saved=domains") {
		t.Fatalf("add: %d", p.status)
	}
	if got := domains(); strings.Join(got, ",") != "acme.example,shop.example" {
		t.Fatalf("after adding: %v", got)
	}
	if p := post(url.Values{"add": {"shop.example"}}); p.status != http.StatusSeeOther || len(domains()) != 2 {
		t.Errorf("added twice: %d %v", p.status, domains())
	}
	if p := b.get("/dashboard/brands/br_acme/settings?saved=domains"); !strings.Contains(p.body, "Domains saved.") || !strings.Contains(p.body, `aria-label="Remove shop.example"`) {
		t.Error("the page does not list the new domain")
	}
	if p := post(url.Values{"remove": {"nope.example"}}); p.status != http.StatusBadRequest {
		t.Errorf("remove one not listed: %d", p.status)
	}
	if p := post(url.Values{"remove": {"acme.example"}}); p.status != http.StatusSeeOther {
		t.Fatalf("remove: %d", p.status)
	}
	if got := domains(); strings.Join(got, ",") != "shop.example" {
		t.Fatalf("after removing: %v", got)
	}
	// The API follows: a browser on the removed domain is refused.
	if f.originStatus("https://acme.example") != http.StatusUnauthorized || f.originStatus("https://shop.example") != http.StatusOK {
		t.Error("the API does not follow the domains")
	}
}

// originStatus is the proof's status for a browser on origin, without a key.
func (f *fixture) originStatus(origin string) int {
	req, _ := http.NewRequest("GET", f.srv.URL+"/api/svc/product-proof?brand_id=br_acme&product_id=shoe", nil)
	req.Header.Set("Origin", origin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A viewer sees the settings and changes nothing; keys are not theirs.
func TestViewerCannotChangeSettings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.addMember("br_acme", "viewer@acme.example", svc.RoleViewer)
	b := f.member("192.0.2.7")
	b.signIn("viewer@acme.example", 0)
	p := b.get("/dashboard/brands/br_acme/settings")
	if p.status != 200 || !strings.Contains(p.body, "You are a viewer") || strings.Contains(p.body, "Save settings") {
		t.Fatalf("a viewer's settings: %d", p.status)
	}
	csrf := b.csrf("/dashboard/brands/br_acme/settings")
	for path, form := range map[string]url.Values{
		"settings": acmeForm(csrf), "domains": {"csrf": {csrf}, "add": {"evil.example"}},
		"keys": {"csrf": {csrf}, "label": {"mine"}}, "keys/revoke": {"csrf": {csrf}, "prefix": {f.keys["br_acme"][:svc.KeyPrefixLen]}},
	} {
		if p := b.do("POST", "/dashboard/brands/br_acme/"+path, form); p.status != http.StatusForbidden {
			t.Errorf("a viewer's POST %s: %d", path, p.status)
		}
	}
	if p := b.get("/dashboard/brands/br_acme/keys"); p.status != http.StatusForbidden {
		t.Errorf("a viewer's keys page: %d", p.status)
	}
	if got, _ := f.store.Brand(ctx, "br_acme"); got.Name != "Acme" || len(got.Domains) != 1 {
		t.Errorf("a viewer changed the brand: %+v", got)
	}
}

var keyRowRe = regexp.MustCompile(`(?s)<th [^>]*>shop server</th><td [^>]*><code>(sk_\w+)…</code></td><td [^>]*>[^<]+</td><td [^>]*class="last-used"[^>]*>([^<]+)</td>`)

func TestKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.signIn("br_acme")
	csrf := b.csrf("/dashboard/brands/br_acme/keys")
	if p := b.do("POST", "/dashboard/brands/br_acme/keys", url.Values{"label": {"x"}}); p.status != http.StatusForbidden {
		t.Errorf("create without the CSRF token: %d", p.status)
	}
	if p := b.do("POST", "/dashboard/brands/br_acme/keys", url.Values{"csrf": {csrf}, "label": {"tab\there"}}); p.status != http.StatusBadRequest ||
		!strings.Contains(p.body, `id="label-error">The label must not contain control characters`) {
		t.Errorf("a bad label: %d", p.status)
	}
	p := b.do("POST", "/dashboard/brands/br_acme/keys", url.Values{"csrf": {csrf}, "label": {" shop server "}})
	m := newKeyRe.FindStringSubmatch(p.body)
	if p.status != 200 || m == nil || !strings.Contains(p.body, "New API key “shop server”") {
		t.Fatalf("create: %d, no key shown", p.status)
	}
	secret := m[1]
	row := keyRowRe.FindStringSubmatch(b.get("/dashboard/brands/br_acme/keys").body)
	if row == nil || row[2] != "never" || strings.Contains(row[0], secret) {
		t.Fatalf("the key's row: %q", row)
	}
	// A collect with the key: last used once the server has written it.
	f.clock.Set(t0.Add(time.Minute))
	if status := f.proofStatus(secret); status != 200 {
		t.Errorf("the new key on the API: %d", status)
	}
	if err := f.auth.FlushUsage(context.Background()); err != nil {
		t.Fatal(err)
	}
	row = keyRowRe.FindStringSubmatch(b.get("/dashboard/brands/br_acme/keys").body)
	if row == nil || row[2] == "never" {
		t.Fatalf("last used after a request and a flush: %q", row)
	}
	if p := b.do("POST", "/dashboard/brands/br_acme/keys/revoke", url.Values{"csrf": {csrf}, "prefix": {"sk_"}}); p.status != http.StatusBadRequest {
		t.Errorf("revoke by a short prefix: %d", p.status)
	}
	p = b.do("POST", "/dashboard/brands/br_acme/keys/revoke", url.Values{"csrf": {csrf}, "prefix": {secret[:svc.KeyPrefixLen]}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", p.status)
	}
	if p := b.get(p.header.Get("Location")); !strings.Contains(p.body, "is revoked") {
		t.Error("no notice after revoking")
	}
	if status := f.proofStatus(secret); status != http.StatusUnauthorized {
		t.Errorf("the revoked key on the API: %d", status)
	}
	// Another brand's key cannot be revoked through this brand.
	if p := b.do("POST", "/dashboard/brands/br_acme/keys/revoke", url.Values{"csrf": {csrf}, "prefix": {f.keys["br_other"][:svc.KeyPrefixLen]}}); p.status != http.StatusBadRequest {
		t.Errorf("revoke Other's key as Acme: %d", p.status)
	}
	if status := f.proofStatusOf("br_other", f.keys["br_other"]); status != 404 { // the key works: the product is just unknown
		t.Errorf("Other's key after Acme tried to revoke it: %d", status)
	}
}

// The preview's API answers only the page that signed it, and counts
// nothing.
func TestPreviewAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.signIn("br_acme")
	frame := b.get("/dashboard/brands/br_acme/preview?min_viewers=1&min_purchases=1&languages=de&widget_variant=now&recent_delay=5m&recent_window=24h&recent_max=10&recent_k=3&holdout=50&name=Acme&widget_position=end")
	if frame.status != 200 || !strings.Contains(frame.header.Get("Content-Security-Policy"), "frame-ancestors 'self'") {
		t.Fatalf("frame: %d %s", frame.status, frame.header.Get("Content-Security-Policy"))
	}
	m := regexp.MustCompile(`src="(/dashboard/preview/[^"]+)/svc.js"`).FindStringSubmatch(frame.body)
	if m == nil {
		t.Fatalf("no svc.js in the frame:\n%s", frame.body)
	}
	base := strings.ReplaceAll(m[1], "&#43;", "+")
	get := func(path string) (int, string) {
		resp, err := http.Get(f.srv.URL + path) // no cookie, as svc.js sends none
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	status, body := get(base + "/api/svc/product-proof?brand_id=br_acme&product_id=anything")
	var proof struct {
		ProductID  string `json:"product_id"`
		Viewers    int64
		Thresholds struct{ Viewers int }
		Widget     struct {
			Holdout   int
			Variant   string
			Position  string
			Languages []string
		}
	}
	if err := json.Unmarshal([]byte(body), &proof); status != 200 || err != nil {
		t.Fatalf("proof: %d %s", status, body)
	}
	if proof.ProductID != "shoe" || proof.Viewers != 3 || proof.Thresholds.Viewers != 1 || proof.Widget.Holdout != 0 || proof.Widget.Variant != "now" ||
		proof.Widget.Position != "end" || strings.Join(proof.Widget.Languages, ",") != "de" {
		t.Errorf("the preview's proof: %s", body)
	}
	if status, body := get(base + "/svc.js"); status != 200 || !strings.Contains(body, "product-proof") {
		t.Errorf("svc.js: %d", status)
	}
	// A view is answered and not counted.
	resp, err := http.Post(f.srv.URL+base+"/api/collect/product-view", "text/plain", strings.NewReader(`{"brand_id":"br_acme","product":{"product_id":"shoe"},"context":{"session_id":"preview"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if status, body := get(base + "/api/svc/product-proof"); resp.StatusCode != http.StatusNoContent || status != 200 || !strings.Contains(body, `"viewers":3`) {
		t.Errorf("a preview's view: %d, then %s", resp.StatusCode, body)
	}
	// Another brand, other settings or a forged signature: nothing.
	parts := strings.Split(base, "/") // "", dashboard, preview, brand, session, mac, settings
	for name, path := range map[string]string{
		"other brand": strings.Join(append(append([]string{}, parts[:3]...), "br_other", parts[4], parts[5], parts[6]), "/"),
		"other mac":   strings.Join(append(append([]string{}, parts[:5]...), "AAAA"+parts[5][4:], parts[6]), "/"),
		"settings":    strings.Join(append(append([]string{}, parts[:6]...), "bWluX3ZpZXdlcnM9MQ"), "/"),
	} {
		if status, _ := get(path + "/api/svc/product-proof"); status != http.StatusNotFound {
			t.Errorf("%s: %d", name, status)
		}
	}
	// After sign-out, the preview's address is dead.
	b.do("POST", "/dashboard/logout", url.Values{"csrf": {b.csrf("/dashboard/brands/br_acme/settings")}})
	if status, _ := get(base + "/api/svc/product-proof"); status != http.StatusNotFound {
		t.Errorf("after sign-out: %d", status)
	}
}

// The operator's mean a day counts the days the brand existed, and the
// page says over how many.
func TestOperatorMeanPerDay(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.signIn("")
	p := b.get("/dashboard/operator")
	// Acme, made at t0 with 5 events (4 views, an order): 5 in a day.
	if !regexp.MustCompile(`Acme</a>.*?>5</td><td[^>]*>5<span class="change">5\.0 a day, over 1 day \(since the brand was made\)`).MatchString(p.body) {
		t.Errorf("operator row:\n%s", p.body)
	}
}
