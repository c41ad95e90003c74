package dashboard

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/script"
)

// overviewData is the overview page.
type overviewData struct {
	Periods    []insights.Period
	Currency   string
	Hourly     chart
	Daily      chart
	Top        []insights.ProductRow
	Trending   []insights.ProductRow
	Withheld   []insights.ProductRow
	Experiment insights.Experiment
	// ViewersError is the viewers' sketch's standard error, as the page
	// states it.
	ViewersError string
}

var viewersError = strconv.FormatFloat(100*rollup.SketchError, 'f', 1, 64) + "%"

const listLen = 10

func (h *Handler) overview(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	d, err := h.cfg.Insights.Brand(r.Context(), b.ID)
	if err != nil {
		return err
	}
	rows, top, trending, err := d.Ranking(r.Context(), h.cfg.Tracker)
	if err != nil {
		return err
	}
	var withheld []insights.ProductRow
	for _, p := range rows {
		if p.Withheld(b) {
			if withheld = append(withheld, p); len(withheld) == listLen {
				break
			}
		}
	}
	experiment, err := d.Experiment(r.Context(), b.Holdout)
	if err != nil {
		return err
	}
	data := overviewData{
		Periods: d.Overview(), Currency: d.Currency,
		Hourly: seriesChart("Views and purchases, hourly, last 48 hours", d.Series(time.Hour, 48), "Mon 15:04"),
		Daily:  seriesChart("Views and purchases, daily, last 30 days", d.Series(24*time.Hour, 30), "Jan 2"),
		Top:    head(top), Trending: head(trending), Withheld: head(withheld),
		Experiment: experiment, ViewersError: viewersError,
	}
	h.render(w, r, http.StatusOK, "overview", page{Title: b.Name, User: u.sess, Brand: b, Nav: "overview", Data: data})
	return nil
}

func head[T any](s []T) []T { return s[:min(len(s), listLen)] }

// productData is one product's page.
type productData struct {
	ProductID, Title string
	Daily, Hourly    chart
	Prices           chart
	Week             insights.Totals
	Currency         string
	Proof            *svc.Proof
	Shown            preview
	ViewersError     string
}

func (h *Handler) product(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	id := r.PathValue("product")
	p, err := h.cfg.Tracker.Proof(svc.ProofQuery{BrandID: b.ID, ProductID: id, ViewWindow: time.Hour, PurchaseWindow: 24 * time.Hour}, b)
	if err != nil {
		return err // ENOTFOUND for a product the brand never had
	}
	d, err := h.cfg.Insights.Brand(r.Context(), b.ID)
	if err != nil {
		return err
	}
	fig, err := d.Product(r.Context(), id)
	if err != nil {
		return err
	}
	daily := fig.Series(24*time.Hour, 30)
	data := productData{
		ProductID: id, Title: fig.Title, Currency: d.Currency, Proof: p,
		Daily:  seriesChart("Views and purchases, daily, last 30 days", daily, "Jan 2"),
		Hourly: seriesChart("Views and purchases, hourly, last 48 hours", fig.Series(time.Hour, 48), "Mon 15:04"),
		Prices: priceChart("Mean unit price paid, daily, last 30 days", daily, d.Currency),
		Week:   fig.Week(),
		Shown:  brandPreview(p.Viewers, p.Purchases, b), ViewersError: viewersError,
	}
	title := data.Title
	if title == "" {
		title = id
	}
	h.render(w, r, http.StatusOK, "product", page{Title: title, User: u.sess, Brand: b, Nav: "overview", Data: data})
	return nil
}

// settingsData is the settings page.
type settingsData struct {
	CSRF     string
	Snippet  string
	Keys     []*svc.APIKey
	NewKey   string // a key just created, shown this once
	Revoked  string
	Sample   productSample
	Preview  preview
	Holdouts []int
	Variants []variantChoice
	Webhooks []webhookRow
	// The widget's corner and languages (widget.go at the module's root).
	Positions []positionChoice
	Languages string
}

// positionChoice is one corner of the widget in the settings form.
type positionChoice struct {
	Name, Label string
	Checked     bool
}

var positionLabels = map[string]string{
	"start": "Bottom left (bottom right on a right-to-left page)",
	"end":   "Bottom right (bottom left on a right-to-left page)",
}

// webhookRow is one platform's webhook: where it is sent and whether the
// brand's secret is set. The secret itself is never shown.
type webhookRow struct {
	Platform, Label, URL string
	Set                  bool
	UpdatedAt            time.Time
}

var platformLabels = map[string]string{svc.PlatformShopify: "Shopify", svc.PlatformWooCommerce: "WooCommerce"}

// variantChoice is one part of the widget in the settings form.
type variantChoice struct {
	Name, Label string
	Checked     bool
}

var variantLabels = map[string]string{
	"inline": "The line under the product: viewers in the last hour, purchases in the last 24 hours",
	"now":    "Who is looking now",
	"toasts": "Toasts of recent purchases",
	"carts":  "How many people have it in their cart",
}

// productSample is the product whose real counts the preview shows: the
// one with the most viewers in the last hour.
type productSample struct {
	ProductID, Title   string
	Viewers, Purchases int64
}

func (h *Handler) settings(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	return h.renderSettings(w, r, u, b, http.StatusOK, "", "", nil)
}

func (h *Handler) renderSettings(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand, status int, newKey, revoked string, problems []string) error {
	keys, err := h.cfg.Store.APIKeys(r.Context())
	if err != nil {
		return err
	}
	keys = slices.DeleteFunc(keys, func(k *svc.APIKey) bool { return k.BrandID != b.ID })
	d, err := h.cfg.Insights.Brand(r.Context(), b.ID)
	if err != nil {
		return err
	}
	rows, err := d.Products(r.Context(), h.cfg.Tracker)
	if err != nil {
		return err
	}
	var sample productSample
	for _, p := range rows {
		if p.LiveViewers > sample.Viewers || sample.ProductID == "" {
			sample = productSample{p.ProductID, p.Title, p.LiveViewers, p.LivePurchases}
		}
	}
	base := strings.TrimSuffix(h.cfg.PublicURL, "/")
	if base == "" {
		base = "http://" + r.Host
	}
	data := settingsData{
		CSRF: u.sess.CSRF, Snippet: script.Snippet(base+"/svc.js", "svc", b.ID), Keys: keys, NewKey: newKey, Revoked: revoked,
		Sample: sample, Preview: brandPreview(sample.Viewers, sample.Purchases, b), Languages: languagesText(b),
	}
	secrets, err := h.cfg.Store.WebhookSecrets(r.Context())
	if err != nil {
		return err
	}
	for _, p := range svc.Platforms {
		row := webhookRow{Platform: p, Label: platformLabels[p], URL: base + svc.WebhookPath(p, b.ID)}
		for _, s := range secrets {
			if s.BrandID == b.ID && s.Platform == p {
				row.Set, row.UpdatedAt = true, s.UpdatedAt
			}
		}
		data.Webhooks = append(data.Webhooks, row)
	}
	chosen := strings.Fields(b.WidgetVariant)
	for _, v := range svc.WidgetVariants {
		data.Variants = append(data.Variants, variantChoice{v, variantLabels[v], slices.Contains(chosen, v)})
	}
	for _, p := range svc.WidgetPositions {
		data.Positions = append(data.Positions, positionChoice{p, positionLabels[p], svc.WidgetPositionOf(b.WidgetPosition) == p})
	}
	for i := 0; i <= svc.MaxHoldout; i += 5 {
		data.Holdouts = append(data.Holdouts, i)
	}
	if !slices.Contains(data.Holdouts, b.Holdout) {
		data.Holdouts = append(data.Holdouts, b.Holdout)
		slices.Sort(data.Holdouts)
	}
	h.render(w, r, status, "settings", page{Title: "Settings", User: u.sess, Brand: b, Nav: "settings", Data: data, Problems: problems})
	return nil
}

// saveSettings changes the thresholds and the holdout. The brand's rules
// (svc.Brand.Validate) decide what is valid, as for the command line.
func (h *Handler) saveSettings(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	var problems []string
	number := func(field, label string, into *int) {
		n, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue(field)))
		if err != nil {
			problems = append(problems, label+" must be a whole number")
			return
		}
		*into = n
	}
	number("min_viewers", "Fewest viewers", &b.MinViewers)
	number("min_purchases", "Fewest purchases", &b.MinPurchases)
	number("holdout", "Holdout", &b.Holdout)
	var parts []string
	for _, v := range svc.WidgetVariants { // in one order, whatever the form's
		if slices.Contains(r.PostForm["variant"], v) {
			parts = append(parts, v)
		}
	}
	b.WidgetVariant = strings.Join(parts, " ")
	b.WidgetPosition = r.PostFormValue("widget_position")
	// Spaces are forgiven; the default list is stored as "" so that it
	// follows the script's.
	b.Languages = strings.Join(strings.Fields(strings.ReplaceAll(strings.ToLower(r.PostFormValue("languages")), ",", " ")), ",")
	if b.Languages == strings.Join(svc.WidgetLanguages, ",") {
		b.Languages = ""
	}
	if len(problems) == 0 {
		if err := b.Validate(); err != nil {
			var e *svc.Error
			if !asError(err, &e) {
				return err
			}
			for _, f := range e.Fields {
				problems = append(problems, labels[f.Field]+" "+f.Message)
			}
		}
	}
	if len(problems) > 0 {
		return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", "", problems)
	}
	if err := h.cfg.Store.UpdateBrand(r.Context(), b); err != nil {
		return err
	}
	h.audit(r, u, b.ID, svc.AuditSettings, fmt.Sprintf("min_viewers=%d min_purchases=%d holdout=%d widget=%q position=%q languages=%q",
		b.MinViewers, b.MinPurchases, b.Holdout, b.WidgetVariant, b.WidgetPosition, b.Languages))
	h.refresh(r)
	http.Redirect(w, r, brandPath(b.ID)+"settings?saved=1", http.StatusSeeOther)
	return nil
}

var labels = map[string]string{"name": "Name", "min_viewers": "Fewest viewers", "min_purchases": "Fewest purchases", "holdout": "Holdout", "widget_variant": "Widget parts",
	"widget_position": "Corner", "languages": "Languages", "widget_font": "Font", "min_carts": "Fewest carts"}

// refresh makes the API follow a change at once rather than at its next poll.
func (h *Handler) refresh(r *http.Request) {
	if h.cfg.Brands != nil {
		if err := h.cfg.Brands.Refresh(r.Context()); err != nil {
			h.cfg.Log.Warn("dashboard: refresh brands", "err", err)
		}
	}
}

// saveWebhookSecret sets, replaces or removes the secret a platform signs
// the brand's webhooks with.
func (h *Handler) saveWebhookSecret(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	platform, secret := r.PostFormValue("platform"), r.PostFormValue("secret")
	if r.PostFormValue("remove") != "" {
		secret = ""
	} else if secret == "" {
		return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", "", []string{"Give the secret, or remove it with the Remove button"})
	}
	err := h.cfg.Store.SetWebhookSecret(r.Context(), b.ID, platform, secret, h.cfg.Now())
	var e *svc.Error
	if svc.ErrorCode(err) == svc.EINVALID && asError(err, &e) {
		var problems []string
		for _, f := range e.Fields {
			problems = append(problems, "The secret "+f.Message) // the message never quotes it
		}
		return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", "", problems)
	}
	if err != nil {
		return err
	}
	if secret == "" {
		h.audit(r, u, b.ID, svc.AuditWebhookSecret, platform+" secret removed")
	} else {
		h.audit(r, u, b.ID, svc.AuditWebhookSecret, platform+" secret set")
	}
	h.refresh(r)
	http.Redirect(w, r, brandPath(b.ID)+"settings#webhooks", http.StatusSeeOther)
	return nil
}

func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	secret, k := svc.NewAPIKey(b.ID, h.cfg.Now())
	if err := h.cfg.Store.CreateAPIKey(r.Context(), k); err != nil {
		return err
	}
	h.audit(r, u, b.ID, svc.AuditKeyCreate, "key "+k.Prefix)
	h.refresh(r)
	// Shown in this answer only: the store keeps its hash.
	return h.renderSettings(w, r, u, b, http.StatusOK, secret, "", nil)
}

func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	prefix := r.PostFormValue("prefix")
	if err := svc.CheckRevocation(b.ID, prefix); err != nil {
		return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", "", []string{err.Error()})
	}
	k, err := h.cfg.Store.RevokeAPIKey(r.Context(), b.ID, prefix, h.cfg.Now())
	if code := svc.ErrorCode(err); code == svc.ENOTFOUND || code == svc.ECONFLICT {
		return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", "", []string{err.Error()})
	} else if err != nil {
		return err
	}
	h.audit(r, u, b.ID, svc.AuditKeyRevoke, "key "+k.Prefix)
	h.refresh(r)
	return h.renderSettings(w, r, u, b, http.StatusOK, "", k.Prefix, nil)
}
