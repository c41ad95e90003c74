package main

import (
	"testing"
	"time"

	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/testwait"
)

// allCount returns an error unless every node shows the product's
// purchases and units.
func allCount(t *testing.T, nodes []string, brand, product string, purchases, units int) error {
	return allAgree(t, nodes, brand, product, "purchases", "units", [2]int{purchases, units})
}

// withinASecond fails unless every node shows the counts within a second.
func withinASecond(t *testing.T, nodes []string, brand, product string, purchases, units int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		err := allCount(t, nodes, brand, product, purchases, units)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a second after: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestNodesFollowCancellations: a cancellation or a refund sent to one of
// three nodes shows on every node within a second, a cancellation that
// overtakes its order wins on every node, and a restarted node agrees.
func TestNodesFollowCancellations(t *testing.T) {
	// Not parallel: it asserts what every node shows within a second.
	store := pgtest.URL(t)
	b := addBrand(t, "", "--store", store)
	nodes := make([]string, 3)
	for i := range nodes {
		_, nodes[i] = startNode(t, store)
	}
	order := func(node int, id string, qty int, want string) {
		t.Helper()
		body := purchaseBody(b.BrandID, id, "p1")
		body["order"].(map[string]any)["items"].([]any)[0].(map[string]any)["quantity"] = qty
		st, m, err := post(nodes[node]+"/api/collect/product-purchase", b.APIKey, "", body)
		if err != nil || st != 200 || m["status"] != want {
			t.Fatalf("order %s on node %d: %d %v %v, want %s", id, node, st, m, err, want)
		}
	}
	cancel := func(node int, body map[string]any, want string) {
		t.Helper()
		st, m, err := post(nodes[node]+"/api/collect/order-cancel", b.APIKey, "", body)
		if err != nil || st != 200 || m["status"] != want {
			t.Fatalf("cancel %v on node %d: %d %v %v, want %s", body, node, st, m, err, want)
		}
	}
	order(0, "o1", 3, "accepted")
	order(0, "o2", 1, "accepted")
	testwait.Eventually(t, func() error { return allCount(t, nodes, b.BrandID, "p1", 2, 4) })

	cancel(1, map[string]any{"brand_id": b.BrandID, "order_id": "o1", "items": []any{map[string]any{"product_id": "p1", "quantity": 2}}}, "accepted")
	withinASecond(t, nodes, b.BrandID, "p1", 2, 2)
	cancel(2, map[string]any{"brand_id": b.BrandID, "order_id": "o1"}, "accepted")
	withinASecond(t, nodes, b.BrandID, "p1", 1, 1)
	cancel(0, map[string]any{"brand_id": b.BrandID, "order_id": "o1"}, "duplicate")

	// Out of order: the cancellation on one node, its order later on another.
	cancel(2, map[string]any{"brand_id": b.BrandID, "order_id": "o3"}, "accepted")
	order(1, "o3", 5, "duplicate")
	order(0, "o1", 1, "duplicate") // a cancelled order's id is not reused
	withinASecond(t, nodes, b.BrandID, "p1", 1, 1)

	_, restarted := startNode(t, store)
	if err := allCount(t, []string{restarted}, b.BrandID, "p1", 1, 1); err != nil {
		t.Fatalf("a node started after: %v", err)
	}
}
