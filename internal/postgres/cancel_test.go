package postgres_test

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres/pgtest"
)

func cancelOf(brandID, order string, items ...svc.CancelItem) *svc.CancelEvent {
	c := &svc.CancelEvent{BrandID: brandID, OrderID: order, Items: items}
	c.Meta = svc.EventMeta{EventID: "cancel-" + order + time.Now().Format(time.RFC3339Nano), ReceivedAt: time.Now(), Keyed: true}
	return c
}

// TestChangeFeedCancels: another node's cancellation of an order this node
// counted comes through the feed; of an order new to this node, read as it
// stands, it does not (it would be taken out twice); this node's own do not.
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
	if len(ch.Cancels) != 1 || ch.Cancels[0].OrderEventID != counted.Purchase.Meta.EventID || ch.Cancels[0].Units != 1 || ch.Cancels[0].Orders != 0 {
		t.Errorf("cancels: %+v, want o1's one unit alone", ch.Cancels)
	}
	if len(ch.Writes) != 1 || ch.Writes[0].Result.Lines[0].Units != 1 {
		t.Errorf("writes: %+v, want o2 with the unit left", ch.Writes)
	}

	// This node's own cancellation, of an order of its own or not.
	if err := a.CancelOrder(ctx, cancelOf(br, "o1")); err != nil {
		t.Fatal(err)
	}
	if ch := poll(); len(ch.Cancels) != 0 || len(ch.Writes) != 0 {
		t.Errorf("own cancellation: %+v", ch)
	}
	// Another node's whole cancellation of the order this node saw fresh.
	if err := b.CancelOrder(ctx, cancelOf(br, "o2")); err != nil {
		t.Fatal(err)
	}
	if ch := poll(); len(ch.Cancels) != 1 || ch.Cancels[0].Orders != 1 || ch.Cancels[0].Units != 1 {
		t.Errorf("cancels: %+v, want o2's last unit and its order", ch.Cancels)
	}
}
