package tracker

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/sqlite"
)

// openFollowing opens a tracker that follows the fixture's store's change
// feed, as svc serve does on the embedded store, saving its counts.
func (f *snapshotFixture) openFollowing(t *testing.T) (*Tracker, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	cfg := Config{Now: func() time.Time { return f.now }, Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs}, nil)),
		SnapshotInterval: -1, EventLog: f.store, ChangeFeed: f.store, SnapshotPath: f.path, Catalog: enrich.NewCatalog()}
	tr, err := Open(context.Background(), f.store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr, &logs
}

// otherProcess is a second Store on the fixture's file, as svc import is.
type otherProcess struct {
	f     *snapshotFixture
	store *sqlite.Store
	n     int
	last  [2]string // the id and product of the newest order
}

func (f *snapshotFixture) otherProcess(t *testing.T) *otherProcess {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Dir(f.path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &otherProcess{f: f, store: s}
}

// write appends, for each product given, a view, an add-to-cart and an
// order of 3 units with a price, a minute before the fixture's now.
func (o *otherProcess) write(t *testing.T, products ...string) {
	t.Helper()
	at := o.f.now.Add(-time.Minute)
	var batch []*svc.Write
	for _, p := range products {
		o.n++
		session := fmt.Sprint("other-", o.n)
		meta := func() svc.EventMeta {
			o.n++
			return svc.EventMeta{EventID: fmt.Sprint("other-ev-", o.n), Time: at, ReceivedAt: at, Keyed: true}
		}
		v := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: p}, Context: svc.ViewContext{SessionID: &session}, Meta: meta()}
		c := &svc.CartEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: p}, Context: svc.ViewContext{SessionID: &session}, Meta: meta()}
		q, price, cur := int64(3), 42.0, "EUR"
		o.last = [2]string{fmt.Sprint("other-o", o.n), p}
		e := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: o.last[0], Currency: &cur,
			Items: []svc.PurchaseItem{{ProductID: p, Quantity: &q, UnitPrice: &price}}}, Meta: meta()}
		batch = append(batch, &svc.Write{View: v, MayRegister: true}, &svc.Write{Cart: c, MayRegister: true}, &svc.Write{Purchase: e, MayRegister: true})
	}
	if err := o.store.Append(context.Background(), batch); err != nil {
		t.Error(err) // not Fatal: it may run beside the test's goroutine
		return
	}
	for _, w := range batch {
		if w.Result.Err != nil || w.Result.Status != svc.StatusAccepted {
			t.Errorf("%+v", w.Result)
		}
	}
}

// cancel takes a unit out of the other process's newest order.
func (o *otherProcess) cancel(t *testing.T) {
	t.Helper()
	one := int64(1)
	o.n++
	c := &svc.CancelEvent{BrandID: "br_1", OrderID: o.last[0], Items: []svc.CancelItem{{ProductID: o.last[1], Quantity: &one}}}
	c.Meta = svc.EventMeta{EventID: fmt.Sprint("other-cancel-", o.n), Time: o.f.now, ReceivedAt: o.f.now, Keyed: true}
	if err := o.store.CancelOrder(context.Background(), c); err != nil || c.Result.Status != svc.StatusAccepted || len(c.Result.Removed) != 1 {
		t.Errorf("cancel: %+v %v", c.Result, err)
	}
}

// TestFollowsAnotherProcessOnTheFile: a server on the embedded store counts
// what another process commits to its file (views, carts, orders,
// cancellations, products), once, at its next poll; it saves its counts
// while that process writes between the cuts of the shards, and a restart
// from them, with more written meanwhile, counts everything once.
func TestFollowsAnotherProcessOnTheFile(t *testing.T) {
	ctx := context.Background()
	f := newSnapshotFixture(t)
	other := f.otherProcess(t)
	other.write(t, "p0", "p1") // before the server starts: its rebuild counts them
	tr, _ := f.openFollowing(t)
	f.send(t, tr, 200)
	other.write(t, "p1", "p2", "p3")
	other.cancel(t)
	if _, err := other.store.EnsureProduct(ctx, &svc.Product{BrandID: "br_1", ProductID: "p23"}); err != nil {
		t.Fatal(err)
	}
	tr.pollChanges(ctx)
	if !tr.KnownProduct("br_1", "p23") {
		t.Fatal("a product the other process registered is unknown")
	}
	f.sameAsReplay(t, tr)
	tr.pollChanges(ctx) // nothing twice
	f.sameAsReplay(t, tr)

	// A save while the other process writes before each cut.
	cuts := 0
	tr.beforeCut = func(int) {
		if cuts++; cuts%16 == 0 {
			other.write(t, fmt.Sprint("p", cuts%snapProducts))
		}
	}
	if err := tr.saveSnapshot(ctx); err != nil {
		t.Fatal(err)
	}
	tr.beforeCut = nil
	f.send(t, tr, 100) // after the save: read from the store at the restart
	crash(tr)
	other.write(t, "p4", "p5")
	other.cancel(t)
	restored, logs := f.openFollowing(t)
	defer restored.Close()
	wantLog(t, logs, "counts restored from the snapshot")
	f.sameAsReplay(t, restored)
	other.write(t, "p6")
	restored.pollChanges(ctx)
	f.sameAsReplay(t, restored)
}

// TestFollowsAnotherProcessWritingAtOnce: the server collects and polls its
// feed while another process commits to the file: each of the server's own
// commits lands between others', and the counts equal a full replay.
func TestFollowsAnotherProcessWritingAtOnce(t *testing.T) {
	ctx := context.Background()
	f := newSnapshotFixture(t)
	other := f.otherProcess(t)
	tr, _ := f.openFollowing(t)
	defer tr.Close()
	done := make(chan struct{})
	// The test waits for the other process even when it fails: a t.Error
	// after the test's end would panic and end every test of the package.
	defer func() { <-done }()
	go func() {
		defer close(done)
		for i := range 6 {
			other.write(t, fmt.Sprint("p", i%snapProducts))
			if i%2 == 0 {
				other.cancel(t)
			}
			tr.pollChanges(ctx) // beside the tracker's own polls
		}
	}()
	rounds := 0
	for running := true; running; rounds++ {
		f.send(t, tr, 16)
		select {
		case <-done:
			running = false
		default:
		}
	}
	tr.pollChanges(ctx)
	t.Logf("%d rounds of the server's events beside 6 commits of the other process", rounds)
	f.sameAsReplay(t, tr)
}
