package httpapi_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A body is read exactly as written (docs/security.md, What we tested and how): invalid
// UTF-8, a name given twice and a name in another case are a 400 naming
// the field, on every route that decodes a body, where they used to be
// rewritten (U+FFFD), last-wins or matched case-insensitively.
func TestBodiesAreReadAsWritten(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name, path, body string
		wantField        string // the one field named; "" for none
		wantMessage      string // part of its message
	}{
		{"invalid UTF-8 in an id", viewPath, "{\"brand_id\":\"br_open\",\"product\":{\"product_id\":\"u\xff\xfeX\"}}", "product.product_id", "UTF-8"},
		{"overlong UTF-8 in an id", viewPath, "{\"brand_id\":\"br_open\",\"product\":{\"product_id\":\"u\xc0\xafX\"}}", "product.product_id", "UTF-8"},
		{"invalid UTF-8 in an order line", purchasePath, "{\"brand_id\":\"br_open\",\"order\":{\"order_id\":\"o\",\"items\":[{\"product_id\":\"p\",\"title\":\"a\xff\",\"quantity\":1}]}}", "order.items[0].title", "UTF-8"},
		{"invalid UTF-8 in an unknown member", viewPath, "{\"brand_id\":\"br_open\",\"product\":{\"product_id\":\"p\"},\"note\":\"\xff\"}", "note", "UTF-8"},
		{"invalid UTF-8 in a search result", searchPath, "{\"results\":[{\"url\":\"https://shop.example/p\",\"title\":\"\xff\"}]}", "results[0].title", "UTF-8"},
		{"invalid UTF-8 in a product page", productPath, "{\"product\":{\"title\":\"\xe2\x82\"}}", "product.title", "UTF-8"},
		{"duplicate brand", viewPath, `{"brand_id":"br_other","brand_id":"br_open","product":{"product_id":"p"}}`, "brand_id", "more than once"},
		{"duplicate quantity", purchasePath, `{"brand_id":"br_open","order":{"order_id":"o","items":[{"product_id":"p","quantity":1,"quantity":7}]}}`, "order.items[0].quantity", "more than once"},
		{"duplicate unknown member", viewPath, `{"brand_id":"br_open","product":{"product_id":"p","color":1,"color":2}}`, "product.color", "more than once"},
		{"duplicate in a search result", searchPath, `{"results":[{"url":"https://a.example/","url":"https://b.example/"}]}`, "results[0].url", "more than once"},
		{"case variant beside the name", purchasePath, `{"brand_id":"br_open","order":{"order_id":"o","items":[{"product_id":"p","quantity":1,"QUANTITY":7}]}}`, "order.items[0].quantity", `"QUANTITY"`},
		{"case variants alone", viewPath, `{"BRAND_ID":"br_open","product":{"product_id":"p"}}`, "brand_id", `"BRAND_ID"`},
		{"case variant of an object", viewPath, `{"brand_id":"br_open","PRODUCT":{"product_id":"p"}}`, "product", `"PRODUCT"`},
		{"case variant inside an object", viewPath, `{"brand_id":"br_open","product":{"Product_Id":"p"}}`, "product.product_id", `"Product_Id"`},
		{"case variant in a product page", productPath, `{"context":{"url":"https://shop.example/p"},"product":{"Title":"Shoe"}}`, "product.title", `"Title"`},
		{"bad key with a duplicate name", viewPath, `{"brand_id":"br_open","brand_id":"br_open","product":{"product_id":"p"}}`, "brand_id", "more than once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers []string
			if strings.HasPrefix(tt.name, "bad key") { // the body is step 1, the key step 2 (docs/decisions.md)
				headers = []string{"X-svc-Api-Key", "sk_nope"}
			}
			r := f.do("POST", tt.path, tt.body, headers...)
			if r.status != 400 || r.header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("status %d %s: %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			var p struct {
				Errors []struct{ Field, Message string }
			}
			if err := json.Unmarshal(r.body, &p); err != nil {
				t.Fatal(err)
			}
			if len(p.Errors) != 1 || p.Errors[0].Field != tt.wantField || !strings.Contains(p.Errors[0].Message, tt.wantMessage) {
				t.Fatalf("errors %+v, want %s: …%s…\n%s", p.Errors, tt.wantField, tt.wantMessage, r.body)
			}
		})
	}
	// Every case variant is named, not only the first.
	r := f.do("POST", viewPath, `{"BRAND_ID":"br_open","product":{"Product_Id":"p","TITLE":"t"}}`)
	var p struct{ Errors []struct{ Field string } }
	_ = json.Unmarshal(r.body, &p)
	if got := fmt.Sprint(p.Errors); r.status != 400 || got != "[{brand_id} {product.product_id} {product.title}]" {
		t.Errorf("three case variants: %d %s, want brand_id, product.product_id and product.title named", r.status, r.body)
	}
	// Nothing above was stored.
	for _, id := range []string{"p", "u\uFFFD\uFFFDX"} {
		if r := f.proof("br_open", id, "", "X-svc-Api-Key", f.keys["br_open"]); r.status != 404 {
			t.Errorf("proof of %q: %d %s", id, r.status, r.body)
		}
	}
}

// A name in another case does not hide the event's other bad fields: a
// single event and a batch's event name them all (README.md: a bad
// request names every bad field).
func TestCaseVariantAndOtherBadFields(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	body := map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": "p1", "url": "not a url"},
		"Context": map[string]any{"session_id": "s1"}}
	r := f.do("POST", viewPath, body)
	var p struct {
		Errors []struct{ Field, Message string }
	}
	_ = json.Unmarshal(r.body, &p)
	if got := fmt.Sprint(p.Errors); r.status != 400 || !strings.Contains(got, "{context is sent as \"Context\"") || !strings.Contains(got, "{product.url ") {
		t.Errorf("a view with \"Context\" and a bad url: %d %s", r.status, r.body)
	}
	res := f.results("br_open", batch(typed("product-view", body, "")))
	if got := errorFields(res[0]); res[0]["status"] != "invalid" || !slices.Equal(got, []string{"events[0].context", "events[0].product.url"}) {
		t.Errorf("a batch's view with \"Context\" and a bad url: %v", res[0])
	}
	if r := f.proof("br_open", "p1", "", "X-svc-Api-Key", f.keys["br_open"]); r.status != 404 {
		t.Errorf("the refused view was stored: %d", r.status)
	}
}
