package dashboard

import (
	"net/http"
	"strconv"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/rollup"
)

// overviewData is the overview page.
type overviewData struct {
	Report     reportData // the range's figures (reports.go)
	Realtime   realtimeData
	Currency   string
	Top        []insights.ProductRow
	Trending   []insights.ProductRow
	Withheld   []insights.ProductRow
	Experiment holdout.Experiment
	// ViewersError is the viewers' sketch's standard error, as the page
	// states it.
	ViewersError string
}

var viewersError = strconv.FormatFloat(100*rollup.SketchError, 'f', 1, 64) + "%"

const listLen = 10

func (h *Handler) overview(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	rg, problems := parseRange(r.URL.Query(), h.cfg.Now(), h.cfg.Tracker.Retention())
	d, err := h.cfg.Insights.Brand(r.Context(), b.ID)
	if err != nil {
		return err
	}
	defer d.Release()
	top, trending, err := d.Ranking(r.Context(), h.cfg.Tracker, listLen)
	if err != nil {
		return err
	}
	var withheld []insights.ProductRow
	err = d.EachProduct(r.Context(), h.cfg.Tracker, func(p insights.ProductRow) bool {
		if p.Withheld(b) {
			withheld = append(withheld, p)
		}
		return len(withheld) < listLen
	})
	if err != nil {
		return err
	}
	for _, l := range [][]insights.ProductRow{top, trending, withheld} {
		if err := d.Titled(r.Context(), l); err != nil {
			return err
		}
	}
	experiment, err := d.Experiment(r.Context(), b.Holdout)
	if err != nil {
		return err
	}
	report, err := h.reports(r.Context(), d, b, rg, true)
	if err != nil {
		return err
	}
	report.Problems = problems
	// The panel as of the figures: counted in the products' pass; the
	// page's script refreshes it from now on (realtime).
	rt, err := h.realtimeOf(r.Context(), d, b.ID, d.At)
	if err != nil {
		return err
	}
	data := overviewData{
		Report: report, Realtime: rt, Currency: d.Currency,
		Top: top, Trending: trending, Withheld: withheld,
		Experiment: experiment, ViewersError: viewersError,
	}
	status := http.StatusOK
	if problems != nil {
		status = http.StatusBadRequest
	}
	h.render(w, r, status, "overview", page{Title: b.Name, User: u.sess, Brand: b, Nav: "overview", Data: data})
	return nil
}

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
	defer d.Release()
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
