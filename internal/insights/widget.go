package insights

import (
	"context"

	"github.com/svc-project/svc/internal/holdout"
)

// WidgetEffect is what the widget did over a window: what svc.js
// reported of it, and how the sessions that saw it bought against the
// others (over the retention, as the experiment).
type WidgetEffect struct {
	Impressions, WidgetClicks, ToastClicks int64
	ToastImpressions                       int64 // toasts shown
	// Saw and Unseen are the sessions that saw the widget and the others:
	// an observation, not an experiment (shoppers who look longer see it
	// more); the holdout's arms (Experiment) are the causal comparison.
	Saw, Unseen holdout.ArmFigures
}

// ClickRate is the clicks on the widget per impression, 0 without
// impressions.
func (e WidgetEffect) ClickRate() float64 { return rate(e.WidgetClicks, e.Impressions) }

// ToastClickRate is the clicks on the toasts per toast shown, 0 without
// one.
func (e WidgetEffect) ToastClickRate() float64 { return rate(e.ToastClicks, e.ToastImpressions) }

func rate(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// Widget returns the widget's reports over the window and the sessions
// that saw it against the others.
func (f *Figures) Widget(ctx context.Context, w Window, percent int) (WidgetEffect, error) {
	var e WidgetEffect
	hours, err := f.src.WidgetHours(ctx, f.BrandID, w.From, w.To)
	if err != nil {
		return e, err
	}
	for _, h := range hours {
		e.Impressions += h.Impressions
		e.WidgetClicks += h.WidgetClicks
		e.ToastClicks += h.ToastClicks
		e.ToastImpressions += h.ToastImpressions
	}
	if _, err := f.Experiment(ctx, percent); err != nil { // reads the sessions once
		return e, err
	}
	f.arms.Lock()
	saw, unseen := f.arms.saw, f.arms.unseen
	f.arms.Unlock()
	e.Saw, e.Unseen = holdout.FiguresOf(saw), holdout.FiguresOf(unseen)
	return e, nil
}
