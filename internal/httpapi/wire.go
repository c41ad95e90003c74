package httpapi

import (
	"strconv"
	"time"

	"github.com/svc-project/svc"
)

// The wire format of the reads: their query parameters and the proof's
// field names that carry its windows (docs/decisions.md, Product proof).

// ParseProofQuery reads the query parameters of the proof endpoint and
// returns every bad one.
func ParseProofQuery(get func(string) string) (svc.ProofQuery, []svc.FieldError) {
	q := svc.ProofQuery{BrandID: get("brand_id"), ProductID: get("product_id")}
	fe := append(svc.CheckID("brand_id", q.BrandID, true), svc.CheckID("product_id", q.ProductID, true)...)
	q.ViewWindow = time.Duration(windowParam(&fe, get, "window_views", 60, int(svc.MaxViewWindow/time.Minute), "minutes")) * time.Minute
	q.PurchaseWindow = time.Duration(windowParam(&fe, get, "window_purchases", 24, int(svc.MaxPurchaseWindow/time.Hour), "hours")) * time.Hour
	q.CartWindow = time.Duration(windowParam(&fe, get, "window_carts", int(svc.DefaultCartWindow/time.Minute), int(svc.MaxCartWindow/time.Minute), "minutes")) * time.Minute
	return q, fe
}

func windowParam(fe *[]svc.FieldError, get func(string) string, name string, def, max int, unit string) int {
	s := get(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > max {
		*fe = append(*fe, svc.FieldError{Field: name, Message: "must be a whole number of " + unit + " from 1 to " + strconv.Itoa(max)})
		return def
	}
	return n
}

// parseRecentQuery reads the query parameters of the recent activity
// endpoint and returns every bad one.
func parseRecentQuery(get func(string) string) (svc.RecentQuery, []svc.FieldError) {
	q := svc.RecentQuery{BrandID: get("brand_id"), ProductID: get("product_id")}
	fe := svc.CheckID("brand_id", q.BrandID, true)
	if q.ProductID != "" {
		fe = append(fe, svc.CheckID("product_id", q.ProductID, false)...)
	}
	return q, fe
}

// appendViewsField appends the name of the proof's view count: the window
// is part of it, "views_last_60_min" by default.
func appendViewsField(b []byte, p *svc.Proof) []byte {
	b = append(b, "views_last_"...)
	b = strconv.AppendInt(b, int64(p.ViewWindow/time.Minute), 10)
	return append(b, "_min"...)
}

// appendPurchasesField appends the name of the purchase count:
// "purchases_last_24h" by default.
func appendPurchasesField(b []byte, p *svc.Proof) []byte {
	b = append(b, "purchases_last_"...)
	b = strconv.AppendInt(b, int64(p.PurchaseWindow/time.Hour), 10)
	return append(b, 'h')
}

// appendCartsField appends the name of the cart count: "carts_last_60_min"
// by default.
func appendCartsField(b []byte, p *svc.Proof) []byte {
	b = append(b, "carts_last_"...)
	b = strconv.AppendInt(b, int64(p.CartWindow/time.Minute), 10)
	return append(b, "_min"...)
}
