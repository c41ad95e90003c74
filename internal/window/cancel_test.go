package window

import (
	"testing"
	"time"
)

// A removal takes units, and the order when it is the product's last
// units, out of the second it was counted at; of an order not yet due it
// takes them out of the waiting order; of an order out of every window,
// nothing.
func TestRemovePurchase(t *testing.T) {
	e := newEngine()
	const day = 24 * time.Hour
	counts := func(now time.Time) Counts { return e.Counts(1, now, time.Hour, day) }
	e.AddPurchase(1, t0.Add(-time.Hour), 3, t0)
	e.AddPurchase(1, t0.Add(-time.Hour), 2, t0) // another order, the same second
	e.AddPurchase(1, t0.Add(2*time.Minute), 4, t0)
	e.AddPurchase(1, t0.Add(-31*day), 5, t0.Add(-31*day))

	e.RemovePurchase(1, t0.Add(-time.Hour), 0, 1, t0)
	if c := counts(t0); c.Purchases != 2 || c.Units != 4 {
		t.Fatalf("after a unit refunded: %+v", c)
	}
	e.RemovePurchase(1, t0.Add(-time.Hour), 1, 2, t0)
	if c := counts(t0); c.Purchases != 1 || c.Units != 2 {
		t.Fatalf("after an order cancelled: %+v", c)
	}
	e.RemovePurchase(1, t0.Add(2*time.Minute), 0, 1, t0)
	if c := counts(t0.Add(3 * time.Minute)); c.Purchases != 2 || c.Units != 5 {
		t.Fatalf("the future order, refunded a unit before it was due: %+v", c)
	}
	e.RemovePurchase(1, t0.Add(-31*day), 1, 5, t0.Add(3*time.Minute))
	e.RemovePurchase(2, t0, 1, 1, t0.Add(3*time.Minute)) // a product never counted
	if c := counts(t0.Add(3 * time.Minute)); c.Purchases != 2 || c.Units != 5 {
		t.Fatalf("after removals outside every window: %+v", c)
	}
	e2 := newEngine()
	e2.AddPurchase(1, t0.Add(time.Minute), 2, t0)
	e2.RemovePurchase(1, t0.Add(time.Minute), 1, 2, t0)
	if c := e2.Counts(1, t0.Add(2*time.Minute), time.Hour, day); c.Purchases != 0 || c.Units != 0 {
		t.Fatalf("a future order cancelled before it was due: %+v", c)
	}
}
