package dashboard

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/script"
	"github.com/svc-project/svc/internal/shops"
)

// The settings form is driven by one table, settingFields: each brand
// setting's form field (named as the domain names it in its FieldErrors,
// so that svc.Brand.Validate's messages land next to it), label, kind,
// and how it reads and writes a brand. A new setting of the brand is one
// entry here: the form, its errors, the audit line and the live preview
// (which renders the real svc.js with a proof made from the brand as
// typed) follow from it.

// field kinds: how a setting is typed.
const (
	kindText   = "text"
	kindNumber = "number"
	kindCheck  = "check"  // a checkbox: on or off
	kindRadio  = "radio"  // one of choices
	kindChecks = "checks" // any of choices, in the choices' order
	kindColor  = "color"  // a colour, #rrggbb
)

// settingField is one brand setting in the form.
type settingField struct {
	Field, Label, Help string
	Group              string // the fieldset it is in
	Kind               string
	Min, Max           int // for numbers; 0 and 0: none
	// Choices are the values of a radio or checks field, with their labels.
	Choices []choice
	get     func(*svc.Brand) string           // the value as the form shows it (checks: separated by spaces)
	set     func(*svc.Brand, []string) string // sets the brand from the form's values; a message when they do not parse
}

type choice struct{ Value, Label string }

// The groups of the form, in order.
var settingGroups = []string{"Brand", "Access", "Thresholds", "Widget", "Recent purchases", "Lift"}

var settingFields = []settingField{
	{Field: "name", Label: "Name", Group: "Brand", Kind: kindText,
		get: func(b *svc.Brand) string { return b.Name },
		set: func(b *svc.Brand, v []string) string { b.Name = first(v); return "" }},
	{Field: "require_key", Label: "Require an API key", Help: "refuse every request without a key of the brand, the browser's too", Group: "Access", Kind: kindCheck,
		get: func(b *svc.Brand) string { return onOff(b.RequireKey) },
		set: func(b *svc.Brand, v []string) string { b.RequireKey = first(v) == "on"; return "" }},
	{Field: "closed_catalog", Label: "Closed catalog", Help: "accept anonymous events only for products that exist", Group: "Access", Kind: kindCheck,
		get: func(b *svc.Brand) string { return onOff(b.ClosedCatalog) },
		set: func(b *svc.Brand, v []string) string { b.ClosedCatalog = first(v) == "on"; return "" }},
	{Field: "min_viewers", Label: "Fewest viewers shown", Help: "in the last hour", Group: "Thresholds", Kind: kindNumber, Min: 1,
		get: func(b *svc.Brand) string { return strconv.Itoa(b.MinViewers) },
		set: func(b *svc.Brand, v []string) string { return wholeNumber(v, &b.MinViewers) }},
	{Field: "min_purchases", Label: "Fewest purchases shown", Help: "in the last 24 hours", Group: "Thresholds", Kind: kindNumber, Min: 1,
		get: func(b *svc.Brand) string { return strconv.Itoa(b.MinPurchases) },
		set: func(b *svc.Brand, v []string) string { return wholeNumber(v, &b.MinPurchases) }},
	{Field: "min_carts", Label: "Fewest people with it in their cart shown", Help: "the carts part, in the last hour", Group: "Thresholds", Kind: kindNumber, Min: 1,
		get: func(b *svc.Brand) string { return strconv.Itoa(b.Widget.Stored().MinCarts) },
		set: func(b *svc.Brand, v []string) string { return wholeNumber(v, &b.Widget.MinCarts) }},
	{Field: "widget_variant", Label: "Parts of the widget", Help: "none chosen: the script's default, the line under the product", Group: "Widget", Kind: kindChecks,
		Choices: choicesOf(svc.WidgetVariants, variantLabels),
		get:     func(b *svc.Brand) string { return b.WidgetVariant },
		set: func(b *svc.Brand, v []string) string {
			var parts []string
			for _, p := range svc.WidgetVariants { // in one order, whatever the form's
				if slices.Contains(v, p) {
					parts = append(parts, p)
				}
			}
			for _, p := range v { // what is not a part reaches Validate
				if !slices.Contains(svc.WidgetVariants, p) {
					parts = append(parts, p)
				}
			}
			b.WidgetVariant = strings.Join(parts, " ")
			return ""
		}},
	{Field: "widget_position", Label: "Corner of the badge and the toasts", Help: "the toasts take the other corner while the badge is shown", Group: "Widget", Kind: kindRadio,
		Choices: choicesOf(svc.WidgetPositions, positionLabels),
		get:     func(b *svc.Brand) string { return svc.WidgetPositionOf(b.WidgetPosition) },
		set:     func(b *svc.Brand, v []string) string { b.WidgetPosition = first(v); return "" }},
	{Field: "widget_font", Label: "Font of the widget", Help: "sizes and weights stay svc's, so that it stays legible", Group: "Widget", Kind: kindRadio,
		Choices: []choice{{fontSystem, "The system's interface font (svc's)"}, {"inherit", "The page's own font"}},
		get: func(b *svc.Brand) string {
			if b.Widget.Font == "" {
				return fontSystem
			}
			return b.Widget.Font
		},
		set: func(b *svc.Brand, v []string) string {
			// svc's font is stored as ""; anything else reaches Validate.
			if b.Widget.Font = first(v); b.Widget.Font == fontSystem {
				b.Widget.Font = ""
			}
			return ""
		}},
	{Field: "widget_accent", Label: "Accent colour", Help: "of the icons and numbers on the light background, at least 4.5:1 against white; dark mode keeps svc's", Group: "Widget", Kind: kindColor,
		get: func(b *svc.Brand) string { return cmp.Or(b.Widget.Accent, svc.DefaultAccent) },
		set: func(b *svc.Brand, v []string) string {
			// svc's own is stored as "", so that it follows svc's; a colour
			// input always sends one.
			if b.Widget.Accent = first(v); strings.EqualFold(b.Widget.Accent, svc.DefaultAccent) {
				b.Widget.Accent = ""
			}
			return ""
		}},
	{Field: "languages", Label: "Languages, in order", Help: "among " + strings.Join(svc.WidgetLanguages, ", ") + ": the shopper's if listed, else the first", Group: "Widget", Kind: kindText,
		get: func(b *svc.Brand) string { return languagesText(b) },
		set: func(b *svc.Brand, v []string) string {
			// Spaces are forgiven; the default list is stored as "" so that
			// it follows the script's.
			b.Languages = strings.Join(strings.Fields(strings.ReplaceAll(strings.ToLower(first(v)), ",", " ")), ",")
			if b.Languages == strings.Join(svc.WidgetLanguages, ",") {
				b.Languages = ""
			}
			return ""
		}},
	{Field: "recent_delay", Label: "Delay before a purchase is shown", Help: "whole minutes, such as 5m or 1h30m", Group: "Recent purchases", Kind: kindText,
		get: func(b *svc.Brand) string { return svc.FormatDuration(b.Recent.Stored().Delay) },
		set: func(b *svc.Brand, v []string) string { return duration(v, &b.Recent.Delay) }},
	{Field: "recent_window", Label: "How far back the toasts look", Help: "such as 24h; at most 168h (7 days)", Group: "Recent purchases", Kind: kindText,
		get: func(b *svc.Brand) string { return svc.FormatDuration(b.Recent.Stored().Window) },
		set: func(b *svc.Brand, v []string) string { return duration(v, &b.Recent.Window) }},
	{Field: "recent_max", Label: "Most purchases in one answer", Group: "Recent purchases", Kind: kindNumber, Min: 1, Max: svc.MaxRecentItems,
		get: func(b *svc.Brand) string { return strconv.Itoa(b.Recent.Stored().MaxItems) },
		set: func(b *svc.Brand, v []string) string { return wholeNumber(v, &b.Recent.MaxItems) }},
	{Field: "recent_k", Label: "Purchases that must share a place before it is named", Help: "a city, or a country alone", Group: "Recent purchases", Kind: kindNumber, Min: svc.MinRecentK, Max: svc.MaxRecentK,
		get: func(b *svc.Brand) string { return strconv.Itoa(b.Recent.Stored().K) },
		set: func(b *svc.Brand, v []string) string { return wholeNumber(v, &b.Recent.K) }},
	{Field: "holdout", Label: "Holdout, percent of sessions", Help: "they never see the widget, so that its lift is measured", Group: "Lift", Kind: kindNumber, Min: 0, Max: svc.MaxHoldout,
		get: func(b *svc.Brand) string { return strconv.Itoa(b.Holdout) },
		set: func(b *svc.Brand, v []string) string { return wholeNumber(v, &b.Holdout) }},
}

// fontSystem is the form's value for svc's own font, which the brand
// stores as "" (svc.WidgetFonts): a radio button needs a value.
const fontSystem = "system"

var variantLabels = map[string]string{
	"inline": "The line under the product: viewers in the last hour, purchases in the last 24 hours",
	"now":    "Who is looking now",
	"toasts": "Toasts of recent purchases",
	"carts":  "How many people have it in their cart",
}

var positionLabels = map[string]string{
	"start": "Bottom left (bottom right on a right-to-left page)",
	"end":   "Bottom right (bottom left on a right-to-left page)",
}

func choicesOf(values []string, labels map[string]string) []choice {
	out := make([]choice, len(values))
	for i, v := range values {
		out[i] = choice{v, labels[v]}
		if out[i].Label == "" {
			out[i].Label = v
		}
	}
	return out
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return strings.TrimSpace(v[0])
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return ""
}

// wholeNumber parses a number field; what it holds is Validate's to judge.
func wholeNumber(v []string, into *int) string {
	n, err := strconv.Atoi(first(v))
	if err != nil {
		return "must be a whole number"
	}
	*into = n
	return ""
}

// duration parses a duration field; 0 is refused by Validate's bounds,
// not taken for the default.
func duration(v []string, into *time.Duration) string {
	d, err := time.ParseDuration(first(v))
	if err != nil {
		return "must be a duration such as 5m, 2h or 1h30m"
	}
	if d == 0 {
		d = -1
	}
	*into = d
	return ""
}

// fieldErrors are a form's messages by field.
type fieldErrors map[string]string

// applySettings sets the brand from a form of every setting and checks it
// with the domain's rules (svc.Brand.Validate): the messages by field.
func applySettings(b *svc.Brand, form url.Values) fieldErrors {
	bad := fieldErrors{}
	for _, f := range settingFields {
		if msg := f.set(b, form[f.Field]); msg != "" {
			bad[f.Field] = msg
		}
	}
	if len(bad) == 0 {
		addInvalid(bad, b.Validate())
	}
	return bad
}

// addInvalid adds a domain error's fields; domains[i] are the domains'.
func addInvalid(bad fieldErrors, err error) {
	var e *svc.Error
	if err == nil || !asError(err, &e) {
		return
	}
	for _, f := range e.Fields {
		name := f.Field
		if strings.HasPrefix(name, "domains[") {
			name = "domain"
		}
		if bad[name] == "" {
			bad[name] = f.Message
		}
	}
}

// formField is a setting as the template shows it.
type formField struct {
	settingField
	Value  string
	Values []string // of checks
	Error  string
}

// formGroup is a fieldset of the form.
type formGroup struct {
	Name   string
	ID     string
	Fields []formField
}

// formOf is the form of a brand's settings, with the messages by field;
// a refused text field shows what was typed (typed), as typed.
func formOf(b *svc.Brand, bad fieldErrors, typed url.Values) []formGroup {
	var out []formGroup
	for _, g := range settingGroups {
		fg := formGroup{Name: g, ID: "group-" + strings.ToLower(strings.ReplaceAll(g, " ", "-"))}
		for _, f := range settingFields {
			if f.Group != g {
				continue
			}
			v := f.get(b)
			if raw, ok := typed[f.Field]; ok && bad[f.Field] != "" && (f.Kind == kindText || f.Kind == kindNumber) {
				v = first(raw)
			}
			fg.Fields = append(fg.Fields, formField{settingField: f, Value: v, Values: strings.Fields(v), Error: bad[f.Field]})
		}
		out = append(out, fg)
	}
	return out
}

// settingsData is the settings page.
type settingsData struct {
	CSRF    string
	Saved   string // what was just saved: "settings", "domains"; "" for nothing
	Groups  []formGroup
	Domains []string
	// DomainAdd is a domain typed and refused, with why.
	DomainAdd, DomainError string
	Problems               []problem
	Snippet                string
	Webhooks               []webhookRow
	Preview                string // the preview frame's address, the brand as stored
}

// problem is a field's message in the summary above the form, linked to it.
type problem struct{ Field, Label, Message string }

// webhookRow is one platform's webhook: where it is sent and whether the
// brand's secret is set. The secret itself is never shown.
type webhookRow struct {
	Platform, Label, URL string
	Set                  bool
	UpdatedAt            time.Time
}

var platformLabels = map[string]string{svc.PlatformShopify: "Shopify", svc.PlatformWooCommerce: "WooCommerce"}

func (h *Handler) settings(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	var saved string
	switch r.URL.Query().Get("saved") {
	case "1", "settings":
		saved = "Saved."
	case "domains":
		saved = "Domains saved."
	case "webhooks":
		saved = "Webhook secret saved."
	}
	return h.renderSettings(w, r, u, b, http.StatusOK, saved, nil)
}

// renderSettings shows the settings page: b as stored, or as typed with
// the messages by field.
func (h *Handler) renderSettings(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand, status int, saved string, bad fieldErrors) error {
	base := h.base(r)
	data := settingsData{
		CSRF: u.sess.CSRF, Saved: saved, Groups: formOf(b, bad, r.PostForm), Domains: b.Domains,
		Snippet: script.Snippet(base+"/svc.js", "svc", b.ID),
		Preview: previewPath(b.ID, settingsQuery(b)),
	}
	data.DomainError = bad["domain"]
	if data.DomainError != "" {
		data.DomainAdd = r.PostFormValue("add")
	}
	for _, g := range data.Groups {
		for _, f := range g.Fields {
			if f.Error != "" {
				data.Problems = append(data.Problems, problem{f.Field, f.Label, f.Error})
			}
		}
	}
	if data.DomainError != "" {
		data.Problems = append(data.Problems, problem{"domain-add", "Domain", data.DomainError})
	}
	if bad["secret"] != "" {
		data.Problems = append(data.Problems, problem{"webhooks", "Webhook secret", bad["secret"]})
	}
	secrets, err := h.cfg.Store.WebhookSecrets(r.Context())
	if err != nil {
		return err
	}
	for _, p := range svc.Platforms {
		row := webhookRow{Platform: p, Label: platformLabels[p], URL: base + shops.WebhookPath(p, b.ID)}
		for _, s := range secrets {
			if s.BrandID == b.ID && s.Platform == p {
				row.Set, row.UpdatedAt = true, s.UpdatedAt
			}
		}
		data.Webhooks = append(data.Webhooks, row)
	}
	h.render(w, r, status, "settings", page{Title: "Settings", User: u.sess, Brand: b, Nav: "settings", Data: data})
	return nil
}

// settingsQuery is a brand's settings as the form sends them.
func settingsQuery(b *svc.Brand) url.Values {
	q := url.Values{}
	for _, f := range settingFields {
		v := f.get(b)
		switch f.Kind {
		case kindChecks:
			q[f.Field] = strings.Fields(v)
		case kindCheck:
			if v != "" {
				q.Set(f.Field, v)
			}
		default:
			q.Set(f.Field, v)
		}
	}
	return q
}

// saveSettings saves every setting of the form, as the domain's rules
// (svc.Brand.Validate) allow, as the command line does: a refusal shows
// the form as typed with a message next to each bad field; a success
// redirects to the page, which says "Saved." (post, redirect, get).
func (h *Handler) saveSettings(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	if err := r.ParseForm(); err != nil {
		return svc.Errorf(svc.EINVALID, "the form could not be read")
	}
	if bad := applySettings(b, r.PostForm); len(bad) > 0 {
		return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", bad)
	}
	if err := h.cfg.Store.UpdateBrand(r.Context(), b); err != nil {
		return err
	}
	var audit []string
	for _, f := range settingFields {
		audit = append(audit, fmt.Sprintf("%s=%q", f.Field, f.get(b)))
	}
	h.audit(r, u, b.ID, svc.AuditSettings, strings.Join(audit, " "))
	h.refresh(r)
	http.Redirect(w, r, brandPath(b.ID)+"settings?saved=settings", http.StatusSeeOther)
	return nil
}

// saveDomains adds one domain (add) or removes one (remove): the brand's
// pages' host names, checked by the domain's rules as brands set checks
// them.
func (h *Handler) saveDomains(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	add, remove := strings.TrimSpace(r.PostFormValue("add")), r.PostFormValue("remove")
	var line string
	switch {
	case remove != "":
		i := slices.Index(b.Domains, remove)
		if i < 0 {
			return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", fieldErrors{"domain": fmt.Sprintf("%q is not one of the brand's domains", remove)})
		}
		b.Domains = slices.Delete(b.Domains, i, i+1)
		line = "domain removed: " + remove
	case add != "":
		b.Domains = append(b.Domains, add)
		bad := fieldErrors{}
		addInvalid(bad, b.Validate())
		if msg := bad["domain"]; msg != "" {
			b.Domains = b.Domains[:len(b.Domains)-1]
			return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", fieldErrors{"domain": msg})
		}
		if len(bad) > 0 { // a stored setting the rules refuse now: the form says which
			return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", bad)
		}
		added := b.Domains[len(b.Domains)-1]
		if slices.Index(b.Domains, added) < len(b.Domains)-1 { // listed already: nothing to do
			http.Redirect(w, r, brandPath(b.ID)+"settings?saved=domains#domains", http.StatusSeeOther)
			return nil
		}
		line = "domain added: " + added
	default:
		return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", fieldErrors{"domain": "is required"})
	}
	if err := h.cfg.Store.UpdateBrand(r.Context(), b); err != nil {
		return err
	}
	h.audit(r, u, b.ID, svc.AuditSettings, line)
	h.refresh(r)
	http.Redirect(w, r, brandPath(b.ID)+"settings?saved=domains#domains", http.StatusSeeOther)
	return nil
}

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
		return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", fieldErrors{"secret": "Give the secret, or remove it with the Remove button"})
	}
	err := h.cfg.Store.SetWebhookSecret(r.Context(), b.ID, platform, secret, h.cfg.Now())
	var e *svc.Error
	if svc.ErrorCode(err) == svc.EINVALID && asError(err, &e) {
		var msgs []string
		for _, f := range e.Fields {
			msgs = append(msgs, "The secret "+f.Message) // the message never quotes it
		}
		return h.renderSettings(w, r, u, b, http.StatusBadRequest, "", fieldErrors{"secret": strings.Join(msgs, "; ")})
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
	http.Redirect(w, r, brandPath(b.ID)+"settings?saved=webhooks#webhooks", http.StatusSeeOther)
	return nil
}
