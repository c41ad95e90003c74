package svc

import (
	"strconv"
	"time"
)

// ProofQuery asks for the counts of one product (docs/spec.md, Product proof).
type ProofQuery struct {
	BrandID        string
	ProductID      string
	ViewWindow     time.Duration // whole minutes, 1 to 10080
	PurchaseWindow time.Duration // whole hours, 1 to 720
	CartWindow     time.Duration // whole minutes, 1 to 10080
}

// ParseProofQuery reads the query parameters of the proof endpoint and
// returns every bad one.
func ParseProofQuery(get func(string) string) (ProofQuery, []FieldError) {
	var fe fieldErrors
	q := ProofQuery{BrandID: get("brand_id"), ProductID: get("product_id")}
	fe.id("brand_id", q.BrandID, true)
	fe.id("product_id", q.ProductID, true)
	q.ViewWindow = time.Duration(windowParam(&fe, get, "window_views", 60, int(MaxViewWindow/time.Minute), "minutes")) * time.Minute
	q.PurchaseWindow = time.Duration(windowParam(&fe, get, "window_purchases", 24, int(MaxPurchaseWindow/time.Hour), "hours")) * time.Hour
	q.CartWindow = time.Duration(windowParam(&fe, get, "window_carts", int(DefaultCartWindow/time.Minute), int(MaxCartWindow/time.Minute), "minutes")) * time.Minute
	return q, fe
}

func windowParam(fe *fieldErrors, get func(string) string, name string, def, max int, unit string) int {
	s := get(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > max {
		fe.add(name, "must be a whole number of %s from 1 to %d", unit, max)
		return def
	}
	return n
}

// Proof is the social proof of one product in its windows.
type Proof struct {
	BrandID        string
	ProductID      string
	ViewWindow     time.Duration
	PurchaseWindow time.Duration
	Views          int64 // view events in the view window
	Viewers        int64 // distinct session ids among those views
	Purchases      int64 // orders in the purchase window that contain the product
	Units          int64 // units of the product in those orders
	CartWindow     time.Duration
	Carts          int64 // distinct sessions that added the product to a cart in the cart window
	NowWindow      time.Duration
	ViewersNow     int64 // distinct sessions that viewed the product in the now window
	// The brand's honesty thresholds, so that a widget shows nothing below them.
	MinViewers   int
	MinPurchases int
	MinCarts     int
	// Holdout is the brand's percent of sessions that never see the widget
	// (Brand.Holdout); the widget computes its own session's arm.
	Holdout       int
	WidgetVariant string // the brand's choice, "" for the script's default
	// The brand's corner and languages, as Brand.WidgetPosition and
	// Brand.Languages ("" for the defaults).
	WidgetPosition string
	Languages      string
	WidgetFont     string // Brand.Widget.Font: "" or "inherit"
	GeneratedAt    time.Time
}

// ViewsField is the name of the view count in the response: the window is
// part of it, "views_last_60_min" by default (docs/decisions.md, Product proof).
func (p *Proof) ViewsField() string { return string(p.AppendViewsField(nil)) }

// AppendViewsField appends ViewsField to b, for the hottest answer.
func (p *Proof) AppendViewsField(b []byte) []byte {
	b = append(b, "views_last_"...)
	b = strconv.AppendInt(b, int64(p.ViewWindow/time.Minute), 10)
	return append(b, "_min"...)
}

// PurchasesField is the name of the purchase count: "purchases_last_24h" by default.
func (p *Proof) PurchasesField() string { return string(p.AppendPurchasesField(nil)) }

// AppendPurchasesField appends PurchasesField to b.
func (p *Proof) AppendPurchasesField(b []byte) []byte {
	b = append(b, "purchases_last_"...)
	b = strconv.AppendInt(b, int64(p.PurchaseWindow/time.Hour), 10)
	return append(b, 'h')
}
