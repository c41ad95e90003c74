package httpapi

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// FuzzParseProofQuery: every bad parameter is named once, and a valid
// query reads back the same from its canonical form.
func FuzzParseProofQuery(f *testing.F) {
	f.Add("br_1", "sku-42", "", "")
	f.Add("br_1", "p", "15", "48")
	f.Add("", "", "0", "721")
	f.Add("b", "p", "+60", "024")
	f.Add("b", "p", "10080", "1e2")
	f.Add("b\x7f", "p", "-1", "9223372036854775808")
	f.Fuzz(func(t *testing.T, brand, product, views, purchases string) {
		params := map[string]string{"brand_id": brand, "product_id": product, "window_views": views, "window_purchases": purchases}
		q, errs := ParseProofQuery(func(k string) string { return params[k] })
		seen := map[string]bool{}
		for _, e := range errs {
			if !slices.Contains([]string{"brand_id", "product_id", "window_views", "window_purchases"}, e.Field) || e.Message == "" || seen[e.Field] {
				t.Fatalf("error %+v in %+v", e, errs)
			}
			seen[e.Field] = true
		}
		if q.ViewWindow%time.Minute != 0 || q.ViewWindow < time.Minute || q.ViewWindow > svc.MaxViewWindow ||
			q.PurchaseWindow%time.Hour != 0 || q.PurchaseWindow < time.Hour || q.PurchaseWindow > svc.MaxPurchaseWindow {
			t.Fatalf("windows out of range: %+v", q)
		}
		for _, p := range []struct {
			name, raw string
			got, unit time.Duration
		}{{"window_views", views, q.ViewWindow, time.Minute}, {"window_purchases", purchases, q.PurchaseWindow, time.Hour}} {
			n, err := strconv.Atoi(p.raw)
			bad := slices.ContainsFunc(errs, func(e svc.FieldError) bool { return e.Field == p.name })
			switch {
			case p.raw == "" && bad:
				t.Fatalf("%s is optional", p.name)
			case p.raw != "" && !bad && (err != nil || time.Duration(n)*p.unit != p.got):
				t.Fatalf("%s=%q accepted as %s", p.name, p.raw, p.got)
			}
		}
		if len(errs) > 0 {
			return
		}
		if q.BrandID != brand || q.ProductID != product {
			t.Fatalf("query %+v", q)
		}
		// A valid query read again from its canonical form is the same.
		again := map[string]string{"brand_id": q.BrandID, "product_id": q.ProductID,
			"window_views": strconv.Itoa(int(q.ViewWindow / time.Minute)), "window_purchases": strconv.Itoa(int(q.PurchaseWindow / time.Hour))}
		q2, errs2 := ParseProofQuery(func(k string) string { return again[k] })
		if len(errs2) > 0 || q2 != q {
			t.Fatalf("%+v read back as %+v %v", q, q2, errs2)
		}
	})
}
