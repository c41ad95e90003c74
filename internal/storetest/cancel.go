package storetest

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

func cancelOf(order string, items ...svc.CancelItem) *svc.CancelEvent {
	c := &svc.CancelEvent{BrandID: "br_1", OrderID: order, Items: items}
	c.Meta = svc.EventMeta{EventID: fmt.Sprintf("ev-cancel-%s-%p", order, c), Time: t0.Add(time.Hour), ReceivedAt: t0.Add(time.Hour), Keyed: true}
	return c
}

func cancel(t *testing.T, s svc.Store, c *svc.CancelEvent) svc.CancelResult {
	t.Helper()
	if err := s.CancelOrder(ctx, c); err != nil {
		t.Fatal(err)
	}
	return c.Result
}

func item(product string, qty int64) svc.CancelItem {
	return svc.CancelItem{ProductID: product, Quantity: &qty}
}

func exportedOrders(t *testing.T, s svc.Store) []*svc.PurchaseEvent {
	t.Helper()
	var out []*svc.PurchaseEvent
	err := s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error {
		if e.Purchase != nil {
			out = append(out, e.Purchase)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func eq(p *float64, v float64) bool { return p != nil && *p == v }

// A whole order's cancellation takes every line out of the replay, the
// prices and the export; it is idempotent, and the order's id stays taken.
func testCancelWholeOrder(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	o := purchase("A-1", "p1", 2)
	o.Purchase.Meta.Keyed = true
	o.Purchase.Order.Currency = ptr("EUR")
	o.Purchase.Order.Items[0].UnitPrice = ptr(10.0)
	o.Purchase.Order.Items = append(o.Purchase.Order.Items, svc.PurchaseItem{ProductID: "p2", Quantity: ptr[int64](1)})
	kept := purchase("A-2", "p1", 1)
	appendAll(t, s, o, kept)

	c := cancelOf("A-1")
	r := cancel(t, s, c)
	if r.Err != nil || r.Status != svc.StatusAccepted || r.EventID != c.Meta.EventID || len(r.Removed) != 2 {
		t.Fatalf("cancel: %+v", r)
	}
	p1, p2 := r.Removed[0], r.Removed[1]
	if p1.Product != o.Result.Lines[0].Product || p1.Units != 2 || p1.Orders != 1 || !p1.Time.Equal(t0) || p1.Currency != "EUR" ||
		!eq(p1.PriceBefore, 10) || p1.PriceAfter != nil || p1.OrderEventID != o.Purchase.Meta.EventID {
		t.Errorf("p1 removed: %+v", p1)
	}
	if p2.Product != o.Result.Lines[1].Product || p2.Units != 1 || p2.Orders != 1 || p2.PriceBefore != nil {
		t.Errorf("p2 removed: %+v", p2)
	}
	if lines := purchaseLines(t, s); len(lines) != 1 || lines[0].Units != 1 {
		t.Errorf("purchase lines after the cancellation: %+v, want A-2's", lines)
	}
	if got := exportedOrders(t, s); len(got) != 1 || got[0].Order.OrderID != "A-2" {
		t.Errorf("exported orders: %+v, want A-2 alone", got)
	}

	again := cancelOf("A-1")
	if r := cancel(t, s, again); r.Status != svc.StatusDuplicate || r.EventID != c.Meta.EventID || len(r.Removed) != 0 {
		t.Errorf("cancel again: %+v, want a duplicate of the first", r)
	}
	reuse, reuseAnon := purchase("A-1", "p3", 1), purchase("A-1", "p3", 1)
	reuse.Purchase.Meta.Keyed = true
	reuse.Purchase.Meta.EventID += "-keyed"
	appendAll(t, s, reuse, reuseAnon)
	for _, w := range []*svc.Write{reuse, reuseAnon} {
		if w.Result.Status != svc.StatusDuplicate {
			t.Errorf("a new order with a cancelled order's id (keyed %v): %+v", w.Purchase.Meta.Keyed, w.Result)
		}
	}
	if lines := purchaseLines(t, s); len(lines) != 1 {
		t.Errorf("purchase lines: %+v", lines)
	}
}

// A partial cancellation takes units out line by line, in line order;
// the product's order counts until none of it is left.
func testCancelPartly(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	o := purchase("B-1", "p1", 1)
	o.Purchase.Meta.Keyed = true
	o.Purchase.Order.Currency = ptr("EUR")
	o.Purchase.Order.Items[0].UnitPrice = ptr(10.0)
	o.Purchase.Order.Items = append(o.Purchase.Order.Items,
		svc.PurchaseItem{ProductID: "p2", Quantity: ptr[int64](1), UnitPrice: ptr(5.0)},
		svc.PurchaseItem{ProductID: "p1", Quantity: ptr[int64](2), UnitPrice: ptr(20.0)})
	appendAll(t, s, o)

	if r := cancel(t, s, cancelOf("B-1", item("nope", 3))); r.Status != svc.StatusDuplicate || r.EventID != o.Purchase.Meta.EventID {
		t.Errorf("a product the order lacks: %+v, want a duplicate naming the order", r)
	}
	r := cancel(t, s, cancelOf("B-1", item("p1", 1), item("nope", 3)))
	if r.Status != svc.StatusAccepted || len(r.Removed) != 1 {
		t.Fatalf("cancel one of p1: %+v", r)
	}
	if x := r.Removed[0]; x.Units != 1 || x.Orders != 0 || !eq(x.PriceBefore, 50.0/3) || !eq(x.PriceAfter, 20) {
		t.Errorf("removed %+v (prices %v, %v): want 1 unit, the order still counted, price 16.67 then 20", x, *x.PriceBefore, x.PriceAfter)
	}
	lines := purchaseLines(t, s) // p2 first now: p1's first line is gone
	if len(lines) != 2 || lines[1].Units != 2 || !eq(lines[1].UnitPrice, 20) || lines[0].Units != 1 {
		t.Errorf("purchase lines: %+v", lines)
	}
	if got := exportedOrders(t, s); len(got) != 1 || len(got[0].Order.Items) != 2 || got[0].Order.Items[0].ProductID != "p2" ||
		*got[0].Order.Items[1].Quantity != 2 {
		t.Errorf("exported: %+v, want p2's line and p1's second with 2 units", got)
	}

	// More than is left takes what is left, and the product's order.
	r = cancel(t, s, cancelOf("B-1", item("p1", 5)))
	if len(r.Removed) != 1 || r.Removed[0].Units != 2 || r.Removed[0].Orders != 1 || r.Removed[0].PriceAfter != nil {
		t.Errorf("cancel the rest of p1: %+v", r)
	}
	if lines := purchaseLines(t, s); len(lines) != 1 || lines[0].Product != o.Result.Lines[1].Product {
		t.Errorf("purchase lines: %+v, want p2 alone", lines)
	}
	if r := cancel(t, s, cancelOf("B-1", item("p1", 1))); r.Status != svc.StatusDuplicate {
		t.Errorf("nothing of p1 left: %+v", r)
	}
}

// An Idempotency-Key makes a repeated partial cancellation answer the
// first answer, and take nothing more out.
func testCancelIdempotency(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	appendAll(t, s, purchase("C-1", "p1", 5))
	keyed := func(body string) *svc.CancelEvent {
		c := cancelOf("C-1", item("p1", 1))
		c.IdempotencyKey, c.BodyHash = "refund-7", sha256.Sum256([]byte(body))
		return c
	}
	first := keyed("a")
	if r := cancel(t, s, first); r.Status != svc.StatusAccepted || r.Replay {
		t.Fatalf("first: %+v", r)
	}
	r := cancel(t, s, keyed("a"))
	if !r.Replay || r.Status != svc.StatusAccepted || r.EventID != first.Meta.EventID || len(r.Removed) != 0 {
		t.Errorf("repeat: %+v", r)
	}
	if r := cancel(t, s, keyed("b")); svc.ErrorCode(r.Err) != svc.ECONFLICT {
		t.Errorf("another body: %+v", r)
	}
	if lines := purchaseLines(t, s); len(lines) != 1 || lines[0].Units != 4 {
		t.Errorf("purchase lines: %+v, want 4 units left", lines)
	}
}

// A whole-order cancellation that comes before its order (webhooks arrive
// out of order) wins: the order, when it comes, is a duplicate and counts
// nothing.
func testCancelBeforeOrder(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	c := cancelOf("D-1")
	if r := cancel(t, s, c); r.Status != svc.StatusAccepted || r.EventID != c.Meta.EventID || len(r.Removed) != 0 {
		t.Fatalf("cancel before the order: %+v", r)
	}
	late := purchase("D-1", "p1", 3)
	late.Purchase.Meta.Keyed = true
	anon := purchase("D-1", "p1", 3)
	anon.Purchase.Meta.EventID += "-anon"
	appendAll(t, s, late, anon)
	for _, w := range []*svc.Write{late, anon} {
		if w.Result.Status != svc.StatusDuplicate || w.Result.EventID != c.Meta.EventID {
			t.Errorf("the order after its cancellation (keyed %v): %+v", w.Purchase.Meta.Keyed, w.Result)
		}
	}
	if lines := purchaseLines(t, s); len(lines) != 0 {
		t.Errorf("purchase lines: %+v", lines)
	}
	if got := exportedOrders(t, s); len(got) != 0 {
		t.Errorf("exported: %+v", got)
	}
	if r := cancel(t, s, cancelOf("D-1")); r.Status != svc.StatusDuplicate || r.EventID != c.Meta.EventID {
		t.Errorf("cancel again: %+v", r)
	}
}

// A refund that comes before its order takes out its units, and only
// those, when the order comes: 1 unit of p1 refunded, then an order of 5
// p1 and 3 p2 counts 4 and 3 (issue 31: it took out the whole order).
// Two refunds add up, and a line they empty leaves the order.
func testRefundBeforeOrder(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	c := cancelOf("G-1", item("p1", 1))
	if r := cancel(t, s, c); r.Status != svc.StatusAccepted || r.EventID != c.Meta.EventID || len(r.Removed) != 0 {
		t.Fatalf("refund before the order: %+v", r)
	}
	o := purchase("G-1", "p1", 5)
	o.Purchase.Meta.Keyed = true
	o.Purchase.Order.Items = append(o.Purchase.Order.Items, svc.PurchaseItem{ProductID: "p2", Quantity: ptr[int64](3)})
	appendAll(t, s, o)
	if o.Result.Status != svc.StatusAccepted || len(o.Result.Lines) != 2 || o.Result.Lines[0].Units != 4 || o.Result.Lines[1].Units != 3 {
		t.Fatalf("the order after a refund of 1 unit: %+v", o.Result)
	}
	lines := purchaseLines(t, s)
	if len(lines) != 2 || lines[0].Units+lines[1].Units != 7 {
		t.Errorf("purchase lines: %+v, want 4 of p1 and 3 of p2", lines)
	}
	if got := exportedOrders(t, s); len(got) != 1 || len(got[0].Order.Items) != 2 || *got[0].Order.Items[0].Quantity != 4 {
		t.Errorf("exported: %+v", got)
	}
	// A refund after the order still takes from what is left.
	if r := cancel(t, s, cancelOf("G-1", item("p1", 4))); r.Status != svc.StatusAccepted || len(r.Removed) != 1 || r.Removed[0].Orders != 1 {
		t.Errorf("the rest of p1: %+v", r)
	}

	// Two refunds before the order: p1's line is emptied and left out.
	cancel(t, s, cancelOf("G-2", item("p1", 1)))
	cancel(t, s, cancelOf("G-2", item("p1", 1), item("p2", 1)))
	o2 := purchase("G-2", "p1", 2)
	o2.Purchase.Meta.Keyed = true
	o2.Purchase.Order.Items = append(o2.Purchase.Order.Items, svc.PurchaseItem{ProductID: "p2", Quantity: ptr[int64](3)})
	appendAll(t, s, o2)
	if o2.Result.Status != svc.StatusAccepted || len(o2.Result.Lines) != 1 || o2.Result.Lines[0].Units != 2 || o2.Result.Lines[0].ProductID != "p2" {
		t.Fatalf("the order after two refunds: %+v", o2.Result)
	}
	// Its repeat is a duplicate, and a whole cancellation takes out the rest.
	again := purchase("G-2", "p1", 2)
	again.Purchase.Meta.Keyed, again.Purchase.Meta.EventID = true, "ev-again"
	appendAll(t, s, again)
	if again.Result.Status != svc.StatusDuplicate {
		t.Errorf("the order again: %+v", again.Result)
	}
	if r := cancel(t, s, cancelOf("G-2")); r.Status != svc.StatusAccepted || len(r.Removed) != 1 || r.Removed[0].Units != 2 {
		t.Errorf("cancel G-2: %+v", r)
	}
}

// An IfCounted cancellation ("not counted yet", a WooCommerce payment that
// failed) takes out a stored order, and records nothing for one not seen:
// when that order comes, it counts.
func testCancelIfCounted(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	c := cancelOf("H-1")
	c.IfCounted = true
	if r := cancel(t, s, c); r.Status != svc.StatusIgnored || len(r.Removed) != 0 {
		t.Fatalf("not counted yet: %+v", r)
	}
	o := purchase("H-1", "p1", 2)
	o.Purchase.Meta.Keyed = true
	appendAll(t, s, o)
	if o.Result.Status != svc.StatusAccepted {
		t.Fatalf("the order after a failed payment: %+v", o.Result)
	}
	c = cancelOf("H-1")
	c.IfCounted = true
	if r := cancel(t, s, c); r.Status != svc.StatusAccepted || len(r.Removed) != 1 || r.Removed[0].Units != 2 {
		t.Errorf("cancel the counted order: %+v", r)
	}
	if lines := purchaseLines(t, s); len(lines) != 0 {
		t.Errorf("purchase lines: %+v", lines)
	}
}

// A keyed cancellation takes out the anonymous order of the id too (the
// same order, sent from the browser), and keeps the id from a keyed one.
func testCancelAnonymousOrder(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	anon := purchase("E-1", "p1", 2)
	appendAll(t, s, anon)
	r := cancel(t, s, cancelOf("E-1"))
	if r.Status != svc.StatusAccepted || len(r.Removed) != 1 || r.Removed[0].Units != 2 {
		t.Fatalf("cancel: %+v", r)
	}
	keyed := purchase("E-1", "p1", 2)
	keyed.Purchase.Meta.Keyed = true
	keyed.Purchase.Meta.EventID += "-keyed"
	appendAll(t, s, keyed)
	if keyed.Result.Status != svc.StatusDuplicate {
		t.Errorf("the keyed order after: %+v", keyed.Result)
	}
	if lines := purchaseLines(t, s); len(lines) != 0 {
		t.Errorf("purchase lines: %+v", lines)
	}
}

// RunEventLog runs the cases of a store that is an svc.EventLog (the
// embedded one; PostgreSQL's nodes follow its change feed instead).
func RunEventLog(t *testing.T, open func(t *testing.T) interface {
	svc.Store
	svc.EventLog
}) {
	t.Run("CancelsInTheLog", func(t *testing.T) { testCancelsInTheLog(t, open(t)) })
	t.Run("RecentPurchasesAfter", func(t *testing.T) { testRecentPurchasesAfter(t, open(t)) })
}

// The purchases after a position come in the log's order, with their
// order's position, as RecentPurchases reads them: since filters by the
// orders' time, and a line cancelled whole is left out.
func testRecentPurchasesAfter(t *testing.T, s interface {
	svc.Store
	svc.EventLog
}) {
	withBrand(t, s, "br_1")
	old := purchase("R-0", "p1", 1)
	old.Purchase.Meta.Time = t0.Add(-48 * time.Hour)
	appendAll(t, s, purchase("R-1", "p1", 2), old)
	p0, err := s.LogPosition(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Backdated, R-4 more than R-2: by time, R-4 would come first.
	r2, r4 := purchase("R-2", "p2", 3), purchase("R-4", "p3", 2)
	r2.Purchase.Meta.Time, r4.Purchase.Meta.Time = t0.Add(-time.Hour), t0.Add(-2*time.Hour)
	appendAll(t, s, purchase("R-3", "p1", 1), r2, r4)
	cancel(t, s, cancelOf("R-3", item("p1", 1)))
	cancel(t, s, cancelOf("R-4", item("p3", 1)))
	var got []string
	var last int64
	err = s.RecentPurchasesAfter(ctx, p0.Orders, t0.Add(-24*time.Hour), func(pos int64, r svc.RecentPurchase) error {
		if pos <= p0.Orders || pos < last {
			t.Errorf("position %d after %d, last %d", pos, p0.Orders, last)
		}
		last = pos
		got = append(got, fmt.Sprintf("%s %d", r.Order, r.Units))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ev-R-2-p2 3", "ev-R-4-p3 1"}; !slices.Equal(got, want) {
		t.Fatalf("purchases after the position: %v, want %v", got, want)
	}
}

// An event log hands the cancellations after a position, with the
// position of their order, which a snapshot's catch-up compares to its own.
func testCancelsInTheLog(t *testing.T, s interface {
	svc.Store
	svc.EventLog
}) {
	l := s
	withBrand(t, s, "br_1")
	o := purchase("F-1", "p1", 3)
	o.Purchase.Meta.Keyed = true
	appendAll(t, s, o)
	p0, err := l.LogPosition(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel(t, s, cancelOf("F-1", item("p1", 1)))
	cancel(t, s, cancelOf("F-1", item("p1", 1)))
	p1, err := l.LogPosition(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p1.Cancels <= p0.Cancels || p1.Orders != p0.Orders {
		t.Fatalf("positions %+v then %+v", p0, p1)
	}
	var got []svc.CancelRecord
	err = l.CancelsAfter(ctx, p0.Cancels, t0.Add(-time.Hour), func(pos int64, r svc.CancelRecord) error {
		if pos <= p0.Cancels || pos > p1.Cancels {
			t.Errorf("position %d outside (%d, %d]", pos, p0.Cancels, p1.Cancels)
		}
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Order != p0.Orders || got[0].Units != 1 || got[1].Units != 1 || !got[0].Time.Equal(t0) {
		t.Errorf("cancels after %d: %+v", p0.Cancels, got)
	}
	if err := l.CancelsAfter(ctx, 0, t0.Add(time.Second), func(int64, svc.CancelRecord) error {
		t.Error("a cancellation of an order before since")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
