package httpapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const batchPath = "/api/collect/batch"

func typed(kind string, body map[string]any, idem string) map[string]any {
	body["type"] = kind
	if idem != "" {
		body["idempotency_key"] = idem
	}
	return body
}

func batch(events ...any) map[string]any { return map[string]any{"events": events} }

// results posts a batch with the brand's key and returns its results.
func (f *fixture) results(brand string, body any) []map[string]any {
	f.t.Helper()
	r := f.do("POST", batchPath, body, "X-svc-Api-Key", f.keys[brand])
	if r.status != 200 {
		f.t.Fatalf("batch: %d %s", r.status, r.body)
	}
	var out []map[string]any
	for _, x := range r.json(f.t)["results"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func errorFields(res map[string]any) []string {
	var out []string
	errs, _ := res["errors"].([]any)
	for _, e := range errs {
		out = append(out, e.(map[string]any)["field"].(string))
	}
	slices.Sort(out)
	return out
}

// One bad event fails alone; every other is answered as its single
// endpoint would, in its place, and counted.
func TestBatchMixed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	res := f.results("br_open", batch(
		typed("product-view", view("br_open", "p1", map[string]any{"session_id": "s1"}), ""),
		typed("product-purchase", map[string]any{"brand_id": "br_open", "order": map[string]any{"order_id": "o1"}}, ""),
		typed("product-cart", map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": "p1"}, "quantity": 2,
			"context": map[string]any{"session_id": "s1"}}, ""),
		map[string]any{"type": "product-like", "brand_id": "br_open"},
		typed("product-view", view("br_locked", "p1", nil), ""),
		"not an object",
		typed("product-view", view("br_open", "p1", map[string]any{"country": "de"}), "ключ"),
		typed("product-purchase", purchase("br_open", "o2", "p1", 2), ""),
		map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": "p1"}},
		typed("product-view", map[string]any{"brand_id": "br_open", "Product": map[string]any{"product_id": "p1"}}, ""),
	))
	want := []struct {
		status string
		fields []string
	}{
		{"accepted", nil},
		{"invalid", []string{"events[1].order.items"}},
		{"accepted", nil},
		{"invalid", []string{"events[3].type"}},
		{"invalid", []string{"events[4].brand_id"}},
		{"invalid", []string{"events[5]"}},
		{"invalid", []string{"events[6].context.country", "events[6].idempotency_key"}},
		{"accepted", nil},
		{"invalid", []string{"events[8].type"}},
		{"invalid", []string{"events[9].product"}},
	}
	if len(res) != len(want) {
		t.Fatalf("%d results, want %d: %v", len(res), len(want), res)
	}
	for i, w := range want {
		if res[i]["status"] != w.status || !slices.Equal(errorFields(res[i]), w.fields) {
			t.Errorf("event %d: %v, want %s %v", i, res[i], w.status, w.fields)
		}
		if w.status == "accepted" && res[i]["event_id"] == nil {
			t.Errorf("event %d: no event id: %v", i, res[i])
		}
	}
	if c := f.counts("br_open", "p1"); c != [4]int{1, 1, 1, 2} {
		t.Errorf("p1 counts %v, want the view and o2", c)
	}
	var p map[string]any
	if r := f.proof("br_open", "p1", "", "X-svc-Api-Key", f.keys["br_open"]); r.status == 200 {
		p = r.json(t)
	}
	if p["carts"] != 1.0 {
		t.Errorf("carts: %v, want the add-to-cart", p["carts"])
	}
}

// Orders and idempotency keys are duplicates inside one batch, across
// batches and across the batch and the single endpoints.
func TestBatchDuplicates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	res := f.results("br_open", batch(
		typed("product-purchase", purchase("br_open", "o1", "p1", 1), ""),
		typed("product-purchase", purchase("br_open", "o1", "p1", 3), ""),
		typed("product-view", view("br_open", "p1", nil), "k1"),
		typed("product-view", view("br_open", "p1", nil), "k1"),
		typed("product-view", view("br_open", "p2", nil), "k1"),
	))
	if res[0]["status"] != "accepted" || res[1]["status"] != "duplicate" || res[1]["event_id"] != res[0]["event_id"] {
		t.Errorf("one order twice in a batch: %v, %v", res[0], res[1])
	}
	if res[2]["status"] != "accepted" || res[3]["replayed"] != true || res[3]["event_id"] != res[2]["event_id"] {
		t.Errorf("one key twice: %v, %v", res[2], res[3])
	}
	if res[4]["status"] != "conflict" || res[4]["detail"] == nil {
		t.Errorf("one key with another event: %v", res[4])
	}
	if c := f.counts("br_open", "p1"); c[0] != 1 || c[2] != 1 || c[3] != 1 {
		t.Errorf("p1: %v, want one view and one order of one unit", c)
	}

	// The single endpoints and the batch share keys and orders: the same
	// event, however it is spaced or ordered, is the first answer again.
	r := f.do("POST", viewPath, `{"product": {"product_id": "p1"},   "brand_id": "br_open"}`, append(key, "Idempotency-Key", "k1")...)
	if r.status != 200 || r.header.Get("Idempotent-Replayed") != "true" || r.json(t)["event_id"] != res[2]["event_id"] {
		t.Errorf("the batch's key on the single endpoint: %d %s", r.status, r.body)
	}
	r = f.do("POST", purchasePath, purchase("br_open", "o1", "p1", 1), key...)
	if r.status != 200 || r.json(t)["status"] != "duplicate" {
		t.Errorf("the batch's order on the single endpoint: %d %s", r.status, r.body)
	}
	single := f.do("POST", viewPath, view("br_open", "p3", nil), append(key, "Idempotency-Key", "k2")...)
	again := f.results("br_open", batch(
		typed("product-view", view("br_open", "p3", nil), "k2"),
		typed("product-purchase", purchase("br_open", "o1", "p2", 1), ""),
	))
	if again[0]["replayed"] != true || again[0]["event_id"] != single.json(t)["event_id"] || again[1]["status"] != "duplicate" {
		t.Errorf("the single endpoints' key and order in a batch: %v", again)
	}
	if c := f.counts("br_open", "p3"); c[0] != 1 {
		t.Errorf("p3: %v, want one view", c)
	}
}

// A batch refused whole stores nothing: 501 events, a body over 4 MiB,
// no key, a body that is not a batch.
func TestBatchRefusedWhole(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	var events []any
	for i := range 501 {
		events = append(events, typed("product-view", view("br_open", fmt.Sprint("p", i), nil), ""))
	}
	tests := []struct {
		name    string
		body    any
		headers []string
		status  int
		fields  []string
	}{
		{"501 events", batch(events...), key, 400, []string{"events"}},
		{"no key", batch(events[:3]...), nil, 401, nil},
		{"no key, from the brand's origin", batch(events[:3]...), []string{"Origin", "https://shop.example"}, 401, nil},
		{"unknown key", batch(events[:3]...), []string{"X-svc-Api-Key", "sk_nope"}, 401, nil},
		{"an Idempotency-Key header", batch(events[:3]...), append([]string{"Idempotency-Key", "b1"}, key...), 400, []string{"Idempotency-Key"}},
		{"no events", `{"events":[]}`, key, 400, []string{"events"}},
		{"events missing", `{"event":[]}`, key, 400, []string{"events"}},
		{"events not an array", `{"events":{}}`, key, 400, []string{"events"}},
		{"events in another case", `{"Events":[]}`, key, 400, []string{"events"}},
		{"events twice", `{"events":[],"events":[]}`, key, 400, []string{"events"}},
		{"not JSON", `{"events":[`, key, 400, nil},
		{"an array", `[]`, key, 400, nil},
		{"over 4 MiB", `{"events":[],"pad":"` + strings.Repeat("x", 4<<20) + `"}`, key, 413, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do("POST", batchPath, tt.body, tt.headers...)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %.300s", r.status, tt.status, r.body)
			}
			if tt.fields != nil && !slices.Equal(r.fields(t), tt.fields) {
				t.Errorf("fields %v, want %v", r.fields(t), tt.fields)
			}
		})
	}
	if r := f.proof("br_open", "p0", "", key...); r.status != 404 {
		t.Errorf("p0 after refused batches: %d %s, want never seen", r.status, r.body)
	}
	// 500 is the limit, and they go in one commit.
	if res := f.results("br_open", batch(events[:500]...)); len(res) != 500 || res[499]["status"] != "accepted" {
		t.Errorf("500 events: %d results, last %v", len(res), res[len(res)-1])
	}
	if c := f.counts("br_open", "p499"); c[0] != 1 {
		t.Errorf("p499: %v", c)
	}
}
