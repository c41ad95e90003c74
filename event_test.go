package svc_test

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
)

func TestStamp(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	ts := func(d time.Duration) *string { s := now.Add(d).Format(time.RFC3339Nano); return &s }
	tests := []struct {
		name      string
		given     *string
		keyed     bool
		wantTime  time.Time
		wantGiven bool // the given time is kept beside the receive time
		wantErr   bool
	}{
		{"no timestamp", nil, false, now, false, false},
		// An anonymous event counts when it came (docs/security.md, Provenance).
		{"anonymous, 4 min ago", ts(-4 * time.Minute), false, now, true, false},
		{"anonymous, now", ts(0), false, now, false, false},
		{"anonymous, 6 min ago", ts(-6 * time.Minute), false, now, true, false},
		{"anonymous, 6 min ahead", ts(6 * time.Minute), false, now, true, false},
		{"keyed, 2 days ago", ts(-48 * time.Hour), true, now.Add(-48 * time.Hour), false, false},
		{"keyed, 5 min ahead", ts(5 * time.Minute), true, now.Add(5 * time.Minute), false, false},
		{"keyed, 5 min 1 s ahead", ts(5*time.Minute + time.Second), true, time.Time{}, false, true},
		{"keyed, older than retention", ts(-36 * 24 * time.Hour), true, time.Time{}, false, true},
		{"offset converted to UTC", func() *string { s := "2026-11-21T10:59:00+01:00"; return &s }(), true, now.Add(-time.Minute), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m svc.EventMeta
			errs := svc.Stamp(&m, tt.given, tt.keyed, now, svc.DefaultRetention)
			if (len(errs) > 0) != tt.wantErr {
				t.Fatalf("errors %v", errs)
			}
			if tt.wantErr {
				if errs[0].Field != "Context.Timestamp" {
					t.Fatalf("field %q", errs[0].Field)
				}
				return
			}
			if !m.Time.Equal(tt.wantTime) || m.Time.Location() != time.UTC || (m.GivenTime != nil) != tt.wantGiven || !m.ReceivedAt.Equal(now) || m.Keyed != tt.keyed {
				t.Fatalf("meta %+v", m)
			}
		})
	}
}

func TestMergeFieldErrors(t *testing.T) {
	typeErrs := []svc.FieldError{{Field: "order.items", Message: "must be an array"}, {Field: "brand_id", Message: "must be a string"}}
	valueErrs := []svc.FieldError{{Field: "brand_id", Message: "is required"}, {Field: "order.items", Message: "is required"},
		{Field: "order.items[0].quantity", Message: "is required"}, {Field: "order.order_id", Message: "is required"}, {Field: "brand_idx", Message: "x"}}
	got := svc.MergeFieldErrors(typeErrs, valueErrs)
	want := []string{"order.items", "brand_id", "order.order_id", "brand_idx"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].Field != want[i] {
			t.Fatalf("got %v, want fields %v", got, want)
		}
	}
}

// Every text field refuses C0 and C1 control characters, naming the field
// (docs/security.md, What we tested and how: a title with NUL and ESC was stored and exported).
func TestTextFieldsRefuseControlCharacters(t *testing.T) {
	bad := []string{"a\x00", "a\x1b[31m", "a\tb", "a\nb", "a\x7f", "a\u0085", "a\u009b31m"}
	for _, s := range bad {
		p := &s
		view := svc.ViewEvent{BrandID: s, Product: svc.ViewProduct{ProductID: s, SKU: p, Title: p, URL: p}, Context: svc.ViewContext{SessionID: p}}
		q := int64(1)
		buy := svc.PurchaseEvent{BrandID: "b", Order: svc.Order{OrderID: s, Items: []svc.PurchaseItem{{ProductID: s, SKU: p, Title: p, Quantity: &q}}}, Context: svc.PurchaseContext{SessionID: p}}
		u := "https://shop.example/" + s
		search := svc.SearchEnrichRequest{Query: p, Results: []svc.SearchResult{{Title: p, URL: &u}}}
		product := svc.ProductEnrichRequest{Context: svc.PageContext{URL: &u}, Product: svc.PageProduct{Title: p, Brand: p, SKU: p}}
		for _, c := range []struct {
			errs []svc.FieldError
			want []string
		}{
			{view.Validate(), []string{"BrandID", "Product.ProductID", "Product.SKU", "Product.Title", "Product.URL", "Context.SessionID"}},
			{buy.Validate(), []string{"Order.OrderID", "Order.Items[0].ProductID", "Order.Items[0].SKU", "Order.Items[0].Title", "Context.SessionID"}},
			{search.Validate(), []string{"Query", "Results[0].URL", "Results[0].Title"}},
			{product.Validate(), []string{"Context.URL", "Product.Title", "Product.Brand", "Product.SKU"}},
		} {
			got := map[string]string{}
			for _, e := range c.errs {
				got[e.Field] = e.Message
			}
			for _, f := range c.want {
				if got[f] == "" {
					t.Errorf("%q: %s not refused; errors %v", s, f, c.errs)
				}
			}
		}
	}
	title, id := "Trail Runner 2 – ½ price ✓", "sku-42"
	ok := svc.ViewEvent{BrandID: "b", Product: svc.ViewProduct{ProductID: id, Title: &title}}
	if errs := ok.Validate(); errs != nil {
		t.Errorf("printable text refused: %v", errs)
	}
}

func TestGTIN14(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"96385074", "00000096385074"},       // GTIN-8
		{"036000291452", "00036000291452"},   // UPC-A
		{"4006381333931", "04006381333931"},  // EAN-13
		{"10614141000415", "10614141000415"}, // GTIN-14
		{"96385075", ""},                     // wrong check digit
		{"4006381333932", ""},
		{"03600029145", ""}, // 11 digits
		{"", ""},
		{"40063813339ab", ""},
		{"٤٠٠٦٣٨١٣٣٣٩٣١", ""}, // other digits than ASCII
	} {
		got, ok := svc.GTIN14(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("GTIN14(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}
