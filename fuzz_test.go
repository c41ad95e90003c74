package svc_test

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// opt turns a fuzzed string into an optional field: "\x00" stands for absent.
func opt(s string) *string {
	if s == "\x00" {
		return nil
	}
	return &s
}

// checkFieldErrors fails unless every error names one of the fields, once,
// with a message.
func checkFieldErrors(t *testing.T, errs []svc.FieldError, fields ...string) {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range errs {
		if !slices.Contains(fields, e.Field) && !itemField(e.Field) {
			t.Fatalf("error about %q, which is not a field: %+v", e.Field, e)
		}
		if e.Message == "" || seen[e.Field] {
			t.Fatalf("empty or repeated error: %+v in %+v", e, errs)
		}
		seen[e.Field] = true
	}
}

// itemField reports whether f is Order.Items[N] or one of its fields.
func itemField(f string) bool {
	rest, ok := strings.CutPrefix(f, "Order.Items[")
	if !ok {
		return false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(rest) || rest[i] != ']' {
		return false
	}
	switch rest[i+1:] {
	case ".ProductID", ".SKU", ".Title", ".Quantity", ".UnitPrice":
		return true
	}
	return false
}

var fuzzNow = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func FuzzViewValidate(f *testing.F) {
	f.Add("br_1", "sku-42", "\x00", "Trail Runner", "https://shop.example/p/1", "2026-11-21T10:00:00Z", "sess-1", "DE", "de-DE", true)
	f.Add("", "", "", "", "shop.example/p", "2026-11-21T10:00:00", "", "de", "de_DE", false)
	f.Add("br\x01", "p\u2028", "\x00", "\x00", "javascript:alert(1)", "2026-11-21T11:00:00+01:00", "\x00", "\x00", "\x00", false)
	f.Add("br_1", "p1", "\x00", "\x00", "http://[::1]:80/x", "2026-11-21T09:54:59.999999999Z", "\x00", "\x00", "\x00", false)
	f.Add("br_1", "p1", "\x00", "\x00", "\x00", "0001-01-01T00:00:00Z", "\x00", "\x00", "\x00", true)
	f.Fuzz(func(t *testing.T, brand, product, sku, title, url, ts, session, country, locale string, keyed bool) {
		ev := &svc.ViewEvent{BrandID: brand,
			Product: svc.ViewProduct{ProductID: product, SKU: opt(sku), Title: opt(title), URL: opt(url)},
			Context: svc.ViewContext{Timestamp: opt(ts), SessionID: opt(session), Country: opt(country), Locale: opt(locale)}}
		errs := ev.Validate()
		checkFieldErrors(t, errs, "BrandID", "Product.ProductID", "Product.SKU", "Product.Title", "Product.URL",
			"Context.Timestamp", "Context.SessionID", "Context.Country", "Context.Locale")
		if !reflect.DeepEqual(errs, ev.Validate()) {
			t.Fatal("Validate is not deterministic")
		}
		if len(errs) > 0 {
			return
		}
		checkStamp(t, &ev.Meta, ev.Context.Timestamp, keyed)
	})
}

// checkStamp checks the time rules of docs/decisions.md, Timestamps, on a valid timestamp.
func checkStamp(t *testing.T, m *svc.EventMeta, ts *string, keyed bool) {
	t.Helper()
	errs := svc.Stamp(m, ts, keyed, fuzzNow, svc.DefaultRetention)
	checkFieldErrors(t, errs, "Context.Timestamp")
	if len(errs) > 0 {
		if !keyed {
			t.Fatalf("an anonymous event's timestamp is never refused: %v", errs)
		}
		return
	}
	if !m.ReceivedAt.Equal(fuzzNow) || m.Keyed != keyed {
		t.Fatalf("meta %+v", m)
	}
	if m.Time.After(fuzzNow.Add(svc.ClockSkew)) || m.Time.Before(fuzzNow.Add(-svc.DefaultRetention)) {
		t.Fatalf("counts at %s, outside [now-retention, now+skew]", m.Time)
	}
	if !keyed && m.Time.Sub(fuzzNow).Abs() > svc.ClockSkew {
		t.Fatalf("an anonymous event counts at %s, more than the skew from now", m.Time)
	}
	if m.GivenTime != nil && (keyed || !m.Time.Equal(fuzzNow)) {
		t.Fatalf("given time %s kept beside %s", m.GivenTime, m.Time)
	}
}

func FuzzPurchaseValidate(f *testing.F) {
	f.Add("br_1", "A-1001", "EUR", 179.8, "sku-42", "\x00", int64(2), 89.9, 2, "2026-11-21T10:00:00Z", "sess-1", true)
	f.Add("", "", "eur", -1.0, "", "", int64(0), -0.5, 0, "yesterday", "", false)
	f.Add("br_1", "o", "\x00", 1e13, "p", "t", int64(1_000_001), 1e12, 501, "\x00", "\x00", false)
	f.Fuzz(func(t *testing.T, brand, order, currency string, total float64, product, title string, qty int64, price float64, lines int, ts, session string, keyed bool) {
		lines = min(max(lines, 0), 502) // around the limit of 500
		ev := &svc.PurchaseEvent{BrandID: brand,
			Order:   svc.Order{OrderID: order, Currency: opt(currency), TotalValue: &total},
			Context: svc.PurchaseContext{Timestamp: opt(ts), SessionID: opt(session)}}
		for i := range lines {
			q, p := qty+int64(i%3), price
			ev.Order.Items = append(ev.Order.Items, svc.PurchaseItem{ProductID: product + strconv.Itoa(i), Title: opt(title), Quantity: &q, UnitPrice: &p})
		}
		errs := ev.Validate()
		checkFieldErrors(t, errs, "BrandID", "Order.OrderID", "Order.Currency", "Order.TotalValue", "Order.Items",
			"Context.Timestamp", "Context.SessionID")
		if len(errs) > 0 {
			return
		}
		if n := len(ev.Order.Items); n < 1 || n > svc.MaxOrderItems {
			t.Fatalf("%d lines accepted", n)
		}
		for _, it := range ev.Order.Items {
			if *it.Quantity < 1 || *it.Quantity > svc.MaxQuantity || *it.UnitPrice < 0 || *it.UnitPrice > svc.MaxAmount {
				t.Fatalf("line accepted: %+v", it)
			}
		}
		checkStamp(t, &ev.Meta, ev.Context.Timestamp, keyed)
	})
}
