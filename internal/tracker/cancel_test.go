package tracker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/purchasefeed"
)

// cancelSome cancels n orders of the fixture picked at random, wholly or
// a unit of them, from several goroutines.
func (f *snapshotFixture) cancelSome(t *testing.T, tr *Tracker, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for range 4 {
		f.seed++
		rng := rand.New(rand.NewPCG(f.seed, 11))
		wg.Go(func() {
			for range n / 4 {
				if err := f.cancelOne(tr, rng); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

func (f *snapshotFixture) cancelOne(tr *Tracker, rng *rand.Rand) error {
	c := &svc.CancelEvent{BrandID: "br_1", OrderID: fmt.Sprint("o", 1+rng.Int64N(f.order.Load()+3))}
	if rng.IntN(2) == 0 {
		// Of any product: most take nothing out, some a unit of the order's.
		one := int64(1)
		c.Items = []svc.CancelItem{{ProductID: fmt.Sprint("p", rng.IntN(snapProducts)), Quantity: &one}}
	}
	return tr.Cancel(context.Background(), c)
}

// Cancellations take purchases out of the counts and the prices as they
// come, exactly as a replay of the store then counts them: whole orders,
// single units, orders dated ahead of the clock, and orders never seen.
func TestCancelCountsAsReplay(t *testing.T) {
	f := newSnapshotFixture(t)
	tr, _ := f.open(t, false)
	defer tr.Close()
	f.send(t, tr, 1000)
	f.cancelSome(t, tr, 140)
	f.sameAsReplay(t, tr, 5*time.Minute)
}

// A product's order leaves the proof with its last unit; a refund of part
// of it takes out units only; repeats change nothing.
func TestCancelProof(t *testing.T) {
	f := newSnapshotFixture(t)
	tr, _ := f.open(t, false)
	defer tr.Close()
	ts := f.now.Add(-time.Hour).Format(time.RFC3339)
	for _, id := range []string{"A", "B"} {
		q, price, cur := int64(3), 10.0, "EUR"
		ev := &svc.PurchaseEvent{BrandID: "br_1", Context: svc.PurchaseContext{Timestamp: &ts}, Order: svc.Order{OrderID: id, Currency: &cur,
			Items: []svc.PurchaseItem{{ProductID: "p1", Quantity: &q, UnitPrice: &price}}}}
		if err := CollectPurchase(tr, ev); err != nil {
			t.Fatal(err)
		}
	}
	want := func(purchases, units int64, prices int) {
		t.Helper()
		p, err := DefaultProof(tr, "br_1", "p1")
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := tr.products.Ref("br_1", "p1")
		st := pricesOf(tr).Prices(ref, "EUR", f.now)
		if p.Purchases != purchases || p.Units != units || st.Purchases != prices {
			t.Errorf("purchases %d, units %d, prices %d; want %d, %d, %d", p.Purchases, p.Units, st.Purchases, purchases, units, prices)
		}
	}
	cancel := func(order string, qty int64, status string) {
		t.Helper()
		c := &svc.CancelEvent{BrandID: "br_1", OrderID: order}
		if qty > 0 {
			c.Items = []svc.CancelItem{{ProductID: "p1", Quantity: &qty}}
		}
		if err := tr.Cancel(context.Background(), c); err != nil || c.Result.Status != status {
			t.Fatalf("cancel %s: %+v, %v", order, c.Result, err)
		}
	}
	want(2, 6, 2)
	cancel("A", 1, svc.StatusAccepted)
	want(2, 5, 2)
	cancel("A", 0, svc.StatusAccepted)
	want(1, 3, 1)
	cancel("A", 0, svc.StatusDuplicate)
	cancel("B", 5, svc.StatusAccepted)
	want(0, 0, 0)
}

// A cancellation after the last snapshot, of an order before it or after
// it, survives a crash: the restored counts are a replay's.
func TestCancelAfterSnapshotSurvivesCrash(t *testing.T) {
	f := newSnapshotFixture(t)
	tr, _ := f.open(t, true)
	f.send(t, tr, 700)
	f.cancelSome(t, tr, 36)
	if err := tr.saveSnapshot(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.send(t, tr, 300)
	f.cancelSome(t, tr, 100)
	crash(tr)
	restored, logs := f.open(t, true)
	wantLog(t, logs, "counts restored from the snapshot")
	f.sameAsReplay(t, restored) // not later yet: it is fed more below
	// What the restore left of each order line is what later cancellations
	// take from: a unit taken twice would show when the rest is taken.
	f.cancelSome(t, restored, 200)
	f.sameAsReplay(t, restored, 5*time.Minute)
	restored.Close()
}

// An order placed after the snapshot and partly cancelled after it is
// read back as it stands: the restore does not take the cancelled units
// out of it again, so what is left of it leaves with the last of them.
func TestPartialCancelOfAnOrderAfterTheSnapshot(t *testing.T) {
	f := newSnapshotFixture(t)
	tr, _ := f.open(t, true)
	f.send(t, tr, 100)
	if err := tr.saveSnapshot(context.Background()); err != nil {
		t.Fatal(err)
	}
	ts := f.now.Add(-time.Hour).Format(time.RFC3339)
	q, price, cur := int64(3), 20.0, "EUR"
	order := &svc.PurchaseEvent{BrandID: "br_1", Context: svc.PurchaseContext{Timestamp: &ts}, Order: svc.Order{OrderID: "late", Currency: &cur,
		Items: []svc.PurchaseItem{{ProductID: "p1", Quantity: &q, UnitPrice: &price}}}}
	if err := CollectPurchase(tr, order); err != nil {
		t.Fatal(err)
	}
	one := int64(1)
	unit := func(tr *Tracker) {
		t.Helper()
		c := &svc.CancelEvent{BrandID: "br_1", OrderID: "late", Items: []svc.CancelItem{{ProductID: "p1", Quantity: &one}}}
		if err := tr.Cancel(context.Background(), c); err != nil || c.Result.Status != svc.StatusAccepted {
			t.Fatalf("cancel: %+v, %v", c.Result, err)
		}
	}
	unit(tr) // 2 left
	crash(tr)
	restored, logs := f.open(t, true)
	defer restored.Close()
	wantLog(t, logs, "counts restored from the snapshot")
	unit(restored) // 1 left: still an order of p1, in the feed too
	f.sameAsReplay(t, restored)
	late := func(tr *Tracker) bool {
		ref, _ := tr.products.Ref("br_1", "p1")
		all := purchasefeed.Rules{RecentSettings: svc.RecentSettings{Window: svc.MaxRecentWindow, MaxItems: 1 << 20, K: 1}, MinPurchases: 1}
		return len(tr.beside.Load().purchases.Recent("br_1", ref, all, f.now)) > 0
	}
	if !late(restored) {
		t.Fatal("the order with a unit left is not in the recent purchases")
	}
}

// Snapshots cut while orders come and go are consistent: after a crash,
// the counts are exactly what was acknowledged.
func TestSnapshotsDuringCancelsLoseAndDoubleNothing(t *testing.T) {
	f := newSnapshotFixture(t)
	tr, _ := f.open(t, true)
	f.send(t, tr, 400)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := tr.saveSnapshot(context.Background()); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 3 {
		f.send(t, tr, 150)
		f.cancelSome(t, tr, 40)
	}
	close(stop)
	wg.Wait()
	crash(tr)
	restored, logs := f.open(t, true)
	defer restored.Close()
	if !strings.Contains(logs.String(), "counts restored from the snapshot") {
		t.Fatalf("not restored:\n%s", logs)
	}
	f.sameAsReplay(t, restored, 5*time.Minute)
}
