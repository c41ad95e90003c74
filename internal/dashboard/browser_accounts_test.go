package dashboard_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	cdpwebauthn "github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/svc-project/svc"
)

// Sign-in by email in Chromium, end to end: ask on the sign-in page,
// receive the link from the SMTP server, open it in the same browser,
// land on the brand; then the members and account pages, with no console
// error and no serious axe-core violation.
func TestBrowserSignInByEmail(t *testing.T) {
	f := newFixture(t)
	e := newBrowser(t)
	f.addMember("br_acme", "ann@shop.example", svc.RoleOwner)

	e.run(chromedp.Navigate(f.srv.URL + "/dashboard/signin"))
	e.checkAxe("sign-in by email")
	e.shot("signin")
	e.eval(`(()=>{document.getElementById("email").value="ann@shop.example";return true})()`, new(bool))
	e.click("#signin-form button[type=submit]")
	e.navigated("/dashboard/signin")
	e.waitFor(`document.body.innerText.includes("a sign-in link is on its way")`)
	e.checkAxe("check your email")

	msg := f.mail.Wait("ann@shop.example", 0)
	link := linkRe.FindString(msg.Text)
	if link == "" {
		t.Fatalf("no link in:\n%s", msg.Text)
	}
	u, _ := url.Parse(link)
	if u.Host != strings.TrimPrefix(f.srv.URL, "http://") {
		t.Fatalf("the link leads to %s", u.Host)
	}
	e.run(chromedp.Navigate(link))
	e.click("form button[type=submit]")
	e.navigated("/dashboard/brands/br_acme/")
	if txt := e.text(); !strings.Contains(txt, "Red Shoe") || !strings.Contains(txt, "Members") {
		t.Fatalf("landed on:\n%s", txt)
	}

	// Invite a viewer from the members page.
	e.click(`nav a[href$="/members"]`)
	e.navigated("/dashboard/brands/br_acme/members")
	e.checkAxe("members")
	e.shot("members")
	e.eval(`(()=>{document.getElementById("invite-email").value="bob@shop.example";return true})()`, new(bool))
	e.click("#invite-form button[type=submit]")
	e.navigated("/dashboard/brands/br_acme/members")
	e.waitFor(`document.body.innerText.includes("bob@shop.example is a member")`)
	f.mail.Wait("bob@shop.example", 0)

	// The account page lists this session.
	e.click(`nav a[href="/dashboard/account"]`)
	e.navigated("/dashboard/account")
	if txt := e.text(); !strings.Contains(txt, "Signed in as ann@shop.example") || !strings.Contains(txt, "(this one)") {
		t.Fatalf("account page:\n%s", txt)
	}
	e.checkAxe("account")
	e.shot("account")
	e.click(`nav a[href="/dashboard/"], header a.logo`)
	e.navigated("/dashboard/brands/br_acme/")
	e.click(`nav a[href$="/audit"]`)
	e.navigated("/dashboard/brands/br_acme/audit")
	if txt := e.text(); !strings.Contains(txt, "member-add") || !strings.Contains(txt, "sign-in") {
		t.Fatalf("audit page:\n%s", txt)
	}
	e.checkAxe("audit")
	e.noErrors()
}

// Passkeys in Chromium with a virtual authenticator: a member signed in
// by email adds a passkey on their account page, signs out, and signs in
// again with the passkey alone, without mail.
func TestBrowserPasskey(t *testing.T) {
	f := newFixtureAt(t, "localhost")
	e := newBrowser(t)
	f.addMember("br_acme", "ann@shop.example", svc.RoleOwner)
	base := strings.Replace(f.srv.URL, "127.0.0.1", "localhost", 1)
	if _, err := chromedp.Call(e.ctx, cdpwebauthn.Enable, cdpwebauthn.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(e.ctx, cdpwebauthn.AddVirtualAuthenticator, cdpwebauthn.AddVirtualAuthenticatorParams{Options: &cdpwebauthn.VirtualAuthenticatorOptions{
		Protocol: cdpwebauthn.AuthenticatorProtocolCtap2, Transport: cdpwebauthn.AuthenticatorTransportInternal,
		HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true}}); err != nil {
		t.Fatal(err)
	}

	// The first sign-in is by email.
	e.run(chromedp.Navigate(base + "/dashboard/signin"))
	e.eval(`(()=>{document.getElementById("email").value="ann@shop.example";return true})()`, new(bool))
	e.click("#signin-form button[type=submit]")
	e.navigated("/dashboard/signin")
	e.waitFor(`document.body.innerText.includes("a sign-in link is on its way")`)
	e.run(chromedp.Navigate(linkRe.FindString(f.mail.Wait("ann@shop.example", 0).Text)))
	e.click("form button[type=submit]")
	e.navigated("/dashboard/brands/br_acme/")

	// Add a passkey.
	e.run(chromedp.Navigate(base + "/dashboard/account"))
	e.waitFor(`document.getElementById("add-passkey")`)
	e.click("#add-passkey")
	e.waitFor(`document.querySelector("section[aria-labelledby=passkeys] table")?.innerText.includes("Headless Chrome on Linux")`)
	e.checkAxe("account with a passkey")
	keys, err := f.store.Passkeys(context.Background(), "ann@shop.example")
	if err != nil || len(keys) != 1 {
		t.Fatalf("passkeys: %d, %v", len(keys), err)
	}

	// Sign out, and in again with the passkey: no mail is sent.
	e.click(`form.logout button`)
	e.navigated("/dashboard/signin")
	mails := len(f.mail.Messages())
	e.click("#passkey-signin")
	e.navigated("/dashboard/brands/br_acme/")
	if txt := e.text(); !strings.Contains(txt, "Red Shoe") {
		t.Fatalf("after the passkey:\n%s", txt)
	}
	if n := len(f.mail.Messages()); n != mails {
		t.Fatalf("%d mails sent by a passkey sign-in", n-mails)
	}
	e.run(chromedp.Navigate(base + "/dashboard/brands/br_acme/audit"))
	e.waitFor(`document.body.innerText.includes("with a passkey, as owner") && document.body.innerText.includes("passkey-add")`)
	e.noErrors()
}
