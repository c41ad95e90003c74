package dashboard

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/metrics"
)

// brandHealth is one brand in the operator's view.
type brandHealth struct {
	Brand *svc.Brand
	Day   int64 // events (views and orders) in the last 24 hours
	Week  int64 // in the last 7 days
	// PerDay is their mean a day over the days of those 7 the brand
	// existed (Days): a brand made yesterday with 4 events has 4 a day,
	// not 0.6, and 4 in a week are 0.6, not 0.
	PerDay    float64
	Days      int
	LastEvent time.Time
	// Refused are the brand's refused events by kind and reason, counted by
	// this server since it started (metrics.BrandRefusals).
	Refused []metrics.BrandRefusal
}

// refusal is a count of refused events, by kind and reason.
type refusal struct {
	Kind, Reason string
	Count        int64
}

type operatorData struct {
	Brands   []brandHealth
	Refused  []refusal
	StoreOK  bool
	StoreErr string
	Ready    bool
	ReadyErr string
}

func (h *Handler) operator(w http.ResponseWriter, r *http.Request, u *user) error {
	if !u.sess.Operator() {
		return svc.Errorf(svc.ENOTFOUND, "not the operator")
	}
	ctx := r.Context()
	brands, err := h.cfg.Store.Brands(ctx)
	if err != nil {
		return err
	}
	var data operatorData
	for _, b := range brands {
		d, err := h.cfg.Insights.Brand(ctx, b.ID)
		if err != nil {
			return err
		}
		// Counts alone: the viewers' sketches are the costly part of a
		// reading, and this page shows none.
		end := insights.End(d.At)
		day := d.Counts(insights.Window{From: end.Add(-24 * time.Hour), To: end})
		week := d.Counts(insights.Window{From: end.Add(-7 * 24 * time.Hour), To: end})
		days := daysOf(b, end)
		n := week.Views + week.Purchases
		data.Brands = append(data.Brands, brandHealth{Brand: b, Day: day.Views + day.Purchases, Week: n,
			PerDay: float64(n) / float64(days), Days: days, LastEvent: d.LastEvent(), Refused: h.cfg.Metrics.BrandRefusals(b.ID)})
		d.Release()
	}
	data.Refused = h.refused()
	pingCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := h.cfg.Store.Ping(pingCtx); err != nil {
		data.StoreErr = err.Error()
	} else {
		data.StoreOK = true
	}
	if err := h.cfg.Tracker.Ready(pingCtx); err != nil {
		data.ReadyErr = err.Error()
	} else {
		data.Ready = true
	}
	h.render(w, r, http.StatusOK, "operator", page{Title: "Operator", User: u.sess, Nav: "operator", Data: data})
	return nil
}

// daysOf is how many of the 7 days before end the brand existed, in
// whole days begun, at least 1: the divisor of its mean a day.
func daysOf(b *svc.Brand, end time.Time) int {
	if b.CreatedAt.IsZero() {
		return 7
	}
	age := end.Sub(b.CreatedAt)
	days := int((age + 24*time.Hour - 1) / (24 * time.Hour))
	return max(1, min(7, days))
}

// refused reads the svc_events_total counters of refused events
// (outcome rejected_<code>) since this server started.
func (h *Handler) refused() []refusal {
	if h.cfg.Metrics == nil {
		return nil
	}
	families, err := h.cfg.Metrics.Registry.Gather()
	if err != nil {
		return nil
	}
	var out []refusal
	for _, f := range families {
		if f.GetName() != "svc_events_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			var kind, outcome string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "kind":
					kind = l.GetValue()
				case "outcome":
					outcome = l.GetValue()
				}
			}
			if reason, ok := strings.CutPrefix(outcome, "rejected_"); ok {
				out = append(out, refusal{Kind: kind, Reason: reason, Count: int64(m.GetCounter().GetValue())})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out
}
