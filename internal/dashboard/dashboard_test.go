package dashboard_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/dashboard"
)

// Without a session every page redirects to the sign-in page and shows
// no data.
func TestNoSessionNoData(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := &browser{f: f}
	for _, path := range []string{"/dashboard", "/dashboard/", "/dashboard/brands/br_acme/", "/dashboard/brands/br_acme/products/shoe",
		"/dashboard/brands/br_acme/settings", "/dashboard/operator"} {
		p := b.get(path)
		if p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/signin" || strings.Contains(p.body, "Red Shoe") {
			t.Errorf("GET %s without a session: %d to %q", path, p.status, p.header.Get("Location"))
		}
	}
	b.cookie = "forged-session-id"
	if p := b.get("/dashboard/brands/br_acme/"); p.status != http.StatusSeeOther {
		t.Errorf("a forged cookie: %d", p.status)
	}
	for _, path := range []string{"/dashboard/brands/br_acme/settings", "/dashboard/logout", "/dashboard/brands/br_acme/keys"} {
		if p := b.do("POST", path, url.Values{"csrf": {"x"}}); p.status != http.StatusSeeOther {
			t.Errorf("POST %s without a session: %d", path, p.status)
		}
	}
	if p := b.get("/dashboard/nope"); p.status != http.StatusNotFound || !strings.Contains(p.body, "no such page") {
		t.Errorf("an unknown page: %d", p.status)
	}
	if p := b.do("POST", "/dashboard/signin", url.Values{"token": {strings.Repeat("x", 20<<10)}}); p.status != http.StatusUnauthorized {
		t.Errorf("a form over 16 KiB: %d", p.status)
	}
	if p := b.get("/dashboard/signin"); p.status != 200 || !strings.Contains(p.body, "svc dashboard link --brand") {
		t.Errorf("sign-in page without a link: %d", p.status)
	}
}

// A link signs in once; the cookie is HttpOnly and SameSite=Lax; the pages
// show the brand's data; logout ends the session on the server.
func TestSignInPagesAndLogout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := &browser{f: f}
	token := f.link("br_acme")
	b.get("/dashboard/signin?token=" + url.QueryEscape(token))
	p := b.do("POST", "/dashboard/signin", url.Values{"token": {token}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/" {
		t.Fatalf("sign in: %d %q", p.status, p.header.Get("Location"))
	}
	c := p.header.Get("Set-Cookie")
	for _, want := range []string{dashboard.CookieName + "=", "Path=/dashboard", "HttpOnly", "SameSite=Lax", "Max-Age=2592000"} {
		if !strings.Contains(c, want) {
			t.Errorf("cookie %q lacks %s", c, want)
		}
	}
	if strings.Contains(c, "Secure") {
		t.Errorf("cookie %q is Secure on plain HTTP", c)
	}
	again := &browser{f: f}
	if p := again.do("POST", "/dashboard/signin", url.Values{"token": {token}}); p.status != http.StatusUnauthorized || again.cookie != "" {
		t.Errorf("the link a second time: %d", p.status)
	}

	if p := b.get("/dashboard/"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/brands/br_acme/" {
		t.Fatalf("home: %d %q", p.status, p.header.Get("Location"))
	}
	over := b.get("/dashboard/brands/br_acme/")
	for _, want := range []string{"Acme", "Red Shoe", "Blue Hat", "59.90 EUR", "<tr><th scope=\"row\">Views</th><td>4</td><td>0</td><td>new</td></tr>", "<tr><th scope=\"row\">Viewers</th><td>3</td><td>0</td><td>new</td></tr>",
		"<tr><th scope=\"row\">Carts</th><td>1</td><td>0</td><td>new</td></tr>", "Views and purchases, daily, last 7 days", "<svg", "Table of", "Not yet significant", "Withheld now"} {
		if !strings.Contains(over.body, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
	if over.status != 200 || strings.Contains(over.body, "Other&#39;s Secret Product") || strings.Contains(over.body, "secret-widget") {
		t.Errorf("overview: %d, or it shows another brand's product", over.status)
	}
	csp := over.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || over.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("headers: CSP %q, CORS %q", csp, over.header.Get("Access-Control-Allow-Origin"))
	}
	prod := b.get("/dashboard/brands/br_acme/products/shoe")
	for _, want := range []string{"Red Shoe", "3 people viewed this in the last hour", "1 purchase in the last 24 hours", "Mean unit price paid", "59.90 EUR"} {
		if !strings.Contains(prod.body, want) {
			t.Errorf("product page lacks %q", want)
		}
	}
	if p := b.get("/dashboard/brands/br_acme/products/nope"); p.status != http.StatusNotFound {
		t.Errorf("an unknown product: %d", p.status)
	}
	if p := b.get("/dashboard/brands/br_acme/products/hat"); !strings.Contains(p.body, "The widget shows nothing: 1 viewer in the last hour (it needs 2)") {
		t.Errorf("a withheld product's page does not say why:\n%s", p.body)
	}
	if p := b.get("/dashboard/static/dashboard.js"); p.status != 200 || !strings.Contains(p.body, "clipboard") {
		t.Errorf("script: %d", p.status)
	}

	csrf := b.csrf("/dashboard/brands/br_acme/")
	old := b.cookie
	if p := b.do("POST", "/dashboard/logout", url.Values{}); p.status != http.StatusForbidden {
		t.Errorf("logout without the CSRF token: %d", p.status)
	}
	if p := b.do("POST", "/dashboard/logout", url.Values{"csrf": {csrf}}); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/signin" {
		t.Errorf("logout: %d", p.status)
	}
	b.cookie = old // the old cookie, kept by someone, no longer works
	if p := b.get("/dashboard/brands/br_acme/"); p.status != http.StatusSeeOther {
		t.Errorf("the old cookie after logout: %d", p.status)
	}
}

func TestExpiredLinkAndSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	token := f.link("br_acme")
	f.clock.Add(svc.SignInLinkTTL + time.Second)
	b := &browser{f: f}
	if p := b.do("POST", "/dashboard/signin", url.Values{"token": {token}}); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "15 minutes") || b.cookie != "" {
		t.Errorf("a link 15 minutes old: %d", p.status)
	}
	if p := b.do("POST", "/dashboard/signin", url.Values{"token": {""}}); p.status != http.StatusUnauthorized {
		t.Errorf("no token: %d", p.status)
	}
	b = f.signIn("br_acme")
	f.clock.Add(svc.SessionTTL)
	if p := b.get("/dashboard/brands/br_acme/"); p.status != http.StatusSeeOther {
		t.Errorf("a session 12 hours old: %d", p.status)
	}
}

// A brand's session never sees another brand's pages or changes them;
// they answer as if they did not exist. The operator sees every brand.
func TestCrossBrand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.signIn("br_acme")
	csrf := b.csrf("/dashboard/brands/br_acme/settings")
	for _, path := range []string{"/dashboard/brands/br_other/", "/dashboard/brands/br_other/settings", "/dashboard/brands/br_other/products/secret-widget", "/dashboard/operator"} {
		if p := b.get(path); p.status != http.StatusNotFound || strings.Contains(p.body, "Secret Product") {
			t.Errorf("GET %s as Acme: %d", path, p.status)
		}
	}
	form := url.Values{"csrf": {csrf}, "min_viewers": {"9"}, "min_purchases": {"9"}, "holdout": {"50"}}
	for _, path := range []string{"/dashboard/brands/br_other/settings", "/dashboard/brands/br_other/keys"} {
		if p := b.do("POST", path, form); p.status != http.StatusNotFound {
			t.Errorf("POST %s as Acme: %d", path, p.status)
		}
	}
	other, _ := f.store.Brand(context.Background(), "br_other")
	if other.MinViewers != 3 || other.Holdout != 0 {
		t.Errorf("Acme changed Other: %+v", other)
	}
	keys, _ := f.store.APIKeys(context.Background())
	if len(keys) != 2 {
		t.Errorf("Acme made a key for Other: %d keys", len(keys))
	}

	op := f.signIn("")
	if p := op.get("/dashboard/"); p.header.Get("Location") != "/dashboard/operator" {
		t.Errorf("operator home: %q", p.header.Get("Location"))
	}
	p := op.get("/dashboard/operator")
	for _, want := range []string{"Acme", "Other", "br_other", "Store: answers", "This server: ready", "2026-11-21 10:00 UTC"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("operator page lacks %q", want)
		}
	}
	if p := op.get("/dashboard/brands/br_other/products/secret-widget"); p.status != 200 || !strings.Contains(p.body, "Other&#39;s Secret Product") {
		t.Errorf("the operator on Other's product: %d", p.status)
	}
}

// The operator sees refused events by reason, from the metrics, and per
// brand for brands that exist.
func TestOperatorRefusedEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	req, _ := http.NewRequest("POST", f.srv.URL+"/api/collect/product-view", strings.NewReader(`{"brand_id":"br_acme"}`))
	req.Header.Set("X-svc-Api-Key", f.keys["br_acme"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// Per brand: Other's purchase with Acme's key, and a brand that does
	// not exist, which is counted only all together.
	for _, body := range []string{`{"brand_id":"br_other"}`, `{"brand_id":"br_nobody"}`} {
		req, _ := http.NewRequest("POST", f.srv.URL+"/api/collect/product-purchase", strings.NewReader(body))
		req.Header.Set("X-svc-Api-Key", f.keys["br_acme"])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	p := f.signIn("").get("/dashboard/operator")
	if !strings.Contains(p.body, "<th scope=\"row\">view</th><td>invalid</td><td>1</td>") {
		t.Errorf("operator page does not count the refused view:\n%s", p.body)
	}
	row := func(id string) string {
		_, r, _ := strings.Cut(p.body, `<a href="/dashboard/brands/`+id+`/">`)
		r, _, _ = strings.Cut(r, "</tr>")
		return r
	}
	if r := row("br_acme"); !strings.Contains(r, "<li>view invalid: 1</li>") || strings.Contains(r, "purchase") {
		t.Errorf("Acme's row: %s", r)
	}
	if r := row("br_other"); !strings.Contains(r, "<li>purchase invalid: 1</li>") || strings.Contains(r, "view") {
		t.Errorf("Other's row: %s", r)
	}
	if strings.Contains(p.body, "br_nobody") {
		t.Errorf("an unknown brand on the operator page")
	}
}

// Sign-in tokens, session ids and new keys never reach the log, at any level.
func TestNoSecretInLog(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	token := f.link("br_acme")
	b := &browser{f: f}
	b.get("/dashboard/signin?token=" + url.QueryEscape(token))
	b.do("POST", "/dashboard/signin", url.Values{"token": {token}})
	b.get("/dashboard/brands/br_acme/")
	csrf := b.csrf("/dashboard/brands/br_acme/settings")
	p := b.do("POST", "/dashboard/brands/br_acme/keys", url.Values{"csrf": {csrf}})
	secret := newKeyRe.FindStringSubmatch(p.body)[1]
	b.do("POST", "/dashboard/signin", url.Values{"token": {token}}) // refused: used
	log := f.log.String()
	if !strings.Contains(log, "/dashboard/signin") {
		t.Fatalf("the log does not have the requests, so this test proves nothing:\n%s", log)
	}
	for name, s := range map[string]string{"sign-in token": token, "session id": b.cookie, "CSRF token": csrf, "new key": secret} {
		if strings.Contains(log, s) {
			t.Errorf("the log holds the %s", name)
		}
	}
}

func TestSecureCookieBehindTLS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv := httptest.NewTLSServer(f.srv.Config.Handler)
	defer srv.Close()
	token := f.link("br_acme")
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, _ := http.NewRequest("POST", srv.URL+"/dashboard/signin", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", srv.URL)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var c *http.Cookie
	for _, k := range resp.Cookies() {
		c = k
	}
	if c == nil || !c.Secure || !c.HttpOnly {
		t.Errorf("cookie over TLS: %+v", c)
	}
}

// A brand sets, replaces and removes its webhook secrets; the page says
// whether one is set and never shows it.
func TestWebhookSecrets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.signIn("br_acme")
	csrf := b.csrf("/dashboard/brands/br_acme/settings")
	page := b.get("/dashboard/brands/br_acme/settings").body
	if !strings.Contains(page, "/api/connect/shopify/br_acme") || !strings.Contains(page, "not set: the shop's webhooks are refused") {
		t.Fatalf("settings do not show the webhooks")
	}
	const secret = "shpss_0123456789abcdef"
	form := url.Values{"csrf": {csrf}, "platform": {"shopify"}, "secret": {secret}}
	if p := b.do("POST", "/dashboard/brands/br_acme/webhooks", url.Values{"platform": {"shopify"}, "secret": {secret}}); p.status != http.StatusForbidden {
		t.Errorf("without the CSRF token: %d", p.status)
	}
	if p := b.do("POST", "/dashboard/brands/br_other/webhooks", form); p.status != http.StatusNotFound {
		t.Errorf("Other's webhook secret as Acme: %d", p.status)
	}
	if p := b.do("POST", "/dashboard/brands/br_acme/webhooks", form); p.status != http.StatusSeeOther {
		t.Fatalf("set: %d %s", p.status, p.body)
	}
	secrets, _ := f.store.WebhookSecrets(context.Background())
	if len(secrets) != 1 || secrets[0].BrandID != "br_acme" || secrets[0].Secret != secret {
		t.Fatalf("stored secrets: %v", secrets)
	}
	page = b.get("/dashboard/brands/br_acme/settings").body
	if strings.Contains(page, secret) || !strings.Contains(page, "Remove the Shopify secret") {
		t.Error("the page shows the secret, or not that it is set")
	}
	if p := b.do("POST", "/dashboard/brands/br_acme/webhooks", url.Values{"csrf": {csrf}, "platform": {"shopify"}, "secret": {"has space"}}); p.status != http.StatusBadRequest || strings.Contains(p.body, "has space") {
		t.Errorf("a bad secret: %d", p.status)
	}
	if p := b.do("POST", "/dashboard/brands/br_acme/webhooks", url.Values{"csrf": {csrf}, "platform": {"shopify"}, "remove": {"1"}}); p.status != http.StatusSeeOther {
		t.Fatalf("remove: %d", p.status)
	}
	if secrets, _ := f.store.WebhookSecrets(context.Background()); len(secrets) != 0 {
		t.Errorf("after removing: %v", secrets)
	}
	if strings.Contains(f.log.String(), secret) {
		t.Error("the log holds the secret")
	}
}

// A cancelled order leaves the overview's purchases and revenue, and the
// experiment's conversions.
func TestCancelledOrderLeavesTheFigures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.signIn("br_acme")
	if p := b.get("/dashboard/brands/br_acme/"); !strings.Contains(p.body, "59.90 EUR") {
		t.Fatal("the order is not on the overview before its cancellation")
	}
	f.api("POST", "/api/collect/order-cancel", "br_acme", map[string]any{"brand_id": "br_acme", "order_id": "o1"})
	p := b.get("/dashboard/brands/br_acme/")
	if strings.Contains(p.body, "59.90") || !strings.Contains(p.body, "<th scope=\"row\">Revenue</th><td>0.00</td>") {
		t.Errorf("the cancelled order is still on the overview")
	}
	req, _ := http.NewRequest("GET", f.srv.URL+"/api/svc/experiment?brand_id=br_acme", nil)
	req.Header.Set("X-svc-Api-Key", f.keys["br_acme"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Arms struct {
			Shown struct{ Converted int } `json:"shown"`
		} `json:"arms"`
	}
	decode(t, resp, &e)
	if e.Arms.Shown.Converted != 0 {
		t.Errorf("the cancelled order still converts: %+v", e)
	}
}

// A sign-in POST must say it came from the link's own page: another
// site's form that posted its own link would sign the visitor in to the
// attacker's dashboard (login CSRF). A refused POST leaves the link usable.
func TestSignInRefusesOtherOrigins(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	token := f.link("br_acme")
	for _, h := range [][]string{
		{"Origin", "https://evil.example"},
		{"Origin", ""},
		{"Origin", "null"},
		{"Origin", strings.Replace(f.srv.URL, "http://", "https://", 1)},
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Sec-Fetch-Site", "none"},
		{"Sec-Fetch-Site", "cross-site", "Origin", ""},
	} {
		b := &browser{f: f}
		if p := b.do("POST", "/dashboard/signin", url.Values{"token": {token}}, h...); p.status != http.StatusForbidden || b.cookie != "" {
			t.Errorf("sign in with %q: %d, cookie %t", h, p.status, b.cookie != "")
		}
	}
	b := &browser{f: f}
	if p := b.do("POST", "/dashboard/signin", url.Values{"token": {token}}, "Origin", "", "Sec-Fetch-Site", "same-origin"); p.status != http.StatusSeeOther || b.cookie == "" {
		t.Errorf("sign in with Sec-Fetch-Site same-origin: %d", p.status)
	}
	b = &browser{f: f}
	if p := b.do("POST", "/dashboard/signin", url.Values{"token": {f.link("br_acme")}}); p.status != http.StatusSeeOther || b.cookie == "" {
		t.Errorf("sign in with the service's own Origin: %d", p.status)
	}
}

// The sign-in page names the brand the link opens, and a link that no
// longer works says so before anyone presses a button.
func TestSignInPageNamesTheBrandAndDeadLinks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := &browser{f: f}
	token := f.link("br_acme")
	p := b.get("/dashboard/signin?token=" + url.QueryEscape(token))
	if p.status != 200 || !strings.Contains(p.body, "the dashboard of <strong>Acme</strong>") || !strings.Contains(p.body, "br_acme") || !strings.Contains(p.body, `value="`+token+`"`) {
		t.Errorf("the page of a brand's link: %d\n%s", p.status, p.body)
	}
	if p := b.get("/dashboard/signin?token=" + url.QueryEscape(f.link(""))); !strings.Contains(p.body, "the operator's dashboard") {
		t.Errorf("the page of the operator's link:\n%s", p.body)
	}
	b.do("POST", "/dashboard/signin", url.Values{"token": {token}})
	expired := f.link("br_acme")
	f.clock.Add(svc.SignInLinkTTL)
	for name, tok := range map[string]string{"used": token, "expired": expired, "unknown": "no-such-token"} {
		p := (&browser{f: f}).get("/dashboard/signin?token=" + url.QueryEscape(tok))
		if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "used already or has expired") || strings.Contains(p.body, "<button") {
			t.Errorf("the page of a %s link: %d\n%s", name, p.status, p.body)
		}
	}
}

// Numbers are written with their nouns' plural forms (x/text's CLDR
// rules), thresholds of 1 read as none, and the operator's mean a day has
// a decimal, so that 5 events in a week are not "0".
func TestNumbersInWords(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.signIn("br_acme")
	prod := b.get("/dashboard/brands/br_acme/products/shoe").body
	for _, want := range []string{"3 viewers and 3 views in the last hour; 1 purchase (1 unit) in the last 24 hours.",
		"3 views by 3 viewers, 1 purchase, 1 unit, 59.90 EUR."} {
		if !strings.Contains(prod, want) {
			t.Errorf("the product page lacks %q:\n%s", want, prod)
		}
	}
	hat := b.get("/dashboard/brands/br_acme/products/hat").body
	if want := "1 viewer and 1 view in the last hour; 0 purchases (0 units) in the last 24 hours."; !strings.Contains(hat, want) {
		t.Errorf("the hat's page lacks %q:\n%s", want, hat)
	}
	if want := "The widget shows nothing: 1 viewer in the last hour (it needs 2) and 0 purchases in the last 24 hours (it needs 1)."; !strings.Contains(hat, want) {
		t.Errorf("the hat's page lacks %q:\n%s", want, hat)
	}
	over := b.get("/dashboard/brands/br_acme/").body
	if want := "fewer than 2 viewers in the last hour and no purchases in the last 24 hours"; !strings.Contains(over, want) {
		t.Errorf("the overview lacks %q:\n%s", want, over)
	}
	for _, bad := range []string{"1 purchases", "1 units", "1 viewers", "fewer than 1 "} {
		for name, body := range map[string]string{"product": prod, "hat": hat, "overview": over} {
			if strings.Contains(body, bad) {
				t.Errorf("the %s page says %q", name, bad)
			}
		}
	}
	op := f.signIn("").get("/dashboard/operator").body
	// The brand was made a day ago: 5 a day, not 0.7 (5 over 7 days).
	if !strings.Contains(op, `data-label="Events, last 24 h">5</td>`) || !strings.Contains(op, "5.0 a day, over 1 day") {
		t.Errorf("the operator page does not show 5 events in 24 h and a mean of 5.0 a day:\n%s", op)
	}
}

func TestWidgetSentencesInEveryLanguage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lang, key string
		n         int64
		want      string
	}{
		{"en", "viewers", 1, "1 person viewed this in the last hour"},
		{"en", "purchases", 1234, "1,234 purchases in the last 24 hours"},
		{"de", "viewers", 1, "1 Person hat diesen Artikel in der letzten Stunde angesehen"},
		{"de", "purchases", 2, "2 Käufe in den letzten 24 Stunden"},
		{"fr", "viewers", 1, "1 personne a consulté cet article au cours de la dernière heure"},
		{"fr", "purchases", 3, "3 achats au cours des 24 dernières heures"},
		{"es", "viewers", 1, "1 persona vio este artículo en la última hora"},
		{"es", "purchases", 5, "5 compras en las últimas 24 horas"},
	} {
		if got := dashboard.WidgetSentence(tc.lang, tc.key, tc.n); got != tc.want {
			t.Errorf("%s %s %d: %q, want %q", tc.lang, tc.key, tc.n, got, tc.want)
		}
	}
}

// A session's form posted with another site's Origin is refused even
// without Fetch Metadata; "null", which a browser sends for this page's
// own form under no-referrer, leaves it to the form's token.
func TestSessionFormsCheckTheOrigin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.signIn("br_acme")
	csrf := b.csrf("/dashboard/brands/br_acme/settings")
	form := acmeForm(csrf)
	if p := b.do("POST", "/dashboard/brands/br_acme/settings", form, "Origin", "https://evil.example"); p.status != http.StatusForbidden {
		t.Errorf("settings from another Origin: %d", p.status)
	}
	if p := b.do("POST", "/dashboard/brands/br_acme/settings", form, "Origin", "null"); p.status != http.StatusSeeOther {
		t.Errorf("settings with Origin null and the token: %d %s", p.status, p.body)
	}
}
