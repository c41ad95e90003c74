package main

import (
	"fmt"
	"os/exec"
	"testing"

	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// sentBatch is one batch request a client sent, with whether it got a 200
// that accepted every event.
type sentBatch struct {
	events        []any
	views, orders int
	acked         bool
}

func newSentBatch(brand string, w, i int) *sentBatch {
	b := &sentBatch{}
	for j := range 40 {
		id := fmt.Sprintf("w%d-%d-%d", w, i, j)
		if j%5 == 4 {
			ev := purchaseBody(brand, id, "p1")
			ev["type"] = "product-purchase"
			b.events, b.orders = append(b.events, ev), b.orders+1
			continue
		}
		ev := viewBody(brand, "p1")
		ev["type"], ev["idempotency_key"] = "product-view", id
		b.events, b.views = append(b.events, ev), b.views+1
	}
	return b
}

// send posts the batch and reports whether every event was stored: its
// first time, or before (a retry).
func (b *sentBatch) send(base, key string) bool {
	st, m, err := post(base+"/api/collect/batch", key, "", map[string]any{"events": b.events})
	if err != nil || st != 200 {
		return false
	}
	res, _ := m["results"].([]any)
	for _, r := range res {
		if s := r.(map[string]any)["status"]; s != "accepted" && s != "duplicate" {
			return false
		}
	}
	return len(res) == len(b.events)
}

// TestCrashDuringBatchesLosesNothingAcknowledged kills the server with
// SIGKILL while clients send batches, on each store: every event of an
// acknowledged batch is counted after a restart, and retrying the batches
// that got no answer counts every event exactly once.
func TestCrashDuringBatchesLosesNothingAcknowledged(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		dir := sqlitetest.Dir(t)
		b := addBrand(t, dir)
		crashDuringBatches(t, b, func() (*exec.Cmd, string) { return startChild(t, dir) })
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		store := pgtest.URL(t)
		b := addBrand(t, "", "--store", store)
		crashDuringBatches(t, b, func() (*exec.Cmd, string) { return startNode(t, store) })
	})
}

func crashDuringBatches(t *testing.T, b brandJSON, start func() (*exec.Cmd, string)) {
	cmd, base := start()
	sent := sendUntilKill(t, cmd, 4, 30, func(w, i int) (*sentBatch, bool) {
		sb := newSentBatch(b.BrandID, w, i)
		sb.acked = sb.send(base, b.APIKey)
		return sb, sb.acked
	})

	var views, orders, ackedViews, ackedOrders int
	for _, bs := range sent {
		for _, sb := range bs {
			views, orders = views+sb.views, orders+sb.orders
			if sb.acked {
				ackedViews, ackedOrders = ackedViews+sb.views, ackedOrders+sb.orders
			}
		}
	}
	_, base = start()
	m := proof(t, base, b.BrandID, "p1")
	gotViews, gotOrders := int(m["views"].(float64)), int(m["purchases"].(float64))
	t.Logf("sent %d views, %d orders; acknowledged %d, %d; counted after the crash %d, %d", views, orders, ackedViews, ackedOrders, gotViews, gotOrders)
	if gotViews < ackedViews || gotViews > views || gotOrders < ackedOrders || gotOrders > orders {
		t.Fatalf("after the crash: %d views and %d orders counted, but %d and %d were acknowledged (of %d and %d sent)",
			gotViews, gotOrders, ackedViews, ackedOrders, views, orders)
	}
	for _, bs := range sent {
		for i, sb := range bs {
			if (!sb.acked || i%10 == 0) && !sb.send(base, b.APIKey) {
				t.Fatalf("a retried batch was not stored")
			}
		}
	}
	m = proof(t, base, b.BrandID, "p1")
	if int(m["views"].(float64)) != views || int(m["purchases"].(float64)) != orders {
		t.Fatalf("after retries: %v, want exactly %d views and %d purchases", m, views, orders)
	}
}
