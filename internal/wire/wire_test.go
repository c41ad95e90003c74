package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/strictjson"
)

func ptr[T any](v T) *T { return &v }

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"BrandID":                       "brand_id",
		"Order.Items[2].Quantity":       "order.items[2].quantity",
		"Order.Items[0].UnitPrice":      "order.items[0].unit_price",
		"Product.Aliases[3]":            "product.aliases[3]",
		"UserContext.Country":           "user_context.country",
		"Results[49].URL":               "results[49].url",
		"MinConfidence":                 "min_confidence",
		"Idempotency-Key":               "Idempotency-Key", // a header
		"min_viewers":                   "min_viewers",     // a brand setting
		"window_views":                  "window_views",    // a query parameter
		"extra.BrandID":                 "extra.BrandID",   // inside a member no shape has
		"order.items[0].quantity":       "order.items[0].quantity",
		"Context.Timestamp":             "context.timestamp",
		"Context.SessionID":             "context.session_id",
		"Items[1].ProductID":            "items[1].product_id",
		"OrderKey":                      "order_key",
		"Product.GTIN":                  "product.gtin",
		"Order.TotalValue":              "order.total_value",
		"Context.City":                  "context.city",
		"Results[0].Domain":             "results[0].domain",
		"Product.Price":                 "product.price",
		"Order.Items[0].ProductID.Deep": "order.items[0].product_id.Deep",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

// A Go field name with two member names would make Name guess: the table
// refuses it when it is built.
func TestMembersRefuseTwoNamesForOneField(t *testing.T) {
	type a struct {
		Title *string `json:"title"`
	}
	type b struct {
		Title *string `json:"name"`
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a Go field with two member names was accepted")
		}
	}()
	m := map[string]string{}
	addMembers(m, reflect.TypeFor[a]())
	addMembers(m, reflect.TypeFor[b]())
}

// Every field the domain's validation can name is a member of the shape
// it is sent in, once renamed: a field renamed in one and not the other
// fails here.
func TestEveryValidatedFieldIsAMember(t *testing.T) {
	bad, long := "\x00", strings.Repeat("x", 600)
	neg, over := -1.0, 2.0
	zero := int64(0)
	product := svc.ViewProduct{SKU: &bad, Title: &bad, URL: ptr("ftp://x"), GTIN: ptr("12"), MPN: &bad, Brand: &bad, Aliases: []string{bad}}
	viewContext := svc.ViewContext{Timestamp: ptr("yesterday"), SessionID: &bad, Country: ptr("de"), Locale: ptr("german")}
	cases := []struct {
		shape any
		errs  []svc.FieldError
	}{
		{View{}, (&svc.ViewEvent{Product: product, Context: viewContext}).Validate()},
		{Cart{}, (&svc.CartEvent{Product: product, Context: viewContext, Quantity: &zero}).Validate()},
		{Purchase{}, (&svc.PurchaseEvent{
			Order:   svc.Order{Currency: ptr("eur"), TotalValue: &neg, Items: []svc.PurchaseItem{{SKU: &bad, Title: &bad, UnitPrice: &neg, GTIN: ptr("12"), MPN: &bad, Brand: &bad}}},
			Context: svc.PurchaseContext{Timestamp: ptr("yesterday"), SessionID: &bad, Country: ptr("de"), City: &bad}}).Validate()},
		{Purchase{}, (&svc.PurchaseEvent{}).Validate()}, // no lines
		{View{}, svc.Stamp(&svc.EventMeta{}, ptr("2000-01-01T00:00:00Z"), true, time.Now(), svc.DefaultRetention)},
		{Cancel{}, (&svc.CancelEvent{Items: []svc.CancelItem{{}}}).Validate()},
		{Cancel{}, (&svc.CancelEvent{Items: []svc.CancelItem{}}).Validate()},
		{OrderSession{}, (&svc.OrderSessionLink{}).Validate()},
		{SearchEnrich{}, (&svc.SearchEnrichRequest{Query: &long, MinConfidence: &over,
			Results:     []svc.SearchResult{{Title: &bad, Price: &neg, Currency: ptr("eur"), Domain: ptr("-"), GTIN: ptr("12"), MPN: &bad, Brand: &bad}},
			UserContext: svc.UserContext{Country: ptr("de"), Locale: ptr("german")}}).Validate()},
		{SearchEnrich{}, (&svc.SearchEnrichRequest{}).Validate()},
		{ProductEnrich{}, (&svc.ProductEnrichRequest{MinConfidence: &over}).Validate()},
		{ProductEnrich{}, (&svc.ProductEnrichRequest{
			Context: svc.PageContext{Domain: ptr("-"), URL: ptr("ftp://x"), Country: ptr("de"), Locale: ptr("german")},
			Product: svc.PageProduct{Title: &bad, Brand: &bad, SKU: &bad, Price: &neg, Currency: ptr("eur"), GTIN: ptr("12"), MPN: &bad}}).Validate()},
	}
	named := 0
	for _, c := range cases {
		if len(c.errs) == 0 {
			t.Errorf("%T: nothing refused", c.shape)
		}
		for _, e := range c.errs {
			name := Name(e.Field)
			if !isMember(reflect.TypeOf(c.shape), name) {
				t.Errorf("%T: %q (renamed %q) is no member of the shape", c.shape, e.Field, name)
			}
			named++
		}
	}
	if named < 60 {
		t.Errorf("only %d fields named: the cases no longer reach every field", named)
	}
}

// isMember reports whether path, such as order.items[0].quantity, names a
// member inside a value of type t.
func isMember(t reflect.Type, path string) bool {
	for seg := range strings.SplitSeq(path, ".") {
		name, index, indexed := strings.Cut(seg, "[")
		f, ok := fieldNamed(t, name)
		if !ok {
			return false
		}
		t = f.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if indexed {
			if t.Kind() != reflect.Slice || !strings.HasSuffix(index, "]") {
				return false
			}
			t = t.Elem()
		}
	}
	return true
}

func fieldNamed(t reflect.Type, name string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		if f := t.Field(i); strictjson.Name(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// An event a Go client builds, sent as JSON and read back as the API
// reads it, is the same event.
func TestEventsRoundTrip(t *testing.T) {
	view := &svc.ViewEvent{BrandID: "br_1",
		Product: svc.ViewProduct{ProductID: "p1", SKU: ptr("s"), Title: ptr("Trail Runner"), URL: ptr("https://shop.example/p/1"),
			GTIN: ptr("4006381333931"), MPN: ptr("TR-2"), Brand: ptr("Acme"), Aliases: []string{"v1"}},
		Context: svc.ViewContext{Timestamp: ptr("2026-11-21T10:00:00Z"), SessionID: ptr("sess"), Country: ptr("DE"), Locale: ptr("de-DE")}}
	var gotView View
	decode(t, View{BrandID: view.BrandID, Product: ViewProduct(view.Product), Context: ViewContext(view.Context)}, &gotView)
	if e := gotView.Event(); !reflect.DeepEqual(e, view) {
		t.Errorf("view:\n%+v\n%+v", e, view)
	}

	purchase := &svc.PurchaseEvent{BrandID: "br_1",
		Order: svc.Order{OrderID: "o1", Currency: ptr("EUR"), TotalValue: ptr(19.9), Items: []svc.PurchaseItem{
			{ProductID: "p1", SKU: ptr("s"), Title: ptr("t"), Quantity: ptr(int64(2)), UnitPrice: ptr(9.95), GTIN: ptr("4006381333931"), MPN: ptr("m"), Brand: ptr("b")}}},
		Context: svc.PurchaseContext{Timestamp: ptr("2026-11-21T10:00:00Z"), SessionID: ptr("sess"), Country: ptr("DE"), City: ptr("Berlin")}}
	var gotPurchase Purchase
	decode(t, Purchase{BrandID: purchase.BrandID, Order: FromOrder(&purchase.Order), Context: PurchaseContext(purchase.Context)}, &gotPurchase)
	if e := gotPurchase.Event(); !reflect.DeepEqual(e, purchase) {
		t.Errorf("purchase:\n%+v\n%+v", e, purchase)
	}

	// A line's aliases are never read from a body.
	var sneaky Purchase
	if fields, err := strictjson.Unmarshal([]byte(`{"brand_id":"b","order":{"order_id":"o","items":[{"product_id":"p","quantity":1,"Aliases":["other"]}]}}`), &sneaky); err != nil || len(fields) > 0 {
		t.Fatalf("%v %v", fields, err)
	}
	if a := sneaky.Event().Order.Items[0].Aliases; a != nil {
		t.Errorf("aliases read from a body: %q", a)
	}
}

func decode(t *testing.T, v, into any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if fields, err := strictjson.Unmarshal(b, into); err != nil || len(fields) > 0 {
		t.Fatalf("%s: %v %v", b, fields, err)
	}
}
