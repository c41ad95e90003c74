package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/postgres/pgtest"
)

// withinSecond fails unless check passes within a second.
func withinSecond(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s, a second after: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// getJSON reads a JSON answer; nil unless it is a 200.
func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var m map[string]any
	if res.StatusCode != 200 || json.Unmarshal(body, &m) != nil {
		return nil
	}
	return m
}

// everyNode returns an error unless every node's answer at path passes ok.
func everyNode(t *testing.T, nodes []string, path string, ok func(map[string]any) bool) error {
	for i, n := range nodes {
		if m := getJSON(t, n+path); m == nil || !ok(m) {
			return fmt.Errorf("node %d answers %v", i, m)
		}
	}
	return nil
}

// TestNodesShareSignals: carts, viewers now and the recent purchases feed
// sent to any of three nodes on one PostgreSQL show on every node within a
// second, a cancellation on a third node takes the order out of every
// node's feed, and a node started later agrees.
func TestNodesShareSignals(t *testing.T) {
	// Not parallel: it asserts what every node shows within a second.
	store := pgtest.URL(t)
	b := addBrand(t, "", "--store", store, "--recent-k", "2", "--recent-delay", "1m")
	nodes := make([]string, 3)
	for i := range nodes {
		_, nodes[i] = startNode(t, store)
	}
	send := func(node int, path string, body map[string]any) {
		t.Helper()
		st, m, err := post(nodes[node]+path, b.APIKey, "", body)
		if err != nil || st != 200 || m["status"] != "accepted" {
			t.Fatalf("%s on node %d: %d %v %v", path, node, st, m, err)
		}
	}
	proofPath := "/api/svc/product-proof?brand_id=" + b.BrandID + "&product_id=p1"

	// Carts and views, each session on another node.
	for i, s := range []string{"a", "b", "c"} {
		cart := viewBody(b.BrandID, "p1")
		cart["quantity"] = 2
		cart["context"] = map[string]any{"session_id": s}
		send(i, "/api/collect/product-cart", cart)
		view := viewBody(b.BrandID, "p1")
		view["context"] = map[string]any{"session_id": s}
		send((i+1)%3, "/api/collect/product-view", view)
	}
	withinSecond(t, "carts and viewers now", func() error {
		return everyNode(t, nodes, proofPath, func(m map[string]any) bool { return m["carts"] == 3.0 && m["viewers_now"] == 3.0 })
	})

	// Two orders to Berlin on two nodes; k is 2, so the city shows.
	at := time.Now().Add(-10 * time.Minute).UTC().Format(time.RFC3339)
	for i, id := range []string{"o1", "o2"} {
		body := purchaseBody(b.BrandID, id, "p1")
		body["context"] = map[string]any{"timestamp": at, "country": "DE", "city": "Berlin"}
		send(i, "/api/collect/product-purchase", body)
	}
	recentPath := "/api/svc/recent-activity?brand_id=" + b.BrandID
	items := func(m map[string]any) []any { it, _ := m["items"].([]any); return it }
	place := func(item any) any { return item.(map[string]any)["place"] }
	withinSecond(t, "the feed", func() error {
		return everyNode(t, nodes, recentPath, func(m map[string]any) bool {
			it := items(m)
			return len(it) == 2 && fmt.Sprint(place(it[0])) == "map[city:Berlin country:DE]"
		})
	})

	// o1 cancelled on the third node: one Berlin order is fewer than k.
	send(2, "/api/collect/order-cancel", map[string]any{"brand_id": b.BrandID, "order_id": "o1"})
	after := func(m map[string]any) bool { it := items(m); return len(it) == 1 && place(it[0]) == nil }
	withinSecond(t, "the feed after a cancellation", func() error { return everyNode(t, nodes, recentPath, after) })
	withinSecond(t, "the counts after a cancellation", func() error {
		return everyNode(t, nodes, proofPath, func(m map[string]any) bool { return m["purchases"] == 1.0 && m["carts"] == 3.0 })
	})

	_, late := startNode(t, store)
	if err := everyNode(t, []string{late}, recentPath, after); err != nil {
		t.Fatalf("a node started after: %v", err)
	}
	if err := everyNode(t, []string{late}, proofPath, func(m map[string]any) bool { return m["carts"] == 3.0 && m["viewers_now"] == 3.0 }); err != nil {
		t.Fatalf("a node started after: %v", err)
	}
}
