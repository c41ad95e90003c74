package dashboard

import (
	"context"
	"encoding/csv"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/insights"
)

// The overview's reports: a date range that every figure of the page
// follows, the real-time panel, countries, the widget's effect, and every
// table as CSV (docs/dashboard.md, The pages).

// routeReports adds the reports' routes.
func (h *Handler) routeReports() {
	h.mux.Handle("GET /dashboard/brands/{brand}/realtime", h.brand(h.realtime))
	h.mux.Handle("GET /dashboard/brands/{brand}/csv/{table}", h.brand(h.exportCSV))
}

// reportRange is the date range the overview follows.
type reportRange struct {
	Key      string // today, 7d, 30d or custom
	Label    string
	Cur      insights.Window
	Prev     insights.Window
	Compared bool   // the period before is all within the retention
	Why      string // why it is not compared
	From, To string // the custom range's days, YYYY-MM-DD
	Min, Max string // the days the retention holds
	Step     time.Duration
	Query    string // the range as a query, for links
}

var rangeChoices = []struct{ Key, Label string }{{"today", "Today"}, {"7d", "Last 7 days"}, {"30d", "Last 30 days"}, {"custom", "Custom"}}

// parseRange reads ?range=today|7d|30d|custom&from=&to= (days, UTC,
// inclusive). A bad value is a problem, and the page shows 7 days.
func parseRange(q url.Values, now time.Time, retention time.Duration) (reportRange, []string) {
	end := insights.End(now)
	day := 24 * time.Hour
	kept := now.Add(-retention)
	r := reportRange{Key: q.Get("range"), Min: kept.UTC().Format(time.DateOnly), Max: now.UTC().Format(time.DateOnly)}
	var problems []string
	switch r.Key {
	case "", "7d":
		r.Key, r.Cur = "7d", insights.Window{From: end.Add(-7 * day), To: end}
	case "today":
		r.Cur = insights.Window{From: end.Add(-time.Nanosecond).Truncate(day), To: end}
	case "30d":
		r.Cur = insights.Window{From: end.Add(-30 * day), To: end}
	case "custom":
		from, err1 := time.Parse(time.DateOnly, q.Get("from"))
		to, err2 := time.Parse(time.DateOnly, q.Get("to"))
		switch {
		case err1 != nil:
			problems = append(problems, "From must be a day written 2006-01-02")
		case err2 != nil:
			problems = append(problems, "To must be a day written 2006-01-02")
		case to.Before(from):
			problems = append(problems, "To must not be before From")
		case from.Before(kept.UTC().Truncate(day)):
			problems = append(problems, "From must be within the retention: "+r.Min+" or later")
		case to.After(now.UTC()):
			problems = append(problems, "To must not be after today, "+r.Max)
		}
		if problems == nil {
			r.From, r.To = from.Format(time.DateOnly), to.Format(time.DateOnly)
			r.Cur = insights.Window{From: from, To: to.Add(day)}
			if r.Cur.To.After(end) {
				r.Cur.To = end
			}
		}
	default:
		problems = append(problems, "Range must be today, 7d, 30d or custom")
	}
	if problems != nil {
		r.Key, r.Cur = "7d", insights.Window{From: end.Add(-7 * day), To: end}
	}
	span := r.Cur.To.Sub(r.Cur.From)
	r.Prev = insights.Window{From: r.Cur.From.Add(-span), To: r.Cur.From}
	if r.Key == "today" { // the same hours of yesterday
		r.Prev = insights.Window{From: r.Cur.From.Add(-day), To: r.Cur.To.Add(-day)}
	}
	r.Compared = !r.Prev.From.Before(kept)
	if !r.Compared {
		r.Why = "No comparison: the period before starts " + r.Prev.From.Format("Jan 2") + ", and the retention (" +
			strconv.Itoa(int(retention/day)) + " days) keeps events from " + kept.UTC().Format("Jan 2") + " only."
	}
	r.Step = day
	if span <= 2*day {
		r.Step = time.Hour
	}
	for _, c := range rangeChoices {
		if c.Key == r.Key {
			r.Label = c.Label
		}
	}
	if r.Key == "custom" {
		r.Label = r.From + " to " + r.To
	} else { // the form starts from the range shown
		r.From, r.To = r.Cur.From.UTC().Format(time.DateOnly), r.Cur.To.Add(-time.Nanosecond).UTC().Format(time.DateOnly)
	}
	v := url.Values{"range": {r.Key}}
	if r.Key == "custom" {
		v.Set("from", r.From)
		v.Set("to", r.To)
	}
	r.Query = v.Encode()
	return r, problems
}

// metricRow is one figure of the totals: the range, the period before and
// the change.
type metricRow struct {
	Name, Cur, Prev, Change string
}

// countryRow is a country's line of the table.
type countryRow struct {
	Name                   string
	Views, Purchases       int64
	ViewShare, BuyingShare float64
}

// cityRow is a city's line of the table.
type cityRow struct {
	Name      string
	Purchases int64
	Share     float64 // of the orders that gave a city
}

// reportData is what the overview's reports show for a range.
type reportData struct {
	Range     reportRange
	Choices   []struct{ Key, Label string }
	Metrics   []metricRow
	Chart     chart
	Funnel    insights.Funnel
	Countries []countryRow
	Cities    []cityRow
	NoCity    int64 // the orders of the countries' days that gave no city
	K         int
	Widget    insights.WidgetEffect
	Problems  []string // of the range asked, which was not shown
}

// reports computes the range's reports; the widget's effect only with
// widget (it reads every session that bought: a CSV of another table
// does without).
func (h *Handler) reports(ctx context.Context, d *insights.Figures, b *svc.Brand, rg reportRange, widget bool) (reportData, error) {
	out := reportData{Range: rg, Choices: rangeChoices, K: b.Recent.Stored().K}
	cur, err := d.Totals(ctx, rg.Cur)
	if err != nil {
		return out, err
	}
	var prev insights.Totals
	if rg.Compared {
		if prev, err = d.Totals(ctx, rg.Prev); err != nil {
			return out, err
		}
	}
	add := func(name string, c, p any, text func(any) string) {
		row := metricRow{Name: name, Cur: text(c), Prev: "–", Change: "–"}
		if rg.Compared {
			row.Prev, row.Change = text(p), change(c, p)
		}
		out.Metrics = append(out.Metrics, row)
	}
	num := func(v any) string { return formatInt(v.(int64)) }
	add("Views", cur.Views, prev.Views, num)
	add("Viewers", cur.Viewers, prev.Viewers, num)
	add("Carts", cur.Carts, prev.Carts, num)
	add("Purchases", cur.Purchases, prev.Purchases, num)
	add("Units", cur.Units, prev.Units, num)
	add("Revenue", cur.Revenue, prev.Revenue, func(v any) string { return money(v, d.Currency) })
	points, err := d.SeriesIn(ctx, rg.Cur, rg.Step)
	if err != nil {
		return out, err
	}
	layout, step := "Jan 2", "daily"
	if rg.Step == time.Hour {
		layout, step = "Mon 15:04", "hourly"
	}
	out.Chart = seriesChart("Views and purchases, "+step+", "+strings.ToLower(rg.Label[:1])+rg.Label[1:], points, layout)
	countries, err := d.Countries(ctx, rg.Cur, int64(out.K))
	if err != nil {
		return out, err
	}
	var views, buys int64
	for _, c := range countries {
		views += c.Views
		buys += c.Purchases
	}
	for _, c := range countries {
		row := countryRow{Name: countryName(c.Country, out.K), Views: c.Views, Purchases: c.Purchases}
		if views > 0 {
			row.ViewShare = float64(c.Views) / float64(views)
		}
		if buys > 0 {
			row.BuyingShare = float64(c.Purchases) / float64(buys)
		}
		out.Countries = append(out.Countries, row)
	}
	cities, err := d.Cities(ctx, rg.Cur, int64(out.K))
	if err != nil {
		return out, err
	}
	var withCity int64
	for _, c := range cities {
		withCity += c.Purchases
	}
	for _, c := range cities {
		out.Cities = append(out.Cities, cityRow{Name: cityName(c, out.K), Purchases: c.Purchases, Share: float64(c.Purchases) / float64(withCity)})
	}
	out.NoCity = max(buys-withCity, 0) // both are of the range's UTC days
	if out.Funnel, err = d.Funnel(ctx, rg.Cur); err != nil {
		return out, err
	}
	if widget {
		out.Widget, err = d.Widget(ctx, rg.Cur, b.Holdout)
	}
	return out, err
}

func cityName(c insights.City, k int) string {
	switch {
	case c.City == "*":
		return "Others (each fewer than " + strconv.Itoa(k) + " orders)"
	case c.Country == "":
		return c.City
	}
	return c.City + ", " + c.Country
}

// rateText is a conversion as the funnel shows it: "–" when the step it
// is of has no session.
func rateText(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return share(v)
}

func countryName(c string, k int) string {
	switch c {
	case "":
		return "Not given"
	case "*":
		return "Others (each fewer than " + strconv.Itoa(k) + " views and orders)"
	}
	return c
}

// realtimeData is the real-time panel: the live counts of this node's
// window engine, as the widget reads them.
type realtimeData struct {
	BrandID        string
	At             time.Time
	ViewersNow     int64 // viewers of the last 5 minutes, per product, added up
	Views30        int64
	Purchases30    int64
	Top            []realtimeProduct
	RefreshSeconds int
}

type realtimeProduct struct {
	ProductID, Title string
	Viewers, Views   int64
}

func (h *Handler) realtimeOf(ctx context.Context, d *insights.Figures, brandID string, now time.Time) (realtimeData, error) {
	rt := realtimeData{BrandID: brandID, At: now, RefreshSeconds: int(h.cfg.RealtimeRefresh / time.Second)}
	err := d.EachLive(ctx, h.cfg.Tracker, now, func(id string, c insights.LiveCounts) {
		rt.ViewersNow += c.Viewers5
		rt.Views30 += c.Views30
		rt.Purchases30 += c.Purchases30
		if c.Views30 > 0 {
			rt.Top = topRealtime(rt.Top, realtimeProduct{id, "", c.Viewers5, c.Views30}, realtimeTop)
		}
	})
	if err != nil {
		return rt, err
	}
	for i := range rt.Top {
		if rt.Top[i].Title, err = d.ProductTitle(ctx, rt.Top[i].ProductID); err != nil {
			return rt, err
		}
	}
	return rt, nil
}

// realtimeTop is how many products the panel lists.
const realtimeTop = 5

// topRealtime puts p among the first n of top, by views then product id:
// a brand may have views on thousands of products in 30 minutes.
func topRealtime(top []realtimeProduct, p realtimeProduct, n int) []realtimeProduct {
	before := func(x, y realtimeProduct) bool {
		return x.Views > y.Views || x.Views == y.Views && x.ProductID < y.ProductID
	}
	if len(top) == n && !before(p, top[n-1]) {
		return top
	}
	i := sort.Search(len(top), func(i int) bool { return before(p, top[i]) })
	top = slices.Insert(top, i, p)
	return top[:min(len(top), n)]
}

// realtime answers the real-time panel alone, which the page's script
// fetches to refresh it in place.
func (h *Handler) realtime(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	d, err := h.cfg.Insights.Brand(r.Context(), b.ID)
	if err != nil {
		return err
	}
	defer d.Release()
	rt, err := h.realtimeOf(r.Context(), d, b.ID, h.cfg.Now())
	if err != nil {
		return err
	}
	var buf strings.Builder
	if err := h.pages["overview"].ExecuteTemplate(&buf, "realtime", rt); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, buf.String())
	return nil
}

// exportCSV answers one of the overview's tables, for the range asked,
// as CSV.
func (h *Handler) exportCSV(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	table := r.PathValue("table")
	rg, problems := parseRange(r.URL.Query(), h.cfg.Now(), h.cfg.Tracker.Retention())
	if problems != nil {
		return svc.Errorf(svc.EINVALID, "%s", strings.Join(problems, "; "))
	}
	d, err := h.cfg.Insights.Brand(r.Context(), b.ID)
	if err != nil {
		return err
	}
	defer d.Release()
	var rows [][]string
	// The rows after rows, handed to emit one at a time until it returns
	// false (the client went away).
	var each func(emit func(row []string) bool) error
	switch table {
	case "totals", "chart", "funnel", "countries", "cities", "widget":
		rep, err := h.reports(r.Context(), d, b, rg, table == "widget")
		if err != nil {
			return err
		}
		switch table {
		case "totals":
			rows = append(rows, []string{"figure", "range", "period before", "change"})
			for _, m := range rep.Metrics {
				rows = append(rows, []string{m.Name, m.Cur, m.Prev, m.Change})
			}
		case "chart":
			rows = append(rows, []string{"step start (UTC)", "views", "purchases"})
			for i := range rep.Chart.Labels {
				rows = append(rows, []string{rep.Chart.Starts[i].Format(time.RFC3339), count(rep.Chart.Series[0].Values[i]), count(rep.Chart.Series[1].Values[i])})
			}
		case "countries":
			rows = append(rows, []string{"country", "views", "share of views", "orders", "share of orders"})
			for _, c := range rep.Countries {
				rows = append(rows, []string{c.Name, strconv.FormatInt(c.Views, 10), share(c.ViewShare), strconv.FormatInt(c.Purchases, 10), share(c.BuyingShare)})
			}
		case "funnel":
			rows = append(rows, []string{"step", "sessions", "of the step before", "of the sessions that viewed"})
			for _, st := range rep.Funnel.Steps {
				rows = append(rows, []string{st.Name, strconv.FormatInt(st.Sessions, 10), rateText(st.FromPrevious), rateText(st.FromFirst)})
			}
		case "cities":
			rows = append(rows, []string{"city", "orders", "share of orders with a city"})
			for _, c := range rep.Cities {
				rows = append(rows, []string{c.Name, strconv.FormatInt(c.Purchases, 10), share(c.Share)})
			}
		case "widget":
			e := rep.Widget
			rows = append(rows, []string{"figure", "value"},
				[]string{"impressions", strconv.FormatInt(e.Impressions, 10)},
				[]string{"clicks on the widget", strconv.FormatInt(e.WidgetClicks, 10)},
				[]string{"toasts shown", strconv.FormatInt(e.ToastImpressions, 10)},
				[]string{"clicks on the toasts", strconv.FormatInt(e.ToastClicks, 10)},
				[]string{"sessions that saw it", strconv.FormatInt(e.Saw.Sessions, 10)},
				[]string{"their conversion", share(e.Saw.Conversion)},
				[]string{"their revenue per session", strconv.FormatFloat(e.Saw.RevenuePerSession, 'f', 2, 64)},
				[]string{"sessions that did not", strconv.FormatInt(e.Unseen.Sessions, 10)},
				[]string{"their conversion", share(e.Unseen.Conversion)},
				[]string{"their revenue per session", strconv.FormatFloat(e.Unseen.RevenuePerSession, 'f', 2, 64)})
		}
	case "products":
		rows = append(rows, []string{"product_id", "title", "views 24 h", "viewers now", "purchases 24 h", "purchases 7 d"})
		// A row at a time, into one slice: a brand may have 100,000.
		each = func(emit func([]string) bool) error {
			var row []string
			return d.EachTop(r.Context(), h.cfg.Tracker, func(p *insights.ProductRow) bool {
				row = append(row[:0], p.ProductID, p.Title, strconv.FormatInt(p.Day.Views, 10), strconv.FormatInt(p.LiveViewers, 10),
					strconv.FormatInt(p.Day.Purchases, 10), strconv.FormatInt(p.Week.Purchases, 10))
				return emit(row)
			})
		}
	default:
		return svc.Errorf(svc.ENOTFOUND, "no table %q", table)
	}
	name := b.ID + "-" + table + "-" + rg.Cur.From.Format("20060102") + "-" + rg.Cur.To.Add(-time.Nanosecond).Format("20060102") + ".csv"
	cw := csv.NewWriter(w)
	put := func(row []string) bool {
		for i, v := range row {
			row[i] = defuse(v)
		}
		return cw.Write(row) == nil // else the client went away
	}
	// The answer starts with the first row each gives, so that an error
	// before it is a problem, not a cut file.
	started := false
	start := func() bool {
		started = true
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="`+strings.Map(safeFileRune, name)+`"`)
		for _, row := range rows {
			if !put(row) {
				return false
			}
		}
		return true
	}
	if each != nil {
		if err := each(func(row []string) bool { return (started || start()) && put(row) }); err != nil {
			if !started {
				return err
			}
			// After the first row, an error can only cut the file.
			h.cfg.Log.Warn("dashboard: csv cut", "brand", b.ID, "table", table, "err", err)
			return nil
		}
	}
	if !started && !start() {
		return nil
	}
	cw.Flush()
	return nil
}

func share(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

// defuse keeps a spreadsheet from reading a cell as a formula: product
// titles come from shoppers' browsers (OWASP, CSV injection).
func defuse(v string) string {
	if v == "" {
		return v
	}
	// A switch, not strings.ContainsRune: 600,000 cells of the products'
	// CSV spent 17 ms in it.
	switch v[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if _, err := strconv.ParseFloat(strings.TrimSuffix(strings.ReplaceAll(v, ",", ""), "%"), 64); err != nil {
			return "'" + v
		}
	}
	return v
}

func safeFileRune(r rune) rune {
	if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
		return r
	}
	return '_'
}
