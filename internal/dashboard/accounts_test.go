package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/dashboard"
	"github.com/svc-project/svc/internal/shops"
)

// member is a browser with a cookie jar, as a member's: it keeps the
// sign-in binding cookie and the session cookie, from a client address.
type member struct {
	f      *fixture
	client *http.Client
	ip     string
}

func (f *fixture) member(ip string) *member {
	jar, _ := cookiejar.New(nil)
	return &member{f: f, ip: ip, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (m *member) do(method, path string, form url.Values) page {
	m.f.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	target := path
	if !strings.HasPrefix(path, "http") {
		target = m.f.srv.URL + path
	}
	req, _ := http.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36")
	req.Header.Set("X-Forwarded-For", m.ip)
	if method == "POST" && !strings.Contains(path, "/dashboard/unsubscribe") {
		// A browser without Fetch Metadata, posting this site's own form.
		req.Header.Set("Origin", req.URL.Scheme+"://"+req.URL.Host)
	}
	resp, err := m.client.Do(req)
	if err != nil {
		m.f.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return page{resp.StatusCode, string(raw), resp.Header}
}

func (m *member) get(path string) page { return m.do("GET", path, nil) }

// csrf reads the form token from a page.
func (m *member) csrf(path string) string {
	m.f.t.Helper()
	p := m.get(path)
	match := csrfRe.FindStringSubmatch(p.body)
	if match == nil {
		m.f.t.Fatalf("no CSRF token on %s (%d)", path, p.status)
	}
	return match[1]
}

func (f *fixture) addMember(brand, email, role string) {
	f.t.Helper()
	if _, err := f.store.PutMember(context.Background(), &svc.Member{BrandID: brand, Email: email, Role: role, CreatedAt: f.clock.Now()}); err != nil {
		f.t.Fatal(err)
	}
}

var linkRe = regexp.MustCompile(`http://[^\s"<>]+/dashboard/signin\?token=[0-9A-Za-z%]+`)

// ask asks for a link for the address, as the sign-in page's form does.
func (m *member) ask(email string) page {
	m.f.t.Helper()
	return m.do("POST", "/dashboard/signin", url.Values{"email": {email}})
}

// signIn asks for a link, takes the index-th mail to the address from the
// SMTP server, and opens its link in the same browser.
func (m *member) signIn(email string, index int) {
	m.f.t.Helper()
	if p := m.ask(email); p.status != 200 {
		m.f.t.Fatalf("ask: %d %s", p.status, p.body)
	}
	msg := m.f.mail.Wait(email, index)
	link := linkRe.FindString(msg.Text)
	if link == "" || !strings.Contains(msg.HTML, "Sign in") {
		m.f.t.Fatalf("no link in the mail:\n%s", msg.Text)
	}
	u, _ := url.Parse(link)
	token := u.Query().Get("token")
	if p := m.get(u.RequestURI()); p.status != 200 || !strings.Contains(p.body, token) {
		m.f.t.Fatalf("the link's page: %d", p.status)
	}
	if p := m.do("POST", "/dashboard/signin", url.Values{"token": {token}}); p.status != http.StatusSeeOther {
		m.f.t.Fatalf("sign in with the mailed link: %d %s", p.status, p.body)
	}
}

// A member asks for a link by email, receives it from a real SMTP server,
// and opens it in the same browser: signed in, on their brand. The link
// opens nothing in another browser, and works once.
func TestSignInByEmail(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addMember("br_acme", "ann@shop.example", svc.RoleOwner)
	ann := f.member("192.0.2.1")
	if p := ann.get("/dashboard/signin"); p.status != 200 || !strings.Contains(p.body, `type="email"`) {
		t.Fatalf("the sign-in page asks for no address: %d", p.status)
	}
	p := ann.ask("Ann@Shop.example")
	if p.status != 200 || !strings.Contains(p.body, "a sign-in link is on its way") {
		t.Fatalf("ask: %d %s", p.status, p.body)
	}
	msg := f.mail.Wait("ann@shop.example", 0)
	if msg.Header.Get("Subject") != "Sign in to the svc dashboard" || msg.From != "svc@shop.example" {
		t.Errorf("mail %q from %q", msg.Header.Get("Subject"), msg.From)
	}
	link := linkRe.FindString(msg.Text)
	u, _ := url.Parse(link)
	token := u.Query().Get("token")

	// Another browser, which did not ask, cannot use it, nor use it up.
	thief := f.member("198.51.100.7")
	if p := thief.do("POST", "/dashboard/signin", url.Values{"token": {token}}); p.status != http.StatusForbidden || !strings.Contains(p.body, "browser that asked") {
		t.Fatalf("the link in another browser: %d", p.status)
	}
	if p := thief.get("/dashboard/"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/signin" {
		t.Fatalf("the other browser is signed in: %d %s", p.status, p.header.Get("Location"))
	}

	if p := ann.do("POST", "/dashboard/signin", url.Values{"token": {token}}); p.status != http.StatusSeeOther {
		t.Fatalf("sign in: %d %s", p.status, p.body)
	}
	if p := ann.get("/dashboard/"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/brands/br_acme/" {
		t.Fatalf("home of a member of one brand: %d %q", p.status, p.header.Get("Location"))
	}
	if p := ann.get("/dashboard/brands/br_acme/"); p.status != 200 || !strings.Contains(p.body, "Red Shoe") {
		t.Fatalf("overview: %d", p.status)
	}
	if p := ann.get("/dashboard/brands/br_other/"); p.status != http.StatusNotFound || strings.Contains(p.body, "Secret Product") {
		t.Fatalf("another brand: %d", p.status)
	}
	if p := ann.get("/dashboard/operator"); p.status != http.StatusNotFound {
		t.Fatalf("the operator's page: %d", p.status)
	}
	again := f.member("192.0.2.1")
	if p := again.do("POST", "/dashboard/signin", url.Values{"token": {token}}); p.status == http.StatusSeeOther {
		t.Fatal("the link worked twice")
	}

	// A member of two brands picks one.
	f.addMember("br_other", "ann@shop.example", svc.RoleViewer)
	p = ann.get("/dashboard/")
	if p.status != 200 || !strings.Contains(p.body, `href="/dashboard/brands/br_acme/"`) || !strings.Contains(p.body, `href="/dashboard/brands/br_other/"`) {
		t.Fatalf("the brand picker: %d\n%s", p.status, p.body)
	}
	if p := ann.get("/dashboard/brands/br_other/"); p.status != 200 || !strings.Contains(p.body, "Secret Product") {
		t.Fatalf("the second brand: %d", p.status)
	}
	// The operator's command still signs in.
	if b := f.signIn("br_acme"); b.get("/dashboard/brands/br_acme/").status != 200 {
		t.Fatal("svc dashboard link no longer works")
	}
}

// The answer to a stranger's address is the member's, word for word but
// the address; only the member gets mail. A bad address is a 400.
func TestSignInSameAnswerForStrangers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addMember("br_acme", "ann@shop.example", svc.RoleViewer)
	stranger := f.member("192.0.2.1").ask("nobody@shop.example")
	known := f.member("192.0.2.2").ask("ann@shop.example")
	if stranger.status != known.status || strings.ReplaceAll(stranger.body, "nobody@shop.example", "X") != strings.ReplaceAll(known.body, "ann@shop.example", "X") {
		t.Fatalf("the answers differ: %d %d\n%s\n%s", stranger.status, known.status, stranger.body, known.body)
	}
	if stranger.header.Get("Set-Cookie") == "" || !strings.Contains(known.header.Get("Set-Cookie"), dashboard.BindingCookie+"=") {
		t.Fatal("the binding cookie is set for one and not the other")
	}
	f.mail.Wait("ann@shop.example", 0)
	time.Sleep(100 * time.Millisecond) // the stranger's mail, if any, was asked first
	for _, m := range f.mail.Messages() {
		for _, to := range m.To {
			if to == "nobody@shop.example" {
				t.Fatal("a stranger got a sign-in mail")
			}
		}
	}
	if p := f.member("192.0.2.3").ask("not an address"); p.status != http.StatusBadRequest || !strings.Contains(p.body, "Email: give an address") {
		t.Fatalf("a bad address: %d", p.status)
	}
}

// Sign-in mail is limited per address (3 at once) and per client address
// (10 at once), for members and strangers alike.
func TestSignInRateLimits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addMember("br_acme", "ann@shop.example", svc.RoleOwner)
	for i := range 4 {
		p := f.member("192.0.2.1").ask("ann@shop.example") // a new browser each time
		if want := map[bool]int{true: 200, false: 429}[i < 3]; p.status != want {
			t.Fatalf("ask %d for one address: %d, want %d", i+1, p.status, want)
		}
	}
	f.mail.Wait("ann@shop.example", 2)
	for i := range 11 {
		p := f.member("203.0.113.9").ask("person" + string(rune('a'+i)) + "@shop.example")
		if want := map[bool]int{true: 200, false: 429}[i < 10]; p.status != want {
			t.Fatalf("ask %d from one client address: %d, want %d", i+1, p.status, want)
		}
	}
	if p := f.member("198.51.100.1").ask("other@shop.example"); p.status != 200 {
		t.Fatalf("another client address: %d", p.status)
	}
	// A while later the address may ask again.
	f.clock.Add(6 * time.Minute)
	if p := f.member("192.0.2.1").ask("ann@shop.example"); p.status != 200 {
		t.Fatalf("after the wait: %d", p.status)
	}
	f.mail.Wait("ann@shop.example", 3)
	if n := len(f.mail.Messages()); n != 4 {
		t.Fatalf("%d mails sent, want 4 (the member's)", n)
	}
}

// An owner invites a viewer, who signs in by email; the viewer sees the
// brand and is refused every owner's form with 403; the last owner stays.
func TestInviteRolesAndLastOwner(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addMember("br_acme", "ann@shop.example", svc.RoleOwner)
	ann := f.member("192.0.2.1")
	ann.signIn("ann@shop.example", 0)
	csrf := ann.csrf("/dashboard/brands/br_acme/members")
	if p := ann.do("POST", "/dashboard/brands/br_acme/members", url.Values{"csrf": {csrf}, "email": {"not-an-address"}, "role": {"admin"}}); p.status != 400 ||
		!strings.Contains(p.body, "Email must be an email address") || !strings.Contains(p.body, "Role must be owner or viewer") {
		t.Fatalf("a bad invitation: %d", p.status)
	}
	if p := ann.do("POST", "/dashboard/brands/br_acme/members", url.Values{"csrf": {csrf}, "email": {"Bob@Shop.example"}, "role": {"viewer"}}); p.status != http.StatusSeeOther {
		t.Fatalf("invite: %d %s", p.status, p.body)
	}
	invite := f.mail.Wait("bob@shop.example", 0)
	if !strings.Contains(invite.Text, "ann@shop.example added you to Acme's svc dashboard as viewer") || !strings.Contains(invite.Text, "/dashboard/signin?email=bob%40shop.example") {
		t.Fatalf("the invitation:\n%s", invite.Text)
	}
	// Bob accepts: he signs in with his address and lands on Acme.
	bob := f.member("192.0.2.2")
	bob.signIn("bob@shop.example", 1)
	if p := bob.get("/dashboard/"); p.header.Get("Location") != "/dashboard/brands/br_acme/" {
		t.Fatalf("bob's home: %d %q", p.status, p.header.Get("Location"))
	}
	settings := bob.get("/dashboard/brands/br_acme/settings")
	if settings.status != 200 || !strings.Contains(settings.body, "You are a viewer") || strings.Contains(settings.body, "Create a key") || strings.Contains(settings.body, "Shop webhooks") {
		t.Fatalf("a viewer's settings: %d", settings.status)
	}
	bobCSRF := csrfRe.FindStringSubmatch(settings.body)[1]
	for path, form := range map[string]url.Values{
		"/dashboard/brands/br_acme/settings":       {"min_viewers": {"1"}, "min_purchases": {"1"}, "holdout": {"50"}},
		"/dashboard/brands/br_acme/keys":           {},
		"/dashboard/brands/br_acme/keys/revoke":    {"prefix": {"sk_x"}},
		"/dashboard/brands/br_acme/webhooks":       {"platform": {"shopify"}, "secret": {"s"}},
		"/dashboard/brands/br_acme/members":        {"email": {"eve@shop.example"}, "role": {"owner"}},
		"/dashboard/brands/br_acme/members/role":   {"email": {"bob@shop.example"}, "role": {"owner"}},
		"/dashboard/brands/br_acme/members/remove": {"email": {"ann@shop.example"}},
	} {
		form.Set("csrf", bobCSRF)
		if p := bob.do("POST", path, form); p.status != http.StatusForbidden {
			t.Errorf("a viewer's POST %s: %d", path, p.status)
		}
	}
	if p := bob.get("/dashboard/brands/br_acme/audit"); p.status != http.StatusForbidden {
		t.Errorf("a viewer reads the audit log: %d", p.status)
	}
	if b, _ := f.store.Brand(context.Background(), "br_acme"); b.Holdout != 0 {
		t.Fatal("a viewer changed the holdout")
	}
	if ms, _ := f.store.Members(context.Background(), "br_acme"); len(ms) != 2 || ms[1].Role != svc.RoleViewer {
		t.Fatalf("a viewer changed the members: %+v", ms)
	}

	// The last owner can neither leave nor become a viewer.
	for path, form := range map[string]url.Values{
		"/dashboard/brands/br_acme/members/remove": {"email": {"ann@shop.example"}},
		"/dashboard/brands/br_acme/members/role":   {"email": {"ann@shop.example"}, "role": {"viewer"}},
	} {
		form.Set("csrf", csrf)
		if p := ann.do("POST", path, form); p.status != http.StatusConflict || !strings.Contains(p.body, "last owner") {
			t.Errorf("the last owner, %s: %d", path, p.status)
		}
	}
	// Bob becomes an owner: now he may change things, and Ann may go.
	if p := ann.do("POST", "/dashboard/brands/br_acme/members/role", url.Values{"csrf": {csrf}, "email": {"bob@shop.example"}, "role": {"owner"}}); p.status != http.StatusSeeOther {
		t.Fatalf("promote: %d", p.status)
	}
	if p := bob.do("POST", "/dashboard/brands/br_acme/keys", url.Values{"csrf": {bobCSRF}}); p.status != 200 || !newKeyRe.MatchString(p.body) {
		t.Fatalf("an owner's key: %d", p.status)
	}
	if p := bob.do("POST", "/dashboard/brands/br_acme/members/remove", url.Values{"csrf": {bobCSRF}, "email": {"ann@shop.example"}}); p.status != http.StatusSeeOther {
		t.Fatalf("remove ann: %d", p.status)
	}
	// Ann, a member of no brand now, is signed out on the spot.
	if p := ann.get("/dashboard/brands/br_acme/"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/signin" {
		t.Fatalf("a removed member: %d %q", p.status, p.header.Get("Location"))
	}

	// The audit log says who did what, from where.
	audit := bob.get("/dashboard/brands/br_acme/audit")
	for _, want := range []string{
		"<td>member-add</td><td>bob@shop.example as viewer</td>", "<td>member-role</td><td>bob@shop.example to owner</td>",
		"<td>member-remove</td><td>ann@shop.example</td>", "<td>key-create</td>", "<th scope=\"row\">ann@shop.example</th><td>192.0.2.1</td><td>sign-in</td>",
		"<th scope=\"row\">bob@shop.example</th><td>192.0.2.2</td>",
	} {
		if !strings.Contains(audit.body, want) {
			t.Errorf("the audit log lacks %s", want)
		}
	}
}

// A member sees their sessions by device and last use, ends another, and
// is kept signed in while they use the dashboard: 30 days from the last
// use, not from the sign-in.
func TestMemberSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addMember("br_acme", "ann@shop.example", svc.RoleViewer)
	laptop, phone := f.member("192.0.2.1"), f.member("192.0.2.2")
	laptop.signIn("ann@shop.example", 0)
	f.clock.Add(time.Hour)
	phone.signIn("ann@shop.example", 1)
	account := laptop.get("/dashboard/account")
	if account.status != 200 || strings.Count(account.body, `role="rowheader">Chrome on Linux`) != 2 || !strings.Contains(account.body, "(this one)") ||
		!strings.Contains(account.body, "192.0.2.2") || !strings.Contains(account.body, "2026-11-21 11:00 UTC") {
		t.Fatalf("account page: %d\n%s", account.status, account.body)
	}
	refs := regexp.MustCompile(`name="session" value="([0-9a-f]+)"`).FindAllStringSubmatch(account.body, -1)
	if len(refs) != 2 {
		t.Fatalf("%d sessions listed", len(refs))
	}
	csrf := csrfRe.FindStringSubmatch(account.body)[1]
	// The list is newest first: the phone's is the first.
	if p := laptop.do("POST", "/dashboard/account/sessions/end", url.Values{"csrf": {csrf}, "session": {refs[0][1]}}); p.status != http.StatusSeeOther {
		t.Fatalf("end the phone's session: %d", p.status)
	}
	if p := phone.get("/dashboard/brands/br_acme/"); p.status != http.StatusSeeOther {
		t.Fatalf("the phone after its session ended: %d", p.status)
	}
	if p := laptop.get("/dashboard/brands/br_acme/"); p.status != 200 {
		t.Fatalf("the laptop: %d", p.status)
	}
	// Sliding: used every 29 days, the session lives on; unused 30 days, it ends.
	for range 3 {
		f.clock.Add(29 * 24 * time.Hour)
		if p := laptop.get("/dashboard/brands/br_acme/"); p.status != 200 {
			t.Fatalf("a session used within 30 days: %d", p.status)
		}
	}
	f.clock.Add(30 * 24 * time.Hour)
	if p := laptop.get("/dashboard/brands/br_acme/"); p.status != http.StatusSeeOther {
		t.Fatalf("a session unused for 30 days: %d", p.status)
	}
	// End every other session.
	f.clock.Add(time.Hour)
	a, b := f.member("192.0.2.1"), f.member("192.0.2.3")
	a.signIn("ann@shop.example", 2)
	b.signIn("ann@shop.example", 3)
	if p := a.do("POST", "/dashboard/account/sessions/end-others", url.Values{"csrf": {a.csrf("/dashboard/account")}}); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/account?ended=1" {
		t.Fatalf("end the others: %d %q", p.status, p.header.Get("Location"))
	}
	if b.get("/dashboard/brands/br_acme/").status != http.StatusSeeOther || a.get("/dashboard/brands/br_acme/").status != 200 {
		t.Fatal("end the others ended the wrong ones")
	}
}

// The weekly digest goes to members who asked for it, once a week, with
// last week's figures, a plain and an HTML part, and a one-click
// unsubscribe (RFC 8058) that needs no session.
func TestWeeklyDigest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addMember("br_acme", "ann@shop.example", svc.RoleOwner)
	f.addMember("br_acme", "bob@shop.example", svc.RoleViewer)
	ann := f.member("192.0.2.1")
	ann.signIn("ann@shop.example", 0)
	if p := ann.do("POST", "/dashboard/account/digest", url.Values{"csrf": {ann.csrf("/dashboard/account")}, "digest": {"br_acme"}}); p.status != http.StatusSeeOther {
		t.Fatalf("opt in: %d", p.status)
	}
	// A shop signs its webhooks with the wrong secret: the digest says so.
	if err := f.store.SetWebhookSecret(context.Background(), "br_acme", svc.PlatformShopify, "the-right-secret", t0); err != nil {
		t.Fatal(err)
	}
	if err := f.auth.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", f.srv.URL+shops.WebhookPath(svc.PlatformShopify, "br_acme"), strings.NewReader(`{"id":1}`))
	req.Header.Set("X-Shopify-Hmac-Sha256", "d3Jvbmc=")
	req.Header.Set("X-Shopify-Topic", "orders/create")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a forged webhook: %v %v", resp, err)
	}
	resp.Body.Close()
	// t0 is a Saturday; on Monday the week of the seeded events is last week.
	f.clock.Set(time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC))
	n, err := f.dash.SendDigests(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("sent %d, %v", n, err)
	}
	if n, err := f.dash.SendDigests(context.Background()); err != nil || n != 0 {
		t.Fatalf("sent again: %d, %v", n, err)
	}
	d := f.mail.Wait("ann@shop.example", 1)
	for _, want := range []string{"Acme: the week of Mon Nov 16 to Sun Nov 22", "Views        4  (new; the week before: 0)", "Purchases    1  (new; the week before: 0)", "Revenue      59.90 EUR",
		"Conversion   33.3% of viewers bought", "Top products", "  - Red Shoe: purchases 1, views 3", "Rising", "/dashboard/brands/br_acme/",
		"Needs attention", "1 shopify events refused (unauthorized): the shop's webhooks do not verify with the secret in Settings"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("the digest's text lacks %q:\n%s", want, d.Text)
		}
	}
	if !strings.Contains(d.HTML, "<b>59.90 EUR</b>") || !strings.Contains(d.HTML, `<a href="`+f.srv.URL+`/dashboard/brands/br_acme/">`) {
		t.Errorf("the digest's HTML:\n%s", d.HTML)
	}
	for _, m := range f.mail.Messages() {
		if m.To[0] == "bob@shop.example" {
			t.Fatal("a member who did not ask got the digest")
		}
	}
	unsub := strings.Trim(d.Header.Get("List-Unsubscribe"), "<>")
	if d.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" || !strings.Contains(unsub, "/dashboard/unsubscribe?token=") {
		t.Fatalf("unsubscribe headers: %q", unsub)
	}
	// A GET (a mail scanner) asks and changes nothing; the one-click POST,
	// without cookies, unsubscribes.
	stranger := f.member("198.51.100.1")
	if p := stranger.get(unsub); p.status != 200 || !strings.Contains(p.body, "Unsubscribe") {
		t.Fatalf("GET unsubscribe: %d", p.status)
	}
	if m, _ := f.store.Member(context.Background(), "br_acme", "ann@shop.example"); !m.Digest {
		t.Fatal("a GET unsubscribed")
	}
	if p := stranger.do("POST", unsub, url.Values{"List-Unsubscribe": {"One-Click"}}); p.status != 200 || !strings.Contains(p.body, "gets no more weekly digests of Acme") {
		t.Fatalf("one-click unsubscribe: %d %s", p.status, p.body)
	}
	if m, _ := f.store.Member(context.Background(), "br_acme", "ann@shop.example"); m.Digest {
		t.Fatal("still subscribed")
	}
	if p := stranger.do("POST", "/dashboard/unsubscribe?token=forged", url.Values{"List-Unsubscribe": {"One-Click"}}); p.status != http.StatusNotFound {
		t.Fatalf("a forged token: %d", p.status)
	}
	// Next week she gets none.
	f.clock.Add(7 * 24 * time.Hour)
	if n, _ := f.dash.SendDigests(context.Background()); n != 0 {
		t.Fatalf("sent after unsubscribing: %d", n)
	}
}

// The passkey endpoints refuse what the script would never send: no CSRF
// header, a server whose public URL is an address (no relying party), a
// sign-in finished without its ceremony's cookie.
func TestPasskeyRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t) // http://127.0.0.1:PORT: an IP address cannot be a relying party
	f.addMember("br_acme", "ann@shop.example", svc.RoleOwner)
	ann := f.member("192.0.2.1")
	ann.signIn("ann@shop.example", 0)
	if p := ann.get("/dashboard/account"); !strings.Contains(p.body, "This server takes no passkeys") || strings.Contains(p.body, `id="add-passkey"`) {
		t.Fatalf("account page without passkeys: %d", p.status)
	}
	if p := ann.get("/dashboard/signin"); strings.Contains(p.body, `id="passkey-signin"`) {
		t.Fatal("the sign-in page offers passkeys it cannot take")
	}
	if p := ann.do("POST", "/dashboard/account/passkeys/begin", nil); p.status != http.StatusForbidden {
		t.Fatalf("begin without the CSRF header: %d", p.status)
	}
	req, _ := http.NewRequest("POST", f.srv.URL+"/dashboard/account/passkeys/begin", nil)
	req.Header.Set("X-CSRF-Token", ann.csrf("/dashboard/account"))
	resp, err := ann.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("begin on a server without passkeys: %d", resp.StatusCode)
	}
	if p := f.member("192.0.2.9").do("POST", "/dashboard/signin/passkey/finish", url.Values{"x": {"y"}}); p.status != http.StatusBadRequest {
		t.Fatalf("finish without a ceremony: %d", p.status)
	}
}
