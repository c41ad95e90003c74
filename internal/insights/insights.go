// Package insights turns a brand's rollups into what its dashboard and
// the experiment endpoint show: totals over periods, series, product
// rankings, and the arms of the holdout experiment (figures.go).
package insights

import (
	"time"

	"github.com/svc-project/svc"
)

// Totals are a brand's or a product's figures over one period.
type Totals struct {
	Views     int64
	Viewers   int64 // distinct sessions among the views
	Carts     int64 // add-to-cart events
	Purchases int64 // orders
	Units     int64
	Revenue   Money
}

// Period is a named span with the one before it, for the change.
type Period struct {
	Name             string
	From, To         time.Time
	Current, Earlier Totals
}

// Point is one step of a series.
type Point struct {
	At        time.Time // the start of the step
	Views     int64
	Purchases int64
	Units     int64
	// Price is the mean unit price paid in the step, weighted by units;
	// HasPrice is false when no line of the step gave one.
	Price    float64
	HasPrice bool
}

// ProductRow is one product's recent figures.
type ProductRow struct {
	Ref       int64 // the product's key in the store and the window engine
	ProductID string
	Title     string
	Day, Week Totals // the last 24 hours and the last 7 days
	// Trend is the last 24 hours' views over the daily mean of the six
	// days before (views+1 over mean+1, so a new product does not divide
	// by zero).
	Trend float64
	// LiveViewers and LivePurchases are the counts a widget shows now: the
	// viewers of the last hour and the orders of the last 24 hours.
	LiveViewers, LivePurchases int64
}

// Withheld reports whether a widget shows nothing for the product now:
// both live counts are below the brand's thresholds.
func (r ProductRow) Withheld(b *svc.Brand) bool {
	return r.LiveViewers < int64(b.MinViewers) && r.LivePurchases < int64(b.MinPurchases)
}
