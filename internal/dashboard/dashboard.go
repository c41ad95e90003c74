// Package dashboard serves the brand dashboard at /dashboard: server-rendered
// pages for a brand's people and for the operator, signed in with one-time
// links and held in sessions the store keeps.
package dashboard

import (
	"bytes"
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/mail"
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/script"
	"github.com/svc-project/svc/internal/tracker"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config is what the dashboard reads and changes.
type Config struct {
	Store    svc.Store
	Brands   *auth.Cache // refreshed after a change, so that the API follows at once
	Tracker  *tracker.Tracker
	Insights *insights.Cache
	Metrics  *metrics.Metrics // the refused events the operator sees; nil: none
	Log      *slog.Logger
	// PublicURL is the service's address, for the embed snippet; an
	// https one also marks cookies Secure behind a TLS-terminating proxy.
	PublicURL string
	Now       func() time.Time
	// Mail sends sign-in links, invitations and digests; nil: a mailer
	// without SMTP, which logs sign-in links.
	Mail *mail.Mailer
	// ClientIP is the address a request comes from, behind the trusted
	// proxies (httpapi.ClientIP); nil: the peer's.
	ClientIP func(*http.Request) netip.Addr
	// ProofJSON and RecentJSON write the API's answers (httpapi.ProofJSON,
	// httpapi.RecentJSON), for the settings' preview of the real widget
	// (widgetpreview.go); nil: the preview shows nothing.
	ProofJSON  func(*svc.Proof) []byte
	RecentJSON func([]svc.RecentItem) []byte
	// ProofQuery reads a proof request's parameters as the API does
	// (httpapi.ParseProofQuery), for the preview's proof.
	ProofQuery func(get func(string) string) (svc.ProofQuery, []svc.FieldError)
	// RealtimeRefresh is how often the overview's real-time panel asks
	// again, in whole seconds; 0: every 10 seconds.
	RealtimeRefresh time.Duration
}

// maxForm bounds a form's body: a webhook secret is the largest field.
const maxForm = 16 << 10

// CookieName is the session cookie's name.
const CookieName = "svc_dashboard"

// Handler serves every path under /dashboard.
type Handler struct {
	cfg   Config
	mux   *http.ServeMux
	pages map[string]*template.Template
	// Sign-in mail per address and per client address (limit.go).
	perAddress, perIP *limiter
	webauthn          *webauthn.WebAuthn // passkeys.go; nil: none
	mailing           sync.WaitGroup     // sign-in mails on their way
	script            *script.Script     // svc.js, for the settings' preview
}

// New returns the dashboard.
func New(cfg Config) (*Handler, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Mail == nil {
		cfg.Mail, _ = mail.New(mail.Config{Log: cfg.Log}) // without SMTP: cannot fail
	}
	if cfg.ClientIP == nil {
		cfg.ClientIP = peerIP
	}
	if cfg.RealtimeRefresh < time.Second {
		cfg.RealtimeRefresh = 10 * time.Second
	}
	h := &Handler{cfg: cfg, mux: http.NewServeMux(), pages: map[string]*template.Template{},
		perAddress: newLimiter(linksPerAddress), perIP: newLimiter(linksPerIP), webauthn: newWebAuthn(cfg.PublicURL)}
	for _, page := range []string{"signin", "overview", "product", "settings", "operator", "message", "brands", "members", "account", "audit", "unsubscribe", "keys", "widgetpreview"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html", "templates/"+page+".html")
		if err != nil {
			return nil, err
		}
		h.pages[page] = t
	}
	if sc, err := script.Build(); err == nil { // a checkout without go generate: no preview
		h.script = sc
	}
	static, _ := fs.Sub(staticFS, "static") // embedded above: cannot fail
	fileServer := http.StripPrefix("/dashboard/static/", http.FileServerFS(static))
	h.mux.Handle("GET /dashboard/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		fileServer.ServeHTTP(w, r)
	}))
	h.mux.HandleFunc("GET /dashboard", h.home)
	h.mux.HandleFunc("GET /dashboard/{$}", h.home)
	h.mux.HandleFunc("GET /dashboard/signin", h.signinPage)
	h.mux.HandleFunc("POST /dashboard/signin", h.signin)
	h.mux.Handle("POST /dashboard/logout", h.session(h.logout))
	h.mux.Handle("GET /dashboard/operator", h.session(h.operator))
	h.mux.Handle("GET /dashboard/brands/{brand}/{$}", h.brand(h.overview))
	h.mux.Handle("GET /dashboard/brands/{brand}/products/{product}", h.brand(h.product))
	// Settings, keys and the widget's preview (settings.go, keys.go, widgetpreview.go).
	h.mux.Handle("GET /dashboard/brands/{brand}/settings", h.brand(h.settings))
	h.mux.Handle("POST /dashboard/brands/{brand}/settings", h.owner(h.saveSettings))
	h.mux.Handle("POST /dashboard/brands/{brand}/domains", h.owner(h.saveDomains))
	h.mux.Handle("POST /dashboard/brands/{brand}/webhooks", h.owner(h.saveWebhookSecret))
	h.mux.Handle("GET /dashboard/brands/{brand}/keys", h.owner(h.keys))
	h.mux.Handle("POST /dashboard/brands/{brand}/keys", h.owner(h.createKey))
	h.mux.Handle("POST /dashboard/brands/{brand}/keys/revoke", h.owner(h.revokeKey))
	h.routePreview()
	h.routeAccounts()
	h.routeReports()
	h.mux.HandleFunc("/dashboard/", func(w http.ResponseWriter, r *http.Request) {
		h.message(w, r, http.StatusNotFound, "Not found", "There is no such page here.")
	})
	return h, nil
}

// ServeHTTP serves a dashboard path. Every page is a document of this
// origin only: no inline script, no framing, no referrer (a sign-in link's
// token must not leak to another site).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("Cache-Control", "no-store")
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, maxForm) // every form is small
	}
	h.mux.ServeHTTP(w, r)
}

// user is the signed-in session of a request.
type user struct {
	sess *svc.DashboardSession
	id   string // the cookie's session id
	role string // in the brand of the path: svc.RoleOwner or svc.RoleViewer
}

// actor is who the audit log says did something.
func (u *user) actor() string {
	switch {
	case u.sess.Email != "":
		return u.sess.Email
	case u.sess.Operator():
		return "operator"
	}
	return "link" // svc dashboard link --brand
}

type sessionHandler func(w http.ResponseWriter, r *http.Request, u *user) error

// session requires a signed-in user and, on a form, its CSRF token.
func (h *Handler) session(next sessionHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := h.user(w, r)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if u == nil {
			http.Redirect(w, r, "/dashboard/signin", http.StatusSeeOther)
			return
		}
		if r.Method == http.MethodPost && !h.csrfOK(r, u) {
			h.message(w, r, http.StatusForbidden, "Forbidden", "The form's security token did not match this session. Reload the page and try again.")
			return
		}
		if err := next(w, r, u); err != nil {
			h.fail(w, r, err)
		}
	})
}

type brandHandler func(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error

// brand requires a session that may see the brand of the path: a
// member's, the brand's own link's, or the operator's. Another brand's
// page is answered as if it did not exist. The member's role is read on
// each request, so that a removal or a change holds at once on every node.
func (h *Handler) brand(next brandHandler) http.Handler {
	return h.session(func(w http.ResponseWriter, r *http.Request, u *user) error {
		id := r.PathValue("brand")
		switch {
		case u.sess.Operator(), u.sess.Email == "" && u.sess.BrandID == id:
			u.role = svc.RoleOwner
		case u.sess.Email != "":
			m, err := h.cfg.Store.Member(r.Context(), id, u.sess.Email)
			if err != nil {
				return err // ENOTFOUND: not theirs
			}
			u.role = m.Role
		default:
			return svc.Errorf(svc.ENOTFOUND, "no such brand")
		}
		b, err := h.cfg.Store.Brand(r.Context(), id)
		if err != nil {
			return err
		}
		return next(w, r.WithContext(context.WithValue(r.Context(), ownerKey{}, u.role == svc.RoleOwner)), u, b)
	})
}

// ownerKey marks, in a request's context, that its user owns the brand
// of its path: the pages show an owner's forms.
type ownerKey struct{}

// owner is brand for an owner's form: a viewer is refused with 403.
func (h *Handler) owner(next brandHandler) http.Handler {
	return h.brand(func(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
		if u.role != svc.RoleOwner {
			h.message(w, r, http.StatusForbidden, "Forbidden", "Only an owner of "+b.Name+" can change this. Ask one of its owners.")
			return nil
		}
		return next(w, r, u, b)
	})
}

// user returns the request's live session, nil without one. A session
// used after SessionTouch is touched: its end slides, in the store and in
// the cookie.
func (h *Handler) user(w http.ResponseWriter, r *http.Request) (*user, error) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	now := h.cfg.Now()
	s, err := h.cfg.Store.DashboardSession(r.Context(), svc.HashSecret(c.Value), now)
	if svc.ErrorCode(err) == svc.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if now.Sub(s.LastSeen) >= svc.SessionTouch {
		if err := h.cfg.Store.TouchDashboardSession(r.Context(), s.Hash, now); err != nil {
			return nil, err
		}
		s.LastSeen, s.ExpiresAt = now, now.Add(svc.SessionTTL)
		http.SetCookie(w, h.cookie(r, c.Value, int(svc.SessionTTL/time.Second)))
	}
	return &user{sess: s, id: c.Value}, nil
}

// csrfOK checks a form's token against the session's, and that a browser
// that says where the form came from says it came from here.
func (h *Handler) csrfOK(r *http.Request, u *user) bool {
	if h.fromElsewhere(r) {
		return false
	}
	got := r.PostFormValue("csrf")
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(u.sess.CSRF)) == 1
}

// fromElsewhere reports whether a browser says the request came from
// another site: a Fetch Metadata Sec-Fetch-Site other than same-origin or,
// without one, an Origin that is not this service's. "null" says nothing:
// under Referrer-Policy no-referrer a browser sends it for a form of this
// very page, and the form's token decides.
func (h *Handler) fromElsewhere(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site != "same-origin"
	}
	origin := r.Header.Get("Origin")
	return origin != "" && origin != "null" && !h.ownOrigin(r, origin)
}

// fromHere reports whether a browser says the request came from this
// service's own pages: Sec-Fetch-Site same-origin or, without it, an
// Origin of this service. A request that says nothing (no header, or
// Origin "null") is not from here.
func (h *Handler) fromHere(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin"
	}
	origin := r.Header.Get("Origin")
	return origin != "" && h.ownOrigin(r, origin)
}

// ownOrigin reports whether origin is this service's: the public URL's,
// or the host the request was sent to (behind a proxy that keeps Host).
func (h *Handler) ownOrigin(r *http.Request, origin string) bool {
	o, err := url.Parse(origin)
	if err != nil || o.Host == "" || o.Path != "" {
		return false // "null" among them: an opaque origin is nobody's
	}
	if p, err := url.Parse(h.cfg.PublicURL); err == nil && p.Host != "" && strings.EqualFold(p.Scheme, o.Scheme) && strings.EqualFold(p.Host, o.Host) {
		return true
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return strings.EqualFold(o.Scheme, scheme) && strings.EqualFold(o.Host, r.Host)
}

func (h *Handler) home(w http.ResponseWriter, r *http.Request) {
	u, err := h.user(w, r)
	switch {
	case err != nil:
		h.fail(w, r, err)
	case u == nil:
		http.Redirect(w, r, "/dashboard/signin", http.StatusSeeOther)
	case u.sess.Operator():
		http.Redirect(w, r, "/dashboard/operator", http.StatusSeeOther)
	case u.sess.Email != "":
		if err := h.pickBrand(w, r, u); err != nil {
			h.fail(w, r, err)
		}
	default:
		http.Redirect(w, r, brandPath(u.sess.BrandID), http.StatusSeeOther)
	}
}

func brandPath(id string) string { return "/dashboard/brands/" + url.PathEscape(id) + "/" }

// signinPage shows the link's button, naming whose dashboard it opens:
// signing in takes a POST, so that a mail scanner that opens the link does
// not use it up. A link that no longer works says so at once.
func (h *Handler) signinPage(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if token == "" { // a member asks for a link by email (accounts.go)
		h.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Data: map[string]any{
			"Email": r.URL.Query().Get("email"), "Passkeys": h.webauthn != nil}})
		return
	}
	l, err := h.cfg.Store.SignInLink(r.Context(), svc.HashSecret(token), h.cfg.Now())
	if svc.ErrorCode(err) == svc.ENOTFOUND {
		h.linkDead(w, r)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	data := map[string]any{"Token": token, "Operator": l.BrandID == "" && l.Email == "", "Member": l.Email}
	if l.BrandID != "" {
		b, err := h.cfg.Store.Brand(r.Context(), l.BrandID)
		if svc.ErrorCode(err) == svc.ENOTFOUND { // deleted since: the link opens nothing
			h.linkDead(w, r)
			return
		}
		if err != nil {
			h.fail(w, r, err)
			return
		}
		data["Brand"], data["BrandID"] = b.Name, b.ID
	}
	h.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Data: data})
}

// linkDead says that a sign-in link was used, expired or never made.
func (h *Handler) linkDead(w http.ResponseWriter, r *http.Request) {
	h.message(w, r, http.StatusUnauthorized, "This link does not work",
		"This sign-in link was used already or has expired: a link works once, for 15 minutes. Ask for a new one on the sign-in page, or ask your operator (svc dashboard link --brand ID).")
}

// signin redeems a link. Only the link's own page may post it: a form
// on another site that posted its own link would sign the visitor in to
// the attacker's dashboard (login CSRF).
func (h *Handler) signin(w http.ResponseWriter, r *http.Request) {
	if !h.fromHere(r) {
		h.message(w, r, http.StatusForbidden, "Forbidden", "Sign in from the link itself.")
		return
	}
	if r.PostFormValue("email") != "" {
		h.askLink(w, r) // accounts.go
		return
	}
	token := r.PostFormValue("token")
	now := h.cfg.Now()
	id, s := svc.NewDashboardSession("", now)
	s.UserAgent, s.IP = device(r.UserAgent()), h.cfg.ClientIP(r).String()
	err := h.checkBinding(r, token, now)
	if err == nil {
		err = h.cfg.Store.RedeemSignInLink(r.Context(), svc.HashSecret(token), now, s)
	}
	if errors.Is(err, errOtherBrowser) {
		h.message(w, r, http.StatusForbidden, "Open the link where you asked for it",
			"This link signs in the browser that asked for it. Open it there, or ask for a new link in this browser.")
		return
	}
	if svc.ErrorCode(err) == svc.ENOTFOUND || token == "" {
		h.linkDead(w, r)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	http.SetCookie(w, h.cookie(r, id, int(svc.SessionTTL/time.Second)))
	if _, err := r.Cookie(BindingCookie); err == nil {
		http.SetCookie(w, h.bindingCookie(r, "", -1)) // asked for and used
	}
	h.auditSignIn(r, s)
	http.Redirect(w, r, "/dashboard/", http.StatusSeeOther)
}

func (h *Handler) logout(w http.ResponseWriter, r *http.Request, u *user) error {
	if err := h.cfg.Store.EndDashboardSession(r.Context(), u.sess.Hash, h.cfg.Now()); err != nil {
		return err
	}
	http.SetCookie(w, h.cookie(r, "", -1))
	http.Redirect(w, r, "/dashboard/signin", http.StatusSeeOther)
	return nil
}

// cookie is the session cookie: for script never (HttpOnly), sent on
// top-level navigations from elsewhere but not on their forms (Lax), and
// over TLS only when the service is reached by TLS.
func (h *Handler) cookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: value, Path: "/dashboard", MaxAge: maxAge, HttpOnly: true,
		Secure: r.TLS != nil || strings.HasPrefix(h.cfg.PublicURL, "https://"), SameSite: http.SameSiteLaxMode}
}

// page is what every template gets.
type page struct {
	Title    string
	User     *svc.DashboardSession
	Owner    bool // of Brand: set from the request by render
	Brand    *svc.Brand
	Nav      string // the current section
	Data     any
	Problems []string
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	p.Owner, _ = r.Context().Value(ownerKey{}).(bool)
	buf := pageBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPageBuffer {
			buf.Reset()
			pageBuffers.Put(buf)
		}
	}()
	if err := h.pages[name].Execute(buf, p); err != nil {
		h.cfg.Log.Error("dashboard: render", "page", name, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// pageBuffers are the buffers pages are rendered into, for the next
// page: rendered into a buffer of its own, grown as it filled, and copied
// to be written, a page allocated about 3 times its size (an overview is
// 20 to 30 KB).
var pageBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPageBuffer bounds the buffers kept: a page larger than it is rare.
const maxPageBuffer = 1 << 20

func (h *Handler) message(w http.ResponseWriter, r *http.Request, status int, title, text string) {
	h.render(w, r, status, "message", page{Title: title, Data: text})
}

// fail answers an error: a brand or product the session may not see is
// not found; anything else is logged (never with the request's cookie or
// query) and answered 500.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch svc.ErrorCode(err) {
	case svc.ENOTFOUND:
		h.message(w, r, http.StatusNotFound, "Not found", "There is no such page here.")
		return
	case svc.EINVALID:
		h.message(w, r, http.StatusBadRequest, "Bad request", err.Error())
		return
	}
	if !errors.Is(err, context.Canceled) {
		h.cfg.Log.Error("dashboard", "path", r.URL.Path, "err", err)
	}
	h.message(w, r, http.StatusInternalServerError, "Something went wrong", "The error is in the server's log.")
}
