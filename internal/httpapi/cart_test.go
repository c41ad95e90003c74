package httpapi_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

const cartPath = "/api/collect/product-cart"

func cart(brand, product string, quantity any, ctx map[string]any) map[string]any {
	c := view(brand, product, ctx)
	if quantity != nil {
		c["quantity"] = quantity
	}
	return c
}

// TestCollectCart checks that an add-to-cart follows a view's rules, plus
// its quantity.
func TestCollectCart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if _, err := f.tracker.EnsureProduct(context.Background(), &svc.Product{BrandID: "br_closed", ProductID: "catalogued"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		body       any
		headers    []string
		wantStatus int
		wantFields []string
	}{
		{"minimal anonymous cart", cart("br_open", "p1", nil, nil), nil, 200, nil},
		{"full keyed cart", map[string]any{
			"brand_id": "br_open", "quantity": 3,
			"product": map[string]any{"product_id": "p1", "sku": "SKU-1", "title": "Shoe", "url": "https://shop.example/p/1"},
			"context": map[string]any{"timestamp": "2026-11-21T09:59:00Z", "session_id": "s1", "country": "DE", "locale": "de-DE"},
		}, []string{"X-svc-Api-Key", "KEY:br_open"}, 200, nil},
		{"quantity null means 1", `{"brand_id":"br_open","product":{"product_id":"p1"},"quantity":null}`, nil, 200, nil},
		{"largest quantity", cart("br_open", "p1", svc.MaxQuantity, nil), nil, 200, nil},
		{"quantity 0", cart("br_open", "p1", 0, nil), nil, 400, []string{"quantity"}},
		{"quantity too large", cart("br_open", "p1", svc.MaxQuantity+1, nil), nil, 400, []string{"quantity"}},
		{"quantity not an integer", cart("br_open", "p1", 1.5, nil), nil, 400, []string{"quantity"}},
		{"quantity a string", cart("br_open", "p1", "2", nil), nil, 400, []string{"quantity"}},
		{"every field bad", map[string]any{
			"brand_id": strings.Repeat("x", 129), "quantity": -1,
			"product": map[string]any{"product_id": "", "url": "ftp://shop.example/p"},
			"context": map[string]any{"timestamp": "yesterday", "country": "de"},
		}, nil, 400, []string{"brand_id", "context.country", "context.timestamp", "product.product_id", "product.url", "quantity"}},
		{"case variant of quantity", `{"brand_id":"br_open","product":{"product_id":"p1"},"Quantity":2}`, nil, 400, []string{"quantity"}},
		{"unknown brand", cart("br_nope", "p1", nil, nil), nil, 404, nil},
		{"require_key without key", cart("br_locked", "p1", nil, nil), nil, 401, nil},
		{"foreign origin without key", cart("br_open", "p1", nil, nil), []string{"Origin", "https://evil.example"}, 401, nil},
		{"brand origin", cart("br_open", "p1", nil, nil), []string{"Origin", "https://shop.example"}, 200, nil},
		{"closed catalog, new product, anonymous", cart("br_closed", "new", nil, nil), nil, 404, nil},
		{"closed catalog, known product, anonymous", cart("br_closed", "catalogued", nil, nil), nil, 200, nil},
		{"keyed timestamp 6 min ahead", cart("br_open", "p1", nil, map[string]any{"timestamp": t0.Add(6 * time.Minute).Format(time.RFC3339)}), []string{"X-svc-Api-Key", "KEY:br_open"}, 400, []string{"context.timestamp"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do("POST", cartPath, tt.body, f.headers(tt.headers)...)
			if r.status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.status, tt.wantStatus, r.body)
			}
			if r.status == 200 {
				if m := r.json(t); m["status"] != "accepted" || m["event_id"] == "" {
					t.Fatalf("body %s", r.body)
				}
				return
			}
			if got := r.fields(t); tt.wantFields != nil && !reflect.DeepEqual(got, tt.wantFields) {
				t.Fatalf("fields %v, want %v\n%s", got, tt.wantFields, r.body)
			}
		})
	}
}

// TestCartsInProof checks carts and carts_last_N_min: distinct sessions in
// (now - window_carts, now], a session once however often it adds, and
// carts without a session not counted as shoppers.
func TestCartsInProof(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	at := func(d time.Duration, session string) map[string]any {
		c := map[string]any{"timestamp": t0.Add(-d).Format(time.RFC3339)}
		if session != "" {
			c["session_id"] = session
		}
		return c
	}
	for _, c := range []struct {
		d       time.Duration
		session string
	}{
		{0, "a"}, {time.Minute, "a"}, {14*time.Minute + 59*time.Second, "b"}, {15 * time.Minute, "c"},
		{59*time.Minute + 59*time.Second, "d"}, {time.Hour, "e"}, {0, ""},
	} {
		if r := f.do("POST", cartPath, cart("br_open", "p1", 2, at(c.d, c.session)), key...); r.status != 200 {
			t.Fatalf("cart: %d %s", r.status, r.body)
		}
	}
	// A view of another product and a bot's cart change nothing.
	f.do("POST", cartPath, cart("br_open", "p2", nil, at(0, "z")), key...)
	f.do("POST", cartPath, cart("br_open", "p1", nil, map[string]any{"session_id": "bot"}), "User-Agent", "Googlebot/2.1")
	check := func(query string, field string, want float64) {
		t.Helper()
		m := f.proof("br_open", "p1", query).json(t)
		if m[field] != want || m["carts"] != want {
			t.Fatalf("proof%s: %s = %v, carts = %v, want %v: %v", query, field, m[field], m["carts"], want, m)
		}
	}
	check("", "carts_last_60_min", 4)
	check("&window_carts=15", "carts_last_15_min", 2)
	check("&window_carts=10080", "carts_last_10080_min", 5)
	if m := f.proof("br_open", "p1", "&window_carts=15").json(t); m["window_carts"] != 15.0 {
		t.Fatalf("window_carts %v", m["window_carts"])
	}
	f.clock.Set(t0.Add(time.Second))
	check("", "carts_last_60_min", 3)
	f.restart() // rebuilt from the store
	check("", "carts_last_60_min", 3)
	check("&window_carts=10080", "carts_last_10080_min", 5)
	for _, q := range []string{"&window_carts=0", "&window_carts=10081", "&window_carts=x", "&window_carts=1.5"} {
		r := f.proof("br_open", "p1", q)
		if r.status != 400 || !reflect.DeepEqual(r.fields(t), []string{"window_carts"}) {
			t.Fatalf("%s: %d %s", q, r.status, r.body)
		}
	}
}

// TestViewersNow checks viewers_now: distinct sessions viewing in the last
// five minutes, null with a reason below the brand's viewer threshold.
func TestViewersNow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	viewAt := func(product string, d time.Duration, session string) {
		t.Helper()
		ctx := map[string]any{"timestamp": t0.Add(-d).Format(time.RFC3339), "session_id": session}
		if r := f.do("POST", viewPath, view("br_open", product, ctx), key...); r.status != 200 {
			t.Fatalf("view: %d %s", r.status, r.body)
		}
	}
	// p1: three sessions inside five minutes (one twice), one just outside.
	viewAt("p1", 0, "a")
	viewAt("p1", time.Minute, "a")
	viewAt("p1", 4*time.Minute+59*time.Second, "b")
	viewAt("p1", 2*time.Minute, "c")
	viewAt("p1", 5*time.Minute, "d")
	// p2: two sessions now, below the threshold of 3.
	viewAt("p2", 0, "a")
	viewAt("p2", 0, "b")
	m := f.proof("br_open", "p1", "").json(t)
	if m["viewers_now"] != 3.0 || m["window_now"] != 5.0 || m["reasons"] != nil {
		t.Fatalf("p1: %v", m)
	}
	m = f.proof("br_open", "p2", "").json(t)
	if v, ok := m["viewers_now"]; !ok || v != nil || fmt.Sprint(m["reasons"]) != "map[viewers_now:below_threshold]" {
		t.Fatalf("p2 below the threshold: %v", m)
	}
	// The viewer threshold is the brand's: 5 for the locked brand.
	lk := []string{"X-svc-Api-Key", f.keys["br_locked"]}
	for i := range 4 {
		f.do("POST", viewPath, view("br_locked", "p", map[string]any{"session_id": fmt.Sprint("s", i)}), lk...)
	}
	if m := f.proof("br_locked", "p", "", lk...).json(t); m["viewers_now"] != nil {
		t.Fatalf("4 of 5 viewers shown: %v", m)
	}
	f.do("POST", viewPath, view("br_locked", "p", map[string]any{"session_id": "s4"}), lk...)
	if m := f.proof("br_locked", "p", "", lk...).json(t); m["viewers_now"] != 5.0 {
		t.Fatalf("5 of 5 viewers: %v", m)
	}
	// A second later, b's view is 5 minutes old and leaves the window.
	f.clock.Set(t0.Add(time.Second))
	if m := f.proof("br_open", "p1", "").json(t); m["viewers_now"] != nil {
		t.Fatalf("a second later, 2 viewers now: %v", m)
	}
}
