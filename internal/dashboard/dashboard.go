// Package dashboard serves the brand dashboard at /dashboard: server-rendered
// pages for a brand's people and for the operator, signed in with one-time
// links and held in sessions the store keeps.
package dashboard

import (
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/metrics"
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
}

// New returns the dashboard.
func New(cfg Config) (*Handler, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	h := &Handler{cfg: cfg, mux: http.NewServeMux(), pages: map[string]*template.Template{}}
	for _, page := range []string{"signin", "overview", "product", "settings", "operator", "message"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html", "templates/"+page+".html")
		if err != nil {
			return nil, err
		}
		h.pages[page] = t
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
	h.mux.Handle("GET /dashboard/brands/{brand}/settings", h.brand(h.settings))
	h.mux.Handle("POST /dashboard/brands/{brand}/settings", h.brand(h.saveSettings))
	h.mux.Handle("POST /dashboard/brands/{brand}/keys", h.brand(h.createKey))
	h.mux.Handle("POST /dashboard/brands/{brand}/webhooks", h.brand(h.saveWebhookSecret))
	h.mux.Handle("POST /dashboard/brands/{brand}/keys/revoke", h.brand(h.revokeKey))
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
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
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
}

type sessionHandler func(w http.ResponseWriter, r *http.Request, u *user) error

// session requires a signed-in user and, on a form, its CSRF token.
func (h *Handler) session(next sessionHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := h.user(r)
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

// brand requires a session that may see the brand of the path: its own
// brand's, or the operator's. Another brand's page is answered as if it
// did not exist.
func (h *Handler) brand(next brandHandler) http.Handler {
	return h.session(func(w http.ResponseWriter, r *http.Request, u *user) error {
		id := r.PathValue("brand")
		if !u.sess.Operator() && u.sess.BrandID != id {
			return svc.Errorf(svc.ENOTFOUND, "no such brand")
		}
		b, err := h.cfg.Store.Brand(r.Context(), id)
		if err != nil {
			return err
		}
		return next(w, r, u, b)
	})
}

// user returns the request's live session, nil without one.
func (h *Handler) user(r *http.Request) (*user, error) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	s, err := h.cfg.Store.DashboardSession(r.Context(), svc.HashSecret(c.Value), h.cfg.Now())
	if svc.ErrorCode(err) == svc.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
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
	u, err := h.user(r)
	switch {
	case err != nil:
		h.fail(w, r, err)
	case u == nil:
		http.Redirect(w, r, "/dashboard/signin", http.StatusSeeOther)
	case u.sess.Operator():
		http.Redirect(w, r, "/dashboard/operator", http.StatusSeeOther)
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
	if token == "" {
		h.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Data: map[string]any{}})
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
	data := map[string]any{"Token": token, "Operator": l.BrandID == ""}
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
		"This sign-in link was used already or has expired: a link works once, for 15 minutes. Ask your operator for a new one (svc dashboard link --brand ID).")
}

// signin redeems a link. Only the link's own page may post it: a form
// on another site that posted its own link would sign the visitor in to
// the attacker's dashboard (login CSRF).
func (h *Handler) signin(w http.ResponseWriter, r *http.Request) {
	if !h.fromHere(r) {
		h.message(w, r, http.StatusForbidden, "Forbidden", "Sign in from the link itself.")
		return
	}
	token := r.PostFormValue("token")
	now := h.cfg.Now()
	id, s := svc.NewDashboardSession("", now)
	err := h.cfg.Store.RedeemSignInLink(r.Context(), svc.HashSecret(token), now, s)
	if svc.ErrorCode(err) == svc.ENOTFOUND || token == "" {
		h.linkDead(w, r)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	http.SetCookie(w, h.cookie(r, id, int(svc.SessionTTL/time.Second)))
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
	Brand    *svc.Brand
	Nav      string // the current section
	Data     any
	Problems []string
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	var buf strings.Builder
	if err := h.pages[name].Execute(&buf, p); err != nil {
		h.cfg.Log.Error("dashboard: render", "page", name, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(buf.String()))
}

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
