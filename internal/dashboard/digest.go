package dashboard

import (
	"cmp"
	"context"
	htmltemplate "html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/mail"
)

// The weekly digest: on Monday (UTC), each member who asked for it gets
// last week's figures of their brand against the week before. Every node
// runs the loop; the store's claim of a member's week decides which node
// sends it (svc.MemberStore.ClaimDigest), so it goes out once.

// weekOf returns the Monday 00:00 UTC that starts the week of t.
func weekOf(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return day.AddDate(0, 0, -(int(day.Weekday())+6)%7)
}

// RunDigests sends the digests due every interval until ctx ends. Without
// SMTP it sends none: a digest is not worth a log line.
func (h *Handler) RunDigests(ctx context.Context, every time.Duration) {
	if !h.cfg.Mail.Enabled() {
		h.cfg.Log.Info("dashboard: no SMTP server (--smtp-url): weekly digests are not sent")
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := h.SendDigests(ctx); err != nil && ctx.Err() == nil {
			h.cfg.Log.Warn("dashboard: weekly digests", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// SendDigests sends the digest of last week to each member who wants it
// and whose digest no node has claimed yet, and returns how many it sent.
// A digest whose mail fails after its claim is not sent again that week:
// at most once, never twice.
func (h *Handler) SendDigests(ctx context.Context) (int, error) {
	now := h.cfg.Now()
	start := weekOf(now).AddDate(0, 0, -7) // last week's Monday
	week := start.Format(time.DateOnly)
	members, err := h.cfg.Store.Members(ctx, "")
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, m := range members {
		if !m.Digest {
			continue
		}
		token := svc.NewSecret()
		won, err := h.cfg.Store.ClaimDigest(ctx, m.BrandID, m.Email, week, svc.HashSecret(token), now)
		if err != nil {
			return sent, err
		}
		if !won {
			continue
		}
		msg, err := h.digest(ctx, m, start, token)
		if err != nil {
			return sent, err
		}
		if err := h.cfg.Mail.Send(ctx, msg); err != nil {
			h.cfg.Log.Warn("dashboard: weekly digest", "brand", m.BrandID, "to", m.Email, "err", err)
			continue
		}
		sent++
	}
	return sent, nil
}

// digestData is what a digest says.
type digestData struct {
	Brand          *svc.Brand
	From, To       time.Time // last week: [From, To)
	Last, Before   insights.Totals
	Conversion     [2]float64 // purchases per viewer, last week and the week before
	Currency       string
	Top, Rising    []digestProduct
	Experiment     holdout.Experiment
	Attention      []string
	Dashboard      string
	Unsubscribe    string
	AccountSetting string
}

type digestProduct struct {
	Title        string
	Last, Before insights.Totals
}

func conversion(t insights.Totals) float64 {
	if t.Viewers == 0 {
		return 0
	}
	return float64(t.Purchases) / float64(t.Viewers)
}

// digest builds a member's digest of the week from start.
func (h *Handler) digest(ctx context.Context, m *svc.Member, start time.Time, token string) (mail.Message, error) {
	b, err := h.cfg.Store.Brand(ctx, m.BrandID)
	if err != nil {
		return mail.Message{}, err
	}
	d, err := h.cfg.Insights.Brand(ctx, m.BrandID)
	if err != nil {
		return mail.Message{}, err
	}
	defer d.Release()
	end, prev := start.AddDate(0, 0, 7), start.AddDate(0, 0, -7)
	lastWeek, weekBefore := insights.Window{From: start, To: end}, insights.Window{From: prev, To: start}
	base := strings.TrimSuffix(h.cfg.PublicURL, "/")
	data := digestData{Brand: b, From: start, To: end.Add(-time.Second), Currency: d.Currency, Dashboard: base + brandPath(b.ID),
		Unsubscribe: base + "/dashboard/unsubscribe?token=" + url.QueryEscape(token), AccountSetting: base + "/dashboard/account#digest"}
	if data.Last, err = d.Totals(ctx, lastWeek); err != nil {
		return mail.Message{}, err
	}
	if data.Before, err = d.Totals(ctx, weekBefore); err != nil {
		return mail.Message{}, err
	}
	if data.Experiment, err = d.Experiment(ctx, b.Holdout); err != nil {
		return mail.Message{}, err
	}
	data.Conversion = [2]float64{conversion(data.Last), conversion(data.Before)}
	// The products seen in the last 7 days, each read over both weeks.
	var rows []insights.ProductRow
	if err := d.EachProduct(ctx, h.cfg.Tracker, func(p insights.ProductRow) bool { rows = append(rows, p); return true }); err != nil {
		return mail.Message{}, err
	}
	if err := d.Titled(ctx, rows); err != nil {
		return mail.Message{}, err
	}
	var products []digestProduct
	for _, p := range rows {
		row := digestProduct{Title: cmp.Or(p.Title, p.ProductID)}
		if row.Last, err = d.ProductTotals(ctx, p.ProductID, lastWeek); err != nil {
			return mail.Message{}, err
		}
		if row.Before, err = d.ProductTotals(ctx, p.ProductID, weekBefore); err != nil {
			return mail.Message{}, err
		}
		if row.Last.Views+row.Last.Purchases > 0 {
			products = append(products, row)
		}
	}
	top := slices.Clone(products)
	slices.SortStableFunc(top, func(x, y digestProduct) int {
		return cmp.Or(cmp.Compare(y.Last.Purchases, x.Last.Purchases), cmp.Compare(y.Last.Views, x.Last.Views), strings.Compare(x.Title, y.Title))
	})
	data.Top = top[:min(len(top), 5)]
	rising := slices.DeleteFunc(slices.Clone(products), func(p digestProduct) bool { return p.Last.Views <= p.Before.Views })
	slices.SortStableFunc(rising, func(x, y digestProduct) int {
		return cmp.Or(cmp.Compare(y.Last.Views-y.Before.Views, x.Last.Views-x.Before.Views), strings.Compare(x.Title, y.Title))
	})
	data.Rising = rising[:min(len(rising), 5)]
	for _, r := range h.cfg.Metrics.BrandRefusals(b.ID) {
		data.Attention = append(data.Attention, attention(r.Kind, r.Reason, r.Count))
	}
	var text, htmlBody strings.Builder
	if err := digestText.Execute(&text, data); err != nil {
		return mail.Message{}, err
	}
	if err := digestHTML.Execute(&htmlBody, data); err != nil {
		return mail.Message{}, err
	}
	return mail.Message{To: m.Email, Subject: b.Name + ": your week, " + start.Format("Jan 2"),
		Text: text.String(), HTML: htmlBody.String(), Unsubscribe: data.Unsubscribe}, nil
}

// attention says what a kind of refused event means for the brand.
func attention(kind, reason string, n int64) string {
	what := formatInt(n) + " " + kind + " events refused (" + reason + ")"
	switch {
	case (kind == svc.PlatformShopify || kind == svc.PlatformWooCommerce) && reason == svc.EUNAUTHORIZED:
		what += ": the shop's webhooks do not verify with the secret in Settings"
	case reason == svc.EUNAUTHORIZED:
		what += ": a page on a domain the brand does not list, or without the key, sent them; check Domains"
	}
	return what
}

var digestFuncs = map[string]any{
	"int": formatInt, "money": money, "change": change,
	"percent": func(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" },
	"day":     func(t time.Time) string { return t.Format("Mon Jan 2") },
	"conv":    conversion,
}

var digestText = texttemplate.Must(texttemplate.New("digest").Funcs(digestFuncs).Parse(`{{.Brand.Name}}: the week of {{day .From}} to {{day .To}} (UTC)

Views        {{int .Last.Views}}  ({{change .Last.Views .Before.Views}}; the week before: {{int .Before.Views}})
Purchases    {{int .Last.Purchases}}  ({{change .Last.Purchases .Before.Purchases}}; the week before: {{int .Before.Purchases}})
Revenue      {{money .Last.Revenue .Currency}}  ({{change .Last.Revenue .Before.Revenue}}; the week before: {{money .Before.Revenue .Currency}})
Conversion   {{percent (index .Conversion 0)}} of viewers bought (the week before: {{percent (index .Conversion 1)}})
{{if .Top}}
Top products
{{range .Top}}  - {{.Title}}: purchases {{int .Last.Purchases}}, views {{int .Last.Views}}
{{end}}{{end}}{{if .Rising}}
Rising
{{range .Rising}}  - {{.Title}}: views {{int .Last.Views}} ({{change .Last.Views .Before.Views}}; the week before: {{int .Before.Views}})
{{end}}{{end}}{{with .Experiment}}{{if .Holdout}}
The widget's effect: {{percent .Arms.Shown.Conversion}} of sessions shown it bought, {{percent .Arms.HeldOut.Conversion}} of those held out{{if .Difference.Significant}} (significant){{else}} (not yet significant){{end}}.
{{end}}{{end}}{{if .Attention}}
Needs attention (seen by the server that sent this, since it started)
{{range .Attention}}  - {{.}}
{{end}}{{end}}
The dashboard: {{.Dashboard}}

You get this because you asked for it. Unsubscribe: {{.Unsubscribe}}
or change it on your account page: {{.AccountSetting}}
`))

var digestHTML = htmltemplate.Must(htmltemplate.New("digest").Funcs(digestFuncs).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Brand.Name}}: your week</title></head>
<body style="font-family: -apple-system, Segoe UI, Helvetica, Arial, sans-serif; color: #1a1a1a; max-width: 36rem;">
<h1 style="font-size: 1.3em;">{{.Brand.Name}}: the week of {{day .From}} to {{day .To}}</h1>
<table cellpadding="4" style="border-collapse: collapse;">
<tr><th align="left">&nbsp;</th><th align="right">Last week</th><th align="right">The week before</th><th align="right">Change</th></tr>
<tr><td>Views</td><td align="right"><b>{{int .Last.Views}}</b></td><td align="right">{{int .Before.Views}}</td><td align="right">{{change .Last.Views .Before.Views}}</td></tr>
<tr><td>Purchases</td><td align="right"><b>{{int .Last.Purchases}}</b></td><td align="right">{{int .Before.Purchases}}</td><td align="right">{{change .Last.Purchases .Before.Purchases}}</td></tr>
<tr><td>Revenue</td><td align="right"><b>{{money .Last.Revenue .Currency}}</b></td><td align="right">{{money .Before.Revenue .Currency}}</td><td align="right">{{change .Last.Revenue .Before.Revenue}}</td></tr>
<tr><td>Conversion</td><td align="right"><b>{{percent (index .Conversion 0)}}</b></td><td align="right">{{percent (index .Conversion 1)}}</td><td></td></tr>
</table>
{{if .Top}}<h2 style="font-size: 1.1em;">Top products</h2><ul>{{range .Top}}<li>{{.Title}}: purchases {{int .Last.Purchases}}, views {{int .Last.Views}}</li>{{end}}</ul>{{end}}
{{if .Rising}}<h2 style="font-size: 1.1em;">Rising</h2><ul>{{range .Rising}}<li>{{.Title}}: views {{int .Last.Views}} ({{change .Last.Views .Before.Views}}; the week before: {{int .Before.Views}})</li>{{end}}</ul>{{end}}
{{with .Experiment}}{{if .Holdout}}<p>The widget's effect: {{percent .Arms.Shown.Conversion}} of sessions shown it bought, {{percent .Arms.HeldOut.Conversion}} of those held out{{if .Difference.Significant}} (significant){{else}} (not yet significant){{end}}.</p>{{end}}{{end}}
{{if .Attention}}<h2 style="font-size: 1.1em;">Needs attention</h2><p style="color: #555;">Seen by the server that sent this, since it started.</p><ul>{{range .Attention}}<li>{{.}}</li>{{end}}</ul>{{end}}
<p><a href="{{.Dashboard}}">Open the dashboard</a></p>
<p style="color: #555; font-size: .9em;">You get this because you asked for it. <a href="{{.Unsubscribe}}">Unsubscribe</a> or change it on <a href="{{.AccountSetting}}">your account page</a>.</p>
</body></html>
`))

// unsubscribePage asks before unsubscribing: a mail scanner that opens the
// link must not unsubscribe anyone.
func (h *Handler) unsubscribePage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "unsubscribe", page{Title: "Unsubscribe", Data: map[string]any{"Token": r.URL.Query().Get("token")}})
}

// unsubscribe is the one-click unsubscribe (RFC 8058): a mail client POSTs
// List-Unsubscribe=One-Click to the link, without cookies; the form of
// unsubscribePage posts the token. Either way the token is the proof.
func (h *Handler) unsubscribe(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if token == "" {
		token = r.PostFormValue("token")
	}
	m, err := h.cfg.Store.UnsubscribeDigest(r.Context(), svc.HashSecret(token))
	if svc.ErrorCode(err) == svc.ENOTFOUND || token == "" {
		h.message(w, r, http.StatusNotFound, "This link does not work", "It belongs to no digest that was sent. Change the digest on your account page.")
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	name := m.BrandID
	if b, err := h.cfg.Store.Brand(r.Context(), m.BrandID); err == nil {
		name = b.Name
	}
	h.render(w, r, http.StatusOK, "unsubscribe", page{Title: "Unsubscribed", Data: map[string]any{"Done": true, "Email": m.Email, "Brand": name}})
}
