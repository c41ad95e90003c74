package svc_test

import (
	"context"
	"testing"

	"github.com/svc-project/svc"
)

type pending []svc.CancelItem

func (p pending) PendingCancels(context.Context, string, string) ([]svc.CancelItem, error) {
	return p, nil
}

// Refunds recorded before an order take their units out of its lines in
// line order and drop the lines they empty; deciding the order again (a
// batch retried) starts from the lines as sent, and takes nothing twice.
func TestTakeOutPending(t *testing.T) {
	q := func(n int64) *int64 { return &n }
	e := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: "o1", Items: []svc.PurchaseItem{
		{ProductID: "p1", Quantity: q(1)}, {ProductID: "p2", Quantity: q(3)}, {ProductID: "p1", Quantity: q(5)}}}}
	refunds := pending{{ProductID: "p1", Quantity: q(2)}, {ProductID: "p3", Quantity: q(1)}}
	for range 2 {
		if err := svc.TakeOutPending(context.Background(), refunds, e); err != nil {
			t.Fatal(err)
		}
		it := e.Order.Items
		if len(it) != 2 || it[0].ProductID != "p2" || *it[0].Quantity != 3 || it[1].ProductID != "p1" || *it[1].Quantity != 4 {
			t.Fatalf("items %+v: want p2 × 3 and p1 × 4", it)
		}
	}
	if err := svc.TakeOutPending(context.Background(), pending{}, e); err != nil || len(e.Order.Items) != 3 {
		t.Fatalf("no refunds: items %+v, %v", e.Order.Items, err)
	}
}
