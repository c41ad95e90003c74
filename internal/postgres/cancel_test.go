package postgres_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres"
	"github.com/svc-project/svc/internal/postgres/pgtest"
)

func cancelOf(brandID, order string, items ...svc.CancelItem) *svc.CancelEvent {
	c := &svc.CancelEvent{BrandID: brandID, OrderID: order, Items: items}
	c.Meta = svc.EventMeta{EventID: "cancel-" + order + time.Now().Format(time.RFC3339Nano), ReceivedAt: time.Now(), Keyed: true}
	return c
}

// TestChangeFeedCancels: another node's cancellations come through the
// feed, and its orders as they were ordered, so that each counts once
// whichever node counted which first; this node's own cancellations do not.
func TestChangeFeedCancels(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url), open(t, url)
	br := brand(t, a)
	counted := order(br, "o1", "p1")
	counted.Purchase.Order.Items[0].Quantity = new(int64(3))
	if err := b.Append(ctx, []*svc.Write{counted}); err != nil {
		t.Fatal(err)
	}
	cur, err := a.ReadSnapshot(ctx, func(svc.EventReader) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	poll := func() *svc.Changes {
		t.Helper()
		ch, err := a.Changes(ctx, cur)
		if err != nil {
			t.Fatal(err)
		}
		cur = ch.Cursor
		return ch
	}
	one := int64(1)
	if err := b.CancelOrder(ctx, cancelOf(br, "o1", svc.CancelItem{ProductID: "p1", Quantity: &one})); err != nil {
		t.Fatal(err)
	}
	fresh := order(br, "o2", "p1")
	fresh.Purchase.Order.Items[0].Quantity = new(int64(2))
	if err := b.Append(ctx, []*svc.Write{fresh}); err != nil {
		t.Fatal(err)
	}
	if err := b.CancelOrder(ctx, cancelOf(br, "o2", svc.CancelItem{ProductID: "p1", Quantity: &one})); err != nil {
		t.Fatal(err)
	}
	ch := poll()
	if len(ch.Cancels) != 2 || ch.Cancels[0].OrderEventID != counted.Purchase.Meta.EventID || ch.Cancels[0].Units != 1 || ch.Cancels[0].Orders != 0 ||
		ch.Cancels[1].OrderEventID != fresh.Purchase.Meta.EventID || ch.Cancels[1].Units != 1 {
		t.Errorf("cancels: %+v, want a unit of o1, then of o2", ch.Cancels)
	}
	if len(ch.Writes) != 1 || ch.Writes[0].Result.Lines[0].Units != 2 {
		t.Errorf("writes: %+v, want o2 with the 2 units ordered", ch.Writes)
	}

	// This node's own cancellation, of an order of its own or not.
	if err := a.CancelOrder(ctx, cancelOf(br, "o1")); err != nil {
		t.Fatal(err)
	}
	if ch := poll(); len(ch.Cancels) != 0 || len(ch.Writes) != 0 {
		t.Errorf("own cancellation: %+v", ch)
	}
	// Another node's whole cancellation of the order.
	if err := b.CancelOrder(ctx, cancelOf(br, "o2")); err != nil {
		t.Fatal(err)
	}
	if ch := poll(); len(ch.Cancels) != 1 || ch.Cancels[0].Orders != 1 || ch.Cancels[0].Units != 1 {
		t.Errorf("cancels: %+v, want o2's last unit and its order", ch.Cancels)
	}
	// An order wholly cancelled before this node met it still comes, whole.
	gone := order(br, "o4", "p1")
	if err := b.Append(ctx, []*svc.Write{gone}); err != nil {
		t.Fatal(err)
	}
	if err := b.CancelOrder(ctx, cancelOf(br, "o4")); err != nil {
		t.Fatal(err)
	}
	if ch := poll(); len(ch.Writes) != 1 || ch.Writes[0].Result.Lines[0].Units != 1 || len(ch.Cancels) != 1 || ch.Cancels[0].Orders != 1 {
		t.Errorf("an order and its cancellation: %+v, %+v", ch.Writes, ch.Cancels)
	}
}

// TestNodesRaceOnCancellations has two nodes take the same order and its
// cancellation at the same moment, and the same refund with one
// Idempotency-Key: whoever commits first, the order ends cancelled and the
// refund takes its units out once.
func TestNodesRaceOnCancellations(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url), open(t, url)
	br := brand(t, a)
	race := func(fa, fb func() error) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, f := range []func() error{fa, fb} {
			wg.Go(func() {
				<-start
				errs[i] = f()
			})
		}
		close(start)
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
	}
	const rounds = 30
	for i := range rounds {
		o := order(br, fmt.Sprint("race-", i), "p1")
		o.Purchase.Meta.Keyed = true
		race(func() error { return a.Append(ctx, []*svc.Write{o}) },
			func() error { return b.CancelOrder(ctx, cancelOf(br, fmt.Sprint("race-", i))) })

		kept := order(br, fmt.Sprint("refund-", i), "p2")
		kept.Purchase.Order.Items[0].Quantity = new(int64(5))
		if err := a.Append(ctx, []*svc.Write{kept}); err != nil {
			t.Fatal(err)
		}
		refund := func(s *postgres.Store) func() error {
			return func() error {
				two := int64(2)
				c := cancelOf(br, fmt.Sprint("refund-", i), svc.CancelItem{ProductID: "p2", Quantity: &two})
				c.IdempotencyKey, c.BodyHash = fmt.Sprint("refund-", i), [32]byte{1}
				return s.CancelOrder(ctx, c)
			}
		}
		race(refund(a), refund(b))
	}
	units := map[svc.ProductRef]int64{}
	if err := a.PurchaseLines(ctx, time.Now().Add(-time.Hour), func(r svc.PurchaseRecord) error { units[r.Product] += r.Units; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(units) != 1 {
		t.Fatalf("units by product %v: want p2's alone, every raced order cancelled", units)
	}
	for _, u := range units {
		if u != 3*rounds {
			t.Fatalf("p2 has %d units left, want %d: each refund of 2 taken out once", u, 3*rounds)
		}
	}
}

// TestNodesRaceRefundAndOrder: a refund of 1 unit on one node and its
// keyed order of 5 on another, at the same moment, in batches with other
// orders: whichever commits first, the order counts 4 units, never 5 (the
// refund missed) nor 0 (the order taken for cancelled).
func TestNodesRaceRefundAndOrder(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url), open(t, url)
	br := brand(t, a)
	const rounds = 40
	for i := range rounds {
		id := fmt.Sprint("overtaken-", i)
		o := order(br, id, "p1")
		o.Purchase.Meta.Keyed = true
		o.Purchase.Order.Items[0].Quantity = new(int64(5))
		other := order(br, fmt.Sprint("other-", i), "p2")
		other.Purchase.Meta.Keyed = true
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		wg.Go(func() { <-start; errs[0] = a.Append(ctx, []*svc.Write{other, o}) })
		wg.Go(func() {
			<-start
			one := int64(1)
			errs[1] = b.CancelOrder(ctx, cancelOf(br, id, svc.CancelItem{ProductID: "p1", Quantity: &one}))
		})
		close(start)
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if o.Result.Status != svc.StatusAccepted {
			t.Fatalf("round %d: the order %+v", i, o.Result)
		}
	}
	units := map[svc.ProductRef]int64{}
	if err := a.PurchaseLines(ctx, time.Now().Add(-time.Hour), func(r svc.PurchaseRecord) error { units[r.Product] += r.Units; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(units) != 2 {
		t.Fatalf("units by product %v", units)
	}
	for _, u := range units {
		if u != rounds && u != 4*rounds {
			t.Fatalf("units by product %v: want %d of p2 and %d of p1", units, rounds, 4*rounds)
		}
	}
}
