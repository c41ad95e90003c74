package dashboard

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/mail"
)

// Members, self-serve sign-in by email, a member's sessions and the audit
// log (docs/dashboard.md, Sign-in and roles).

// BindingCookie holds, in the browser that asked for a sign-in link, the
// secret the link is bound to.
const BindingCookie = "svc_signin"

// errOtherBrowser is a member's link opened in a browser that did not ask
// for it.
var errOtherBrowser = errors.New("the sign-in link was asked for in another browser")

func (h *Handler) routeAccounts() {
	h.mux.Handle("GET /dashboard/account", h.session(h.account))
	h.mux.Handle("POST /dashboard/account/sessions/end", h.session(h.endSession))
	h.mux.Handle("POST /dashboard/account/sessions/end-others", h.session(h.endOtherSessions))
	h.mux.Handle("POST /dashboard/account/digest", h.session(h.saveDigest))
	h.mux.Handle("GET /dashboard/brands/{brand}/members", h.brand(h.members))
	h.mux.Handle("POST /dashboard/brands/{brand}/members", h.owner(h.inviteMember))
	h.mux.Handle("POST /dashboard/brands/{brand}/members/role", h.owner(h.changeRole))
	h.mux.Handle("POST /dashboard/brands/{brand}/members/remove", h.owner(h.removeMember))
	h.mux.Handle("GET /dashboard/brands/{brand}/audit", h.owner(h.auditLog))
	h.mux.HandleFunc("GET /dashboard/unsubscribe", h.unsubscribePage)
	h.mux.HandleFunc("POST /dashboard/unsubscribe", h.unsubscribe)
	h.routePasskeys()
}

func peerIP(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, _ := netip.ParseAddr(host)
	return ip.Unmap()
}

// base is the service's address for links in mail: --public-url, which
// serve always sets. The request's Host is used only without one (tests):
// a link made from a forged Host would send its token elsewhere.
func (h *Handler) base(r *http.Request) string {
	if h.cfg.PublicURL != "" {
		return strings.TrimSuffix(h.cfg.PublicURL, "/")
	}
	return "http://" + r.Host
}

// bindingCookie is the asking browser's secret: for the sign-in path only,
// never for script, and as long as a link lives.
func (h *Handler) bindingCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	c := h.cookie(r, value, maxAge)
	c.Name, c.Path = BindingCookie, "/dashboard/signin"
	return c
}

// askLink answers a member's request for a sign-in link. The answer is
// the same for any address, member or not, and the mail leaves after it:
// neither its words nor its time tell who is a member.
func (h *Handler) askLink(w http.ResponseWriter, r *http.Request) {
	email, ok := svc.NormalizeEmail(r.PostFormValue("email"))
	if !ok {
		h.render(w, r, http.StatusBadRequest, "signin", page{Title: "Sign in", Data: map[string]any{"Email": r.PostFormValue("email")},
			Problems: []string{"Email: give an address such as you@shop.example"}})
		return
	}
	now := h.cfg.Now()
	ip := h.cfg.ClientIP(r)
	if !h.perIP.allow(ip.String(), now) || !h.perAddress.allow(email, now) {
		w.Header().Set("Retry-After", "300")
		h.message(w, r, http.StatusTooManyRequests, "Too many sign-in emails",
			"Too many sign-in links were asked for from here or for this address. Wait a few minutes, and use the newest email.")
		return
	}
	binding := ""
	if c, err := r.Cookie(BindingCookie); err == nil && len(c.Value) == 43 {
		binding = c.Value // a second ask from the same browser keeps the first link working
	} else {
		binding = svc.NewSecret()
	}
	http.SetCookie(w, h.bindingCookie(r, binding, int(svc.SignInLinkTTL/time.Second)))
	brands, err := h.cfg.Store.MemberBrands(r.Context(), email)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(brands) > 0 {
		token, l := svc.NewMemberSignInLink(email, binding, now)
		if err := h.cfg.Store.CreateSignInLink(r.Context(), l); err != nil {
			h.fail(w, r, err)
			return
		}
		link := h.base(r) + "/dashboard/signin?token=" + url.QueryEscape(token)
		h.send(mail.Message{To: email, Subject: "Sign in to the svc dashboard", Link: link,
			Text: fmt.Sprintf("Open this link to sign in to the svc dashboard:\n\n%s\n\nIt works once, for 15 minutes, in the browser where you asked for it.\nIf you did not ask, ignore this email: nobody can use the link elsewhere.\n", link),
			HTML: fmt.Sprintf(`<p>Open this link to sign in to the svc dashboard:</p><p><a href="%s">Sign in</a></p><p>It works once, for 15 minutes, in the browser where you asked for it. If you did not ask, ignore this email: nobody can use the link elsewhere.</p>`,
				html.EscapeString(link))})
	}
	h.render(w, r, http.StatusOK, "signin", page{Title: "Check your email", Data: map[string]any{"Sent": email}})
}

// send mails in the background, so that a request's answer does not wait
// for (or tell about) the SMTP server. Errors are logged without the link.
func (h *Handler) send(msg mail.Message) {
	h.mailing.Add(1)
	go func() {
		defer h.mailing.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := h.cfg.Mail.Send(ctx, msg); err != nil {
			h.cfg.Log.Warn("dashboard: mail", "to", msg.To, "subject", msg.Subject, "err", err)
		}
	}()
}

// Wait waits for the mail on its way: a server that stops sends it first.
func (h *Handler) Wait() { h.mailing.Wait() }

// checkBinding refuses a member's link in a browser other than the one
// that asked for it, without using the link up.
func (h *Handler) checkBinding(r *http.Request, token string, now time.Time) error {
	if token == "" {
		return svc.Errorf(svc.ENOTFOUND, "no token")
	}
	l, err := h.cfg.Store.SignInLink(r.Context(), svc.HashSecret(token), now)
	if err != nil {
		return err
	}
	if l.Binding == ([32]byte{}) {
		return nil // the operator's command's link
	}
	c, err := r.Cookie(BindingCookie)
	if err != nil || svc.HashSecret(c.Value) != l.Binding {
		return errOtherBrowser
	}
	return nil
}

// auditSignIn writes a sign-in into the log of every brand it opens.
func (h *Handler) auditSignIn(r *http.Request, s *svc.DashboardSession) {
	u := &user{sess: s}
	switch {
	case s.Email != "":
		ms, err := h.cfg.Store.MemberBrands(r.Context(), s.Email)
		if err != nil {
			h.cfg.Log.Warn("dashboard: audit", "err", err)
			return
		}
		for _, m := range ms {
			h.audit(r, u, m.BrandID, svc.AuditSignIn, "by email, as "+m.Role)
		}
	case s.BrandID != "":
		h.audit(r, u, s.BrandID, svc.AuditSignIn, "with a link from svc dashboard link")
	}
}

// audit writes one line of a brand's audit log. A failure is logged, not
// answered: the change it records is made.
func (h *Handler) audit(r *http.Request, u *user, brandID, action, detail string) {
	e := &svc.AuditEvent{BrandID: brandID, At: h.cfg.Now().UTC(), Actor: u.actor(), IP: h.cfg.ClientIP(r).String(), Action: action, Detail: detail}
	if err := h.cfg.Store.AppendAudit(context.WithoutCancel(r.Context()), e); err != nil {
		h.cfg.Log.Error("dashboard: audit", "brand", brandID, "action", action, "err", err)
	}
}

// brandChoice is a brand in a member's list.
type brandChoice struct {
	Brand *svc.Brand
	Role  string
}

// pickBrand sends a member to their brand, or lets them pick one.
func (h *Handler) pickBrand(w http.ResponseWriter, r *http.Request, u *user) error {
	ms, err := h.cfg.Store.MemberBrands(r.Context(), u.sess.Email)
	if err != nil {
		return err
	}
	switch len(ms) {
	case 0: // removed between the link's mail and its use
		h.message(w, r, http.StatusForbidden, "No brand", "This address is not a member of any brand any more. Ask an owner to invite you again.")
		return nil
	case 1:
		http.Redirect(w, r, brandPath(ms[0].BrandID), http.StatusSeeOther)
		return nil
	}
	var choices []brandChoice
	for _, m := range ms {
		b, err := h.cfg.Store.Brand(r.Context(), m.BrandID)
		if err != nil {
			return err
		}
		choices = append(choices, brandChoice{b, m.Role})
	}
	h.render(w, r, http.StatusOK, "brands", page{Title: "Your brands", User: u.sess, Data: choices})
	return nil
}

// membersData is the members page.
type membersData struct {
	CSRF    string
	Members []*svc.Member
	Invited string
	Roles   []string
	Self    string
}

func (h *Handler) members(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	return h.renderMembers(w, r, u, b, http.StatusOK, r.URL.Query().Get("invited"), nil)
}

func (h *Handler) renderMembers(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand, status int, invited string, problems []string) error {
	ms, err := h.cfg.Store.Members(r.Context(), b.ID)
	if err != nil {
		return err
	}
	h.render(w, r, status, "members", page{Title: "Members", User: u.sess, Brand: b, Nav: "members", Problems: problems,
		Data: membersData{CSRF: u.sess.CSRF, Members: ms, Invited: invited, Roles: []string{svc.RoleOwner, svc.RoleViewer}, Self: u.sess.Email}})
	return nil
}

// memberProblems turns the store's refusals into the page's problems.
func memberProblems(err error) []string {
	var e *svc.Error
	if !asError(err, &e) {
		return nil
	}
	if len(e.Fields) == 0 {
		return []string{e.Message}
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, memberLabels[f.Field]+" "+f.Message)
	}
	return out
}

var memberLabels = map[string]string{"email": "Email", "role": "Role", "brand_id": "Brand"}

// inviteMember adds a member and mails them where to sign in.
func (h *Handler) inviteMember(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	m := &svc.Member{BrandID: b.ID, Email: r.PostFormValue("email"), Role: r.PostFormValue("role"), CreatedAt: h.cfg.Now().UTC()}
	added, err := h.cfg.Store.PutMember(r.Context(), m)
	if code := svc.ErrorCode(err); code == svc.EINVALID || code == svc.ECONFLICT {
		status := http.StatusBadRequest
		if code == svc.ECONFLICT {
			status = http.StatusConflict
		}
		return h.renderMembers(w, r, u, b, status, "", memberProblems(err))
	} else if err != nil {
		return err
	}
	if added {
		h.audit(r, u, b.ID, svc.AuditMemberAdd, m.Email+" as "+m.Role)
		signin := h.base(r) + "/dashboard/signin?email=" + url.QueryEscape(m.Email)
		h.send(mail.Message{To: m.Email, Subject: "You can now see " + b.Name + " in the svc dashboard", Link: signin,
			Text: fmt.Sprintf("%s added you to %s's svc dashboard as %s.\n\nSign in with your email address here:\n\n%s\n", u.actor(), b.Name, m.Role, signin),
			HTML: fmt.Sprintf(`<p>%s added you to %s's svc dashboard as %s.</p><p><a href="%s">Sign in with your email address</a></p>`,
				html.EscapeString(u.actor()), html.EscapeString(b.Name), m.Role, html.EscapeString(signin))})
	} else {
		h.audit(r, u, b.ID, svc.AuditMemberRole, m.Email+" to "+m.Role)
	}
	http.Redirect(w, r, brandPath(b.ID)+"members?invited="+url.QueryEscape(m.Email), http.StatusSeeOther)
	return nil
}

// changeRole makes a member an owner or a viewer.
func (h *Handler) changeRole(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	email, role := r.PostFormValue("email"), r.PostFormValue("role")
	if _, err := h.cfg.Store.Member(r.Context(), b.ID, email); err != nil {
		if svc.ErrorCode(err) == svc.ENOTFOUND {
			return h.renderMembers(w, r, u, b, http.StatusBadRequest, "", []string{email + " is not a member"})
		}
		return err
	}
	_, err := h.cfg.Store.PutMember(r.Context(), &svc.Member{BrandID: b.ID, Email: email, Role: role})
	if code := svc.ErrorCode(err); code == svc.EINVALID {
		return h.renderMembers(w, r, u, b, http.StatusBadRequest, "", memberProblems(err))
	} else if code == svc.ECONFLICT {
		return h.renderMembers(w, r, u, b, http.StatusConflict, "", memberProblems(err))
	} else if err != nil {
		return err
	}
	h.audit(r, u, b.ID, svc.AuditMemberRole, email+" to "+role)
	http.Redirect(w, r, brandPath(b.ID)+"members", http.StatusSeeOther)
	return nil
}

// removeMember removes a member; the last owner stays.
func (h *Handler) removeMember(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	email := r.PostFormValue("email")
	err := h.cfg.Store.RemoveMember(r.Context(), b.ID, email)
	switch svc.ErrorCode(err) {
	case "":
	case svc.ECONFLICT:
		return h.renderMembers(w, r, u, b, http.StatusConflict, "", memberProblems(err))
	case svc.ENOTFOUND:
		return h.renderMembers(w, r, u, b, http.StatusBadRequest, "", []string{email + " is not a member"})
	default:
		return err
	}
	h.audit(r, u, b.ID, svc.AuditMemberRemove, email)
	if email == u.sess.Email {
		http.Redirect(w, r, "/dashboard/", http.StatusSeeOther)
		return nil
	}
	http.Redirect(w, r, brandPath(b.ID)+"members", http.StatusSeeOther)
	return nil
}

// sessionRow is one of a member's sessions on the account page.
type sessionRow struct {
	Ref                 string // names the session in a form: not its secret
	Device, IP          string
	CreatedAt, LastSeen time.Time
	Current             bool
}

// accountData is the account page.
type accountData struct {
	CSRF     string
	Email    string
	Sessions []sessionRow
	Digests  []digestChoice
	Ended    string
	// Passkeys are the member's; PasskeysOn says whether this server
	// takes them (a --public-url with a host name).
	Passkeys   []passkeyRow
	PasskeysOn bool
}

// digestChoice is one brand's weekly digest on the account page.
type digestChoice struct {
	BrandID, Name string
	On            bool
}

func ref(hash [32]byte) string { return hex.EncodeToString(hash[:8]) }

func (h *Handler) account(w http.ResponseWriter, r *http.Request, u *user) error {
	d := accountData{CSRF: u.sess.CSRF, Email: u.sess.Email, Ended: r.URL.Query().Get("ended")}
	sessions := []*svc.DashboardSession{u.sess}
	if u.sess.Email != "" {
		var err error
		if sessions, err = h.cfg.Store.DashboardSessions(r.Context(), u.sess.Email, h.cfg.Now()); err != nil {
			return err
		}
		ms, err := h.cfg.Store.MemberBrands(r.Context(), u.sess.Email)
		if err != nil {
			return err
		}
		for _, m := range ms {
			b, err := h.cfg.Store.Brand(r.Context(), m.BrandID)
			if err != nil {
				return err
			}
			d.Digests = append(d.Digests, digestChoice{m.BrandID, b.Name, m.Digest})
		}
		if d.Passkeys, err = h.passkeyRows(r, u.sess.Email); err != nil {
			return err
		}
		d.PasskeysOn = h.webauthn != nil
	}
	for _, s := range sessions {
		d.Sessions = append(d.Sessions, sessionRow{Ref: ref(s.Hash), Device: s.UserAgent, IP: s.IP, CreatedAt: s.CreatedAt, LastSeen: s.LastSeen, Current: s.Hash == u.sess.Hash})
	}
	h.render(w, r, http.StatusOK, "account", page{Title: "Your account", User: u.sess, Nav: "account", Data: d})
	return nil
}

// endSession ends one of the member's sessions, this one included.
func (h *Handler) endSession(w http.ResponseWriter, r *http.Request, u *user) error {
	target := r.PostFormValue("session")
	if target == ref(u.sess.Hash) {
		return h.logout(w, r, u)
	}
	if u.sess.Email == "" {
		return svc.Errorf(svc.ENOTFOUND, "no such session")
	}
	sessions, err := h.cfg.Store.DashboardSessions(r.Context(), u.sess.Email, h.cfg.Now())
	if err != nil {
		return err
	}
	for _, s := range sessions {
		if ref(s.Hash) == target {
			if err := h.cfg.Store.EndDashboardSession(r.Context(), s.Hash, h.cfg.Now()); err != nil {
				return err
			}
			http.Redirect(w, r, "/dashboard/account?ended=1", http.StatusSeeOther)
			return nil
		}
	}
	return svc.Errorf(svc.ENOTFOUND, "no such session")
}

// endOtherSessions ends every session of the member but this one.
func (h *Handler) endOtherSessions(w http.ResponseWriter, r *http.Request, u *user) error {
	n := int64(0)
	if u.sess.Email != "" {
		var err error
		if n, err = h.cfg.Store.EndMemberSessions(r.Context(), u.sess.Email, u.sess.Hash, h.cfg.Now()); err != nil {
			return err
		}
	}
	http.Redirect(w, r, fmt.Sprintf("/dashboard/account?ended=%d", n), http.StatusSeeOther)
	return nil
}

// saveDigest turns the member's weekly digests on or off, brand by brand.
func (h *Handler) saveDigest(w http.ResponseWriter, r *http.Request, u *user) error {
	if u.sess.Email == "" {
		return svc.Errorf(svc.EINVALID, "only a member signed in by email gets the digest")
	}
	ms, err := h.cfg.Store.MemberBrands(r.Context(), u.sess.Email)
	if err != nil {
		return err
	}
	on := r.PostForm["digest"]
	for _, m := range ms {
		want := false
		for _, id := range on {
			want = want || id == m.BrandID
		}
		if want != m.Digest {
			if err := h.cfg.Store.SetDigest(r.Context(), m.BrandID, m.Email, want); err != nil {
				return err
			}
		}
	}
	http.Redirect(w, r, "/dashboard/account?saved=1#digest", http.StatusSeeOther)
	return nil
}

// auditData is the audit page.
type auditData struct {
	Events []*svc.AuditEvent
	Next   int64 // the before of the next page; 0: none
}

const auditPage = 100

func (h *Handler) auditLog(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	var before int64
	fmt.Sscan(r.URL.Query().Get("before"), &before)
	events, err := h.cfg.Store.AuditEvents(r.Context(), b.ID, before, auditPage)
	if err != nil {
		return err
	}
	d := auditData{Events: events}
	if len(events) == auditPage {
		d.Next = events[len(events)-1].ID
	}
	h.render(w, r, http.StatusOK, "audit", page{Title: "Audit log", User: u.sess, Brand: b, Nav: "audit", Data: d})
	return nil
}

// device is a short name of a browser for the sessions list: "Chrome on
// Linux". The full header is not kept: it says more than a person needs.
func device(ua string) string {
	browser := "A browser"
	for _, b := range []struct{ key, name string }{
		{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"}, {"Chromium/", "Chromium"},
		{"HeadlessChrome/", "Headless Chrome"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"}, {"curl/", "curl"},
	} {
		if strings.Contains(ua, b.key) {
			browser = b.name
			break
		}
	}
	for _, o := range []struct{ key, name string }{
		{"Android", "Android"}, {"iPhone", "iOS"}, {"iPad", "iPadOS"}, {"Windows", "Windows"}, {"Mac OS X", "macOS"}, {"Linux", "Linux"},
	} {
		if strings.Contains(ua, o.key) {
			return browser + " on " + o.name
		}
	}
	return browser
}
