package httpapi_test

import (
	"slices"
	"strings"
	"testing"
)

const cancelPath = "/api/collect/order-cancel"

func cancelBody(brand, order string, lines ...any) map[string]any {
	b := map[string]any{"brand_id": brand, "order_id": order}
	if len(lines) > 0 {
		var items []any
		for i := 0; i+1 < len(lines); i += 2 {
			items = append(items, map[string]any{"product_id": lines[i], "quantity": lines[i+1]})
		}
		b["items"] = items
	}
	return b
}

func TestOrderCancelChecks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	tests := []struct {
		name       string
		body       any
		headers    []string
		wantStatus int
		wantFields []string
	}{
		{"no key", cancelBody("br_open", "o1"), nil, 401, nil},
		{"no key, from the brand's own origin", cancelBody("br_open", "o1"), []string{"Origin", "https://shop.example"}, 401, nil},
		{"no key beats a bad body", `{}`, nil, 401, nil},
		{"unknown key", cancelBody("br_open", "o1"), []string{"X-svc-Api-Key", "sk_nope"}, 401, nil},
		{"revoked key", cancelBody("br_open", "o1"), []string{"X-svc-Api-Key", f.revoked}, 401, nil},
		{"key of another brand", cancelBody("br_locked", "o1"), key, 401, nil},
		{"whole order", cancelBody("br_open", "o1"), key, 200, nil},
		{"some units", cancelBody("br_open", "o2", "p1", 1), key, 200, nil},
		{"missing ids", `{}`, key, 400, []string{"brand_id", "order_id"}},
		{"empty items", `{"brand_id":"br_open","order_id":"o1","items":[]}`, key, 400, []string{"items"}},
		{"bad items", `{"brand_id":"br_open","order_id":"o1","items":[{"quantity":0},{"product_id":"p","quantity":1.5}]}`, key, 400,
			[]string{"items[0].product_id", "items[0].quantity", "items[1].quantity"}},
		{"bad idempotency key", cancelBody("br_open", "o1"), append([]string{"Idempotency-Key", "ключ"}, key...), 400, []string{"Idempotency-Key"}},
		{"body over 64 KiB", `{"brand_id":"br_open","pad":"` + strings.Repeat("x", 64<<10) + `"}`, key, 413, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do("POST", cancelPath, tt.body, tt.headers...)
			if r.status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.status, tt.wantStatus, r.body)
			}
			if tt.wantFields != nil {
				if got := r.fields(t); !slices.Equal(got, tt.wantFields) {
					t.Errorf("fields %v, want %v", got, tt.wantFields)
				}
			}
		})
	}
}

// A cancelled order disappears from the counts, partly or whole, also
// after a restart; its id is never reused; a repeat changes nothing.
func TestOrderCancel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	post := func(path string, body any, status string, headers ...string) map[string]any {
		t.Helper()
		r := f.do("POST", path, body, append(headers, key...)...)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
		m := r.json(t)
		if m["status"] != status {
			t.Fatalf("%s: %s, want %s", path, r.body, status)
		}
		return m
	}
	post(purchasePath, purchase("br_open", "o1", "p1", 2, "p2", 1), "accepted")
	post(purchasePath, purchase("br_open", "o2", "p1", 1), "accepted")
	if c := f.counts("br_open", "p1"); c[2] != 2 || c[3] != 3 {
		t.Fatalf("p1 before: %v", c)
	}

	post(cancelPath, cancelBody("br_open", "o1", "p1", 1), "accepted")
	if c := f.counts("br_open", "p1"); c[2] != 2 || c[3] != 2 {
		t.Errorf("p1 after a refund of one unit: %v, want 2 orders, 2 units", c)
	}
	first := post(cancelPath, cancelBody("br_open", "o1"), "accepted")
	if c := f.counts("br_open", "p1"); c[2] != 1 || c[3] != 1 {
		t.Errorf("p1 after the order's cancellation: %v, want o2 alone", c)
	}
	if c := f.counts("br_open", "p2"); c[2] != 0 || c[3] != 0 {
		t.Errorf("p2 after the order's cancellation: %v", c)
	}
	if again := post(cancelPath, cancelBody("br_open", "o1"), "duplicate"); again["event_id"] != first["event_id"] {
		t.Errorf("cancel again: %v, want the first cancellation's id %v", again, first["event_id"])
	}
	post(purchasePath, purchase("br_open", "o1", "p1", 5), "duplicate")

	// Idempotent refunds: the repeat is the first answer, and takes nothing more.
	refund := []string{"Idempotency-Key", "refund-1"}
	a := post(cancelPath, cancelBody("br_open", "o2", "p1", 1), "accepted", refund...)
	r := f.do("POST", cancelPath, cancelBody("br_open", "o2", "p1", 1), append(refund, key...)...)
	if r.status != 200 || r.header.Get("Idempotent-Replayed") != "true" || r.json(t)["event_id"] != a["event_id"] {
		t.Errorf("replay: %d %v %s", r.status, r.header, r.body)
	}
	if r := f.do("POST", cancelPath, cancelBody("br_open", "o2", "p1", 2), append(refund, key...)...); r.status != 409 {
		t.Errorf("the key with another body: %d %s", r.status, r.body)
	}

	// A cancellation before its order: the order, when it comes, counts nothing.
	post(cancelPath, cancelBody("br_open", "o3"), "accepted")
	post(purchasePath, purchase("br_open", "o3", "p1", 4), "duplicate")

	f.restart()
	if c := f.counts("br_open", "p1"); c[2] != 0 || c[3] != 0 {
		t.Errorf("p1 after a restart: %v, want nothing", c)
	}
}
