package tracker_test

import (
	"context"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres"
	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/tracker"
)

// TestNodesFollowCancellations: what one node's cancellation takes out of
// an order, another node takes out of its counts and its prices paid at
// its next poll, whether it counted the order before or meets both at once.
func TestNodesFollowCancellations(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	a, b := node(t, url), node(t, url)
	buy := func(order string, qty int64, price float64) {
		t.Helper()
		cur := "EUR"
		ev := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: order, Currency: &cur,
			Items: []svc.PurchaseItem{{ProductID: "p1", Quantity: &qty, UnitPrice: &price}}}}
		if err := tracker.CollectPurchase(a, ev); err != nil {
			t.Fatal(err)
		}
	}
	cancel := func(order string, qty int64) {
		t.Helper()
		c := &svc.CancelEvent{BrandID: "br_1", OrderID: order}
		if qty > 0 {
			c.Items = []svc.CancelItem{{ProductID: "p1", Quantity: &qty}}
		}
		if err := b.Cancel(ctx, c); err != nil || c.Result.Status != svc.StatusAccepted {
			t.Fatalf("cancel %s: %+v %v", order, c.Result, err)
		}
	}
	want := func(purchases, units int64, prices int) {
		t.Helper()
		a.PollChanges(ctx)
		b.PollChanges(ctx)
		for i, tr := range []*tracker.Tracker{a, b} {
			p, err := counts(tr, "br_1", "p1")
			paid := tracker.PricesPaid(tr, "br_1", "p1", "EUR")
			if err != nil || p.Purchases != purchases || p.Units != units || paid != prices {
				t.Errorf("node %d: purchases %d, units %d, prices %d (%v); want %d, %d, %d", i, p.Purchases, p.Units, paid, err, purchases, units, prices)
			}
		}
	}
	buy("o1", 3, 10)
	buy("o2", 1, 20)
	want(2, 4, 2)
	cancel("o1", 1)
	want(2, 3, 2)
	cancel("o1", 0)
	want(1, 1, 1)
	// An order and its refund that another node meets in one poll.
	buy("o3", 4, 30)
	cancel("o3", 3)
	want(2, 2, 2)
}
