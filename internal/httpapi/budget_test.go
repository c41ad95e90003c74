package httpapi_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/httpapi"
)

// An outside probe found that one anonymous purchase of 500 lines created 500
// products, and one address created 349,500 in 30 s while the rate limiter
// saw 699 requests. Anonymous events are budgeted by what they create;
// keyed ones are exempt.
func TestAnonymousBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t, httpapi.Options{
		RateLimit: httpapi.RateLimit{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}},
		Budget:    httpapi.Budget{NewProductsPerAddress: 3, NewProductsPerBrand: 5, LinesPerOrder: 2, UnitsPerLine: 10},
	})
	from := func(addr string) []string { return []string{"X-Forwarded-For", addr} }
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	const viewPath, buyPath = "/api/collect/product-view", "/api/collect/product-purchase"

	wantInvalid := func(r response, field, limit string) {
		t.Helper()
		if r.status != 400 || !strings.Contains(string(r.body), `"field":"`+field+`"`) || !strings.Contains(string(r.body), limit) {
			t.Errorf("%d %s, want 400 naming %s and %s", r.status, r.body, field, limit)
		}
	}
	wantInvalid(f.do("POST", buyPath, purchase("br_open", "o1", "a", 1, "b", 1, "c", 1), from("10.0.0.1")...), "order.items", "--anon-max-lines")
	wantInvalid(f.do("POST", buyPath, purchase("br_open", "o2", "a", 11), from("10.0.0.1")...), "order.items[0].quantity", "--anon-max-units")
	if r := f.do("POST", buyPath, purchase("br_open", "k1", "k-a", 500, "k-b", 1, "k-c", 1), key...); r.status != 200 {
		t.Errorf("a keyed order over the anonymous limits: %d %s", r.status, r.body)
	}

	wantLimited := func(r response, limit string) {
		t.Helper()
		if r.status != 429 || r.header.Get("Retry-After") == "" || !strings.Contains(string(r.body), limit) {
			t.Errorf("%d Retry-After %q %s, want 429 naming %s", r.status, r.header.Get("Retry-After"), r.body, limit)
		}
	}
	for i := range 3 {
		if r := f.do("POST", viewPath, view("br_open", fmt.Sprint("n", i), nil), from("10.0.0.1")...); r.status != 200 {
			t.Fatalf("new product %d of 3: %d %s", i, r.status, r.body)
		}
	}
	wantLimited(f.do("POST", viewPath, view("br_open", "n3", nil), from("10.0.0.1")...), "--anon-new-products-per-address")
	// An order of known products and the one that tipped the budget
	// over: nothing new is charged for the known ones.
	if r := f.do("POST", viewPath, view("br_open", "n0", nil), from("10.0.0.1")...); r.status != 200 {
		t.Errorf("a view of a known product over the budget: %d %s", r.status, r.body)
	}
	if r := f.do("POST", viewPath, view("br_open", "keyed-new", nil), append(from("10.0.0.1"), key...)...); r.status != 200 {
		t.Errorf("a keyed view of a new product: %d %s", r.status, r.body)
	}
	// Another address: its own budget, until the brand's runs out (5).
	if r := f.do("POST", buyPath, purchase("br_open", "o3", "m0", 1, "m1", 1), from("10.0.0.2")...); r.status != 200 {
		t.Fatalf("two new products from another address: %d %s", r.status, r.body)
	}
	wantLimited(f.do("POST", viewPath, view("br_open", "m2", nil), from("10.0.0.2")...), "--anon-new-products-per-brand")
	if r := f.proof("br_open", "m2", "", key...); r.status != 404 {
		t.Errorf("a refused view registered its product: %d %s", r.status, r.body)
	}
}
