package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/insights"
)

// The settings page's preview is the real widget: a frame whose page
// loads svc.js, as a shop's page does, from an address of the dashboard
// that stands in for the API (apiBase is where svc.js came from). That
// API answers the proof of the brand's most viewed product (or example
// counts when it has none) made from the brand as typed in the form, and
// its recent purchases under the privacy rules as typed; a view it gets
// is not counted. Its path carries the settings and a signature made with
// the session's CSRF secret, since svc.js sends no cookie: a stranger can
// neither read a brand's counts through it nor make one up.
//
//	/dashboard/preview/{brand}/{session}/{mac}/{settings}/svc.js
//	/dashboard/preview/{brand}/{session}/{mac}/{settings}/api/svc/product-proof
//
// {session} is the SHA-256 of the session id, as the store keys it (not
// the cookie's secret); {settings} is the form's query, base64url.

// previewPage is the page in the frame: a product and the widget.
type previewPage struct {
	Script   string // svc.js at the preview's API
	BrandID  string
	Product  string
	Title    string
	Lang     string // the brand's first language, as typed
	Corner   bool   // the widget in a corner rather than under the product
	Example  bool   // the counts are an example: the brand has no product yet
	Problems []problem
}

// Example counts for a brand with no product yet.
const (
	exampleProduct             = "example"
	exampleViewers, examplePur = 12, 3
)

// routePreview adds the preview's routes.
func (h *Handler) routePreview() {
	h.mux.Handle("GET /dashboard/brands/{brand}/preview", h.brand(h.previewFrame))
	api := "/dashboard/preview/{brand}/{session}/{mac}/{settings}/"
	h.mux.HandleFunc("GET "+api+"svc.js", h.previewAPI(h.previewScript))
	h.mux.HandleFunc("GET "+api+"svc-corner.js", h.previewAPI(h.previewScript))
	// A preview's view, and its widget's reports, count for nothing.
	nothing := h.previewAPI(func(w http.ResponseWriter, r *http.Request, b *svc.Brand) { w.WriteHeader(http.StatusNoContent) })
	h.mux.HandleFunc("POST "+api+"api/collect/product-view", nothing)
	h.mux.HandleFunc("POST "+api+"api/collect/widget", nothing)
	h.mux.HandleFunc("GET "+api+"api/svc/product-proof", h.previewAPI(h.previewProof))
	h.mux.HandleFunc("GET "+api+"api/svc/recent-activity", h.previewAPI(h.previewRecent))
}

// previewFrame is the frame's page for the settings of its query.
func (h *Handler) previewFrame(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	q := r.URL.Query()
	bad := applySettings(b, q)
	sample, err := h.sample(r, b)
	if err != nil {
		return err
	}
	settings := base64.RawURLEncoding.EncodeToString([]byte(settingsQueryOf(q).Encode()))
	p := previewPage{
		Script:  "/dashboard/preview/" + url.PathEscape(b.ID) + "/" + hex.EncodeToString(u.sess.Hash[:]) + "/" + previewMAC(u.sess.CSRF, b.ID, settings) + "/" + settings + "/svc.js",
		BrandID: b.ID, Product: sample.ProductID, Title: sample.Title, Lang: svc.WidgetLanguagesOf(b.Languages)[0],
		Corner: q.Get("layout") == "corner", Example: sample.ProductID == exampleProduct,
	}
	if p.Title == "" {
		p.Title = p.Product
	}
	if !svc.ValidWidgetLanguages(b.Languages) {
		p.Lang = "en"
	}
	for _, f := range settingFields {
		if bad[f.Field] != "" {
			p.Problems = append(p.Problems, problem{f.Field, f.Label, bad[f.Field]})
		}
	}
	// Framed by the settings page only.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"form-action 'none'; frame-ancestors 'self'; base-uri 'none'")
	w.Header().Set("X-Frame-Options", "SAMEORIGIN")
	h.render(w, r, http.StatusOK, "widgetpreview", page{Title: "Preview", Data: p})
	return nil
}

// settingsQueryOf keeps of a query the settings' fields only.
func settingsQueryOf(q url.Values) url.Values {
	out := url.Values{}
	for _, f := range settingFields {
		if v, ok := q[f.Field]; ok {
			out[f.Field] = v
		}
	}
	return out
}

// previewMAC signs a preview's brand and settings with the session's CSRF
// secret, which only the session's pages know.
func previewMAC(secret, brand, settings string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(brand + "\x00" + settings))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// productSample is the product whose real counts the preview shows: the
// one with the most viewers in the last hour.
type productSample struct {
	ProductID, Title string
}

func (h *Handler) sample(r *http.Request, b *svc.Brand) (productSample, error) {
	d, err := h.cfg.Insights.Brand(r.Context(), b.ID)
	if err != nil {
		return productSample{}, err
	}
	defer d.Release()
	var best int64 = -1
	out := productSample{ProductID: exampleProduct, Title: "An example product"}
	err = d.EachProduct(r.Context(), h.cfg.Tracker, func(p insights.ProductRow) bool {
		if p.LiveViewers > best && h.cfg.Tracker.KnownProduct(b.ID, p.ProductID) {
			best, out = p.LiveViewers, productSample{ProductID: p.ProductID}
		}
		return true
	})
	if err != nil {
		return productSample{}, err
	}
	if best >= 0 {
		out.Title, err = d.ProductTitle(r.Context(), out.ProductID)
	}
	return out, err
}

type previewHandler func(w http.ResponseWriter, r *http.Request, b *svc.Brand)

// previewAPI checks a preview address: a live session that may see the
// brand, and the settings it signed. The brand it hands on is the stored
// one with the settings applied; settings the rules refuse keep their
// stored values, so the widget shows what saving the others would.
func (h *Handler) previewAPI(next previewHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		raw, err := base64.RawURLEncoding.DecodeString(r.PathValue("settings"))
		hash, herr := hex.DecodeString(r.PathValue("session"))
		if err != nil || herr != nil || len(hash) != 32 {
			http.NotFound(w, r)
			return
		}
		q, err := url.ParseQuery(string(raw))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		s, err := h.cfg.Store.DashboardSession(r.Context(), [32]byte(hash), h.cfg.Now())
		if err != nil {
			http.NotFound(w, r) // ended, expired, or never
			return
		}
		// The brand is the one the page was made for: the MAC names it.
		b, ok := h.previewBrand(r, s, q)
		if !ok {
			http.NotFound(w, r)
			return
		}
		next(w, r, b)
	}
}

// previewBrand is the brand of the path, if the session may see it and
// the path's settings are the ones its page signed, with the settings
// applied.
func (h *Handler) previewBrand(r *http.Request, s *svc.DashboardSession, q url.Values) (*svc.Brand, bool) {
	id := r.PathValue("brand")
	switch {
	case s.Operator(), s.Email == "" && s.BrandID == id:
	case s.Email != "":
		if _, err := h.cfg.Store.Member(r.Context(), id, s.Email); err != nil {
			return nil, false
		}
	default:
		return nil, false
	}
	if !hmac.Equal([]byte(r.PathValue("mac")), []byte(previewMAC(s.CSRF, id, r.PathValue("settings")))) {
		return nil, false
	}
	b, err := h.cfg.Store.Brand(r.Context(), id)
	if err != nil {
		return nil, false
	}
	typed := *b
	typed.Domains = append([]string(nil), b.Domains...)
	if len(applySettings(&typed, q)) > 0 {
		// Each field alone: the good ones show, the bad keep the stored value.
		typed = *b
		for _, f := range settingFields {
			try := typed
			if f.set(&try, q[f.Field]) == "" && try.Validate() == nil {
				typed = try
			}
		}
	}
	return &typed, true
}

// previewScript serves svc.js and svc-corner.js, the very files the API
// serves.
func (h *Handler) previewScript(w http.ResponseWriter, r *http.Request, _ *svc.Brand) {
	if h.script == nil {
		http.NotFound(w, r)
		return
	}
	h.script.ServeHTTP(w, r)
}

// previewProof answers the proof of the brand's sample product, made from
// the brand as typed. The holdout is 0 here: the owner always sees the
// widget, whichever arm the preview's session would fall in.
func (h *Handler) previewProof(w http.ResponseWriter, r *http.Request, b *svc.Brand) {
	if h.cfg.ProofJSON == nil || h.cfg.ProofQuery == nil {
		http.NotFound(w, r)
		return
	}
	sample, err := h.sample(r, b)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	q, _ := h.cfg.ProofQuery(func(name string) string {
		switch name {
		case "brand_id":
			return b.ID
		case "product_id":
			return sample.ProductID
		}
		return r.URL.Query().Get(name)
	})
	b.Holdout = 0
	var p *svc.Proof
	if sample.ProductID == exampleProduct {
		p = &svc.Proof{BrandID: b.ID, ProductID: exampleProduct, ViewWindow: q.ViewWindow, PurchaseWindow: q.PurchaseWindow, CartWindow: q.CartWindow,
			Views: exampleViewers, Viewers: exampleViewers, Purchases: examplePur, Units: examplePur, ViewersNow: exampleViewers / 3, NowWindow: 5 * time.Minute,
			MinViewers: b.MinViewers, MinPurchases: b.MinPurchases, WidgetVariant: b.WidgetVariant, WidgetPosition: b.WidgetPosition,
			Languages: b.Languages, WidgetFont: b.Widget.Font, WidgetAccent: b.Widget.Accent, GeneratedAt: h.cfg.Now().UTC()}
	} else if p, err = h.cfg.Tracker.Proof(q, b); err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(h.cfg.ProofJSON(p))
}

// previewRecent answers the brand's recent purchases under the privacy
// rules as typed.
func (h *Handler) previewRecent(w http.ResponseWriter, r *http.Request, b *svc.Brand) {
	if h.cfg.RecentJSON == nil {
		http.NotFound(w, r)
		return
	}
	items := h.cfg.Tracker.RecentActivity(svc.RecentQuery{BrandID: b.ID}, b)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(h.cfg.RecentJSON(items))
}

// previewPath is the frame's address for the settings of a form.
func previewPath(brandID string, q url.Values) string {
	return brandPath(brandID) + "preview?" + q.Encode()
}
