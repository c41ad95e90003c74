package tracker

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/purchasefeed"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/window"
)

// snapshotFixture is one store in a temporary folder with one brand, and a
// clock that stands still, so that trackers opened one after the other
// answer for the same moment.
type snapshotFixture struct {
	store *sqlite.Store
	path  string
	now   time.Time
	seed  uint64
	order atomic.Int64
}

const snapProducts = 24

func newSnapshotFixture(t *testing.T) *snapshotFixture {
	t.Helper()
	ctx := context.Background()
	dir := sqlitetest.Dir(t) // migrated once per test binary
	store, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	now := time.Now().UTC().Truncate(time.Second)
	if err := store.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	return &snapshotFixture{store: store, path: filepath.Join(dir, "counts.snapshot"), now: now}
}

// open opens a tracker on the store; with snapshot set it uses the
// snapshot file. Its log is returned.
func (f *snapshotFixture) open(t *testing.T, snapshot bool) (*Tracker, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	cfg := Config{Now: func() time.Time { return f.now }, Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs}, nil)),
		SnapshotInterval: -1, EventLog: f.store, Catalog: enrich.NewCatalog()}
	if snapshot {
		cfg.SnapshotPath = f.path
	}
	tr, err := Open(context.Background(), f.store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr, &logs
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// crash stops a tracker as a killed process would: every acknowledged
// event is in the store, and nothing is saved.
func crash(tr *Tracker) {
	tr.stop()
	tr.wg.Wait()
	tr.batch.close()
}

// send collects n events of every kind the engine treats apart: views late
// by up to three hours, views ahead of the clock (they wait in the engine),
// repeat and anonymous sessions, backfills outside every view window, and
// orders with prices.
//
// A few hundred events give each of the snapProducts products every kind
// (of 1,000: some 40 views, 4 orders, 2 views ahead of the clock, a
// backfill); each is a commit to SQLite, some 2 ms of CPU under the race
// detector, so the tests send no more than their property needs.
func (f *snapshotFixture) send(t *testing.T, tr *Tracker, n int) {
	t.Helper()
	const senders = 8 // so that commits carry several events, as under load
	var wg sync.WaitGroup
	for range senders {
		f.seed++
		rng := rand.New(rand.NewPCG(f.seed, 7))
		wg.Go(func() {
			for range n / senders {
				if err := f.sendOne(tr, rng); err != nil {
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

func (f *snapshotFixture) sendOne(tr *Tracker, rng *rand.Rand) error {
	product := fmt.Sprint("p", rng.IntN(snapProducts))
	at := f.now.Add(-time.Duration(rng.IntN(3*3600)) * time.Second)
	switch r := rng.IntN(100); {
	case r < 5:
		at = f.now.Add(time.Duration(1+rng.IntN(240)) * time.Second)
	case r < 8:
		at = f.now.Add(-time.Duration(8*24+rng.IntN(48)) * time.Hour)
	}
	ts := at.Format(time.RFC3339)
	if rng.IntN(10) == 0 {
		q, price, cur := int64(1+rng.IntN(3)), float64(10+rng.IntN(90)), "EUR"
		ev := &svc.PurchaseEvent{BrandID: "br_1", Context: svc.PurchaseContext{Timestamp: &ts},
			Order: svc.Order{OrderID: fmt.Sprint("o", f.order.Add(1)), Currency: &cur,
				Items: []svc.PurchaseItem{{ProductID: product, Quantity: &q, UnitPrice: &price}}}}
		return CollectPurchase(tr, ev)
	}
	ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: product}, Context: svc.ViewContext{Timestamp: &ts}}
	if rng.IntN(10) > 0 {
		session := fmt.Sprint("s", rng.IntN(60))
		ev.Context.SessionID = &session
	}
	return CollectView(tr, ev)
}

// sameCounts compares every product's counts and prices in two trackers,
// over windows of many sizes, at now and at each later offset given (the
// events ahead of the clock come due). A tracker read at a later time must
// not be fed events of an earlier clock afterwards: its future events have
// joined the timelines.
// sameAsReplay checks that got counts what a tracker that replays every
// event of the fixture's store counts, now and later.
func (f *snapshotFixture) sameAsReplay(t *testing.T, got *Tracker, later ...time.Duration) {
	t.Helper()
	replayed, _ := f.open(t, false)
	defer replayed.Close()
	sameCounts(t, replayed, got, f.now, later...)
}

func sameCounts(t *testing.T, want, got *Tracker, now time.Time, later ...time.Duration) {
	t.Helper()
	for p := range snapProducts {
		ref, ok := want.products.Ref("br_1", fmt.Sprint("p", p))
		if gotRef, gotOK := got.products.Ref("br_1", fmt.Sprint("p", p)); ok != gotOK || ref != gotRef {
			t.Fatalf("p%d: ref %d %v, want %d %v", p, gotRef, gotOK, ref, ok)
		}
		if !ok {
			continue
		}
		for _, later := range append([]time.Duration{0}, later...) {
			for _, w := range []time.Duration{time.Minute, 15 * time.Minute, time.Hour, 3 * time.Hour, 24 * time.Hour, svc.MaxViewWindow} {
				a := want.Counts(ref, now.Add(later), w, 4*w)
				b := got.Counts(ref, now.Add(later), w, 4*w)
				if a != b {
					t.Fatalf("p%d at +%s, window %s: %+v, want %+v (a full replay)", p, later, w, b, a)
				}
			}
		}
		if a, b := pricesOf(want).Prices(ref, "EUR", now), pricesOf(got).Prices(ref, "EUR", now); a != b {
			t.Fatalf("p%d: prices %+v, want %+v", p, b, a)
		}
	}
	// The recent purchases, every one the feed holds.
	all := purchasefeed.Rules{RecentSettings: svc.RecentSettings{Window: svc.MaxRecentWindow, MaxItems: 1 << 20, K: 1}, MinPurchases: 1}
	a := want.beside.Load().purchases.Recent("br_1", 0, all, now)
	b := got.beside.Load().purchases.Recent("br_1", 0, all, now)
	if !slices.Equal(a, b) {
		t.Fatalf("recent purchases: %d, want %d (a full replay)\n got %v\nwant %v", len(b), len(a), b, a)
	}
}

func wantLog(t *testing.T, logs *bytes.Buffer, msg string) {
	t.Helper()
	if !strings.Contains(logs.String(), msg) {
		t.Fatalf("the log lacks %q:\n%s", msg, logs)
	}
}

// A clean restart loads the snapshot and counts what a full replay counts.
func TestRestartFromSnapshotCountsAsReplay(t *testing.T) {
	f := newSnapshotFixture(t)
	tr, _ := f.open(t, true)
	f.send(t, tr, 1000)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	restored, logs := f.open(t, true)
	defer restored.Close()
	wantLog(t, logs, "counts restored from the snapshot")
	wantLog(t, logs, "views_after=0 purchase_lines_after=0")
	if strings.Contains(logs.String(), "reading them from the store") {
		t.Fatalf("the recent purchases and prices were read from the store, not the snapshot:\n%s", logs)
	}
	f.sameAsReplay(t, restored, 5*time.Minute)
}

// A snapshot written before it kept the recent purchases and prices (or
// whose kept section is refused) restores the counts, and reads those
// from the store.
func TestSnapshotWithoutKeptReadsThemFromTheStore(t *testing.T) {
	f := newSnapshotFixture(t)
	tr, _ := f.open(t, true)
	f.send(t, tr, 600)
	if err := tr.snaps.Save(context.Background(), tr.engine.Load(), nil, commitPath{tr}, tr.erasure.Load()); err != nil {
		t.Fatal(err)
	}
	f.send(t, tr, 200)
	f.cancelSome(t, tr, 40)
	crash(tr)
	restored, logs := f.open(t, true)
	defer restored.Close()
	wantLog(t, logs, "counts restored from the snapshot")
	wantLog(t, logs, `recent purchases and prices: reading them from the store" why="the snapshot keeps none"`)
	f.sameAsReplay(t, restored, 5*time.Minute)
}

// A crash after a periodic snapshot loses nothing: the events committed
// after it are read from the store, each once.
func TestCrashAfterSnapshotReplaysTheRestOnce(t *testing.T) {
	f := newSnapshotFixture(t)
	tr, _ := f.open(t, true)
	f.send(t, tr, 700)
	if err := tr.saveSnapshot(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.send(t, tr, 300)
	crash(tr)
	restored, logs := f.open(t, true)
	wantLog(t, logs, "counts restored from the snapshot")
	if strings.Contains(logs.String(), "views_after=0 ") {
		t.Fatalf("no views read after the snapshot:\n%s", logs)
	}
	f.sameAsReplay(t, restored)

	// And again from the snapshot the restored tracker saves at Close.
	f.send(t, restored, 200)
	if err := restored.Close(); err != nil {
		t.Fatal(err)
	}
	again, logs := f.open(t, true)
	defer again.Close()
	wantLog(t, logs, "counts restored from the snapshot")
	f.sameAsReplay(t, again, 5*time.Minute)
}

// Snapshots taken while writers send are each a consistent cut: after a
// crash, the counts are exactly what was acknowledged.
func TestSnapshotsDuringWritesLoseAndDoubleNothing(t *testing.T) {
	f := newSnapshotFixture(t)
	tr, _ := f.open(t, true)
	ctx := context.Background()
	var views, orders atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				// One product in each of a few shards, so that writes meet the cut.
				product := fmt.Sprint("p", i%snapProducts)
				if i%4 == 3 {
					q := int64(2)
					ev := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: fmt.Sprintf("o%d-%d", w, i),
						Items: []svc.PurchaseItem{{ProductID: product, Quantity: &q}}}}
					if err := CollectPurchase(tr, ev); err != nil {
						t.Error(err)
						return
					}
					orders.Add(1)
					continue
				}
				session := fmt.Sprintf("s%d-%d", w, i)
				ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: product}, Context: svc.ViewContext{SessionID: &session}}
				if err := CollectView(tr, ev); err != nil {
					t.Error(err)
					return
				}
				views.Add(1)
			}
		})
	}
	// Only the last save is restored: the one before it is there so that
	// a save replaces a snapshot while writers send. Each more costs the
	// writers' commits meanwhile, and checks nothing more.
	for range 2 {
		if err := tr.saveSnapshot(ctx); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	crash(tr)
	restored, logs := f.open(t, true)
	defer restored.Close()
	wantLog(t, logs, "counts restored from the snapshot")
	var got [4]int64
	for p := range snapProducts {
		ref, _ := restored.products.Ref("br_1", fmt.Sprint("p", p))
		c := restored.Counts(ref, f.now, time.Hour, time.Hour)
		got[0] += c.Views
		got[1] += c.Viewers
		got[2] += c.Purchases
		got[3] += c.Units
	}
	if want := [4]int64{views.Load(), views.Load(), orders.Load(), 2 * orders.Load()}; got != want || views.Load() == 0 {
		t.Fatalf("views, viewers, orders, units: %v, acknowledged %v", got, want)
	}
}

// Each shard is cut at its own position: events committed between the
// cuts are in the snapshot for the shards cut after them, and read from the
// store for the shards cut before, each once.
func TestEachShardCutAtItsOwnPosition(t *testing.T) {
	f := newSnapshotFixture(t)
	tr, _ := f.open(t, true)
	f.send(t, tr, 400)
	rng := rand.New(rand.NewPCG(9, 9))
	byShard := map[int]bool{}
	for p := range snapProducts {
		ref, _ := tr.products.Ref("br_1", fmt.Sprint("p", p))
		byShard[window.ShardOf(ref)] = true
	}
	// Before each shard of a product is cut, events land in it and in the
	// others: the newest row at each cut is the shard's own.
	tr.beforeCut = func(shard int) {
		if !byShard[shard] {
			return
		}
		for range 3 {
			if err := f.sendOne(tr, rng); err != nil {
				t.Error(err)
			}
		}
		for p := range snapProducts {
			if ref, _ := tr.products.Ref("br_1", fmt.Sprint("p", p)); window.ShardOf(ref) == shard {
				q := int64(1)
				order := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: fmt.Sprint("cut", shard),
					Items: []svc.PurchaseItem{{ProductID: fmt.Sprint("p", p), Quantity: &q}}}}
				session := fmt.Sprint("cut", shard)
				view := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", p)}, Context: svc.ViewContext{SessionID: &session}}
				if err := CollectPurchase(tr, order); err != nil {
					t.Error(err)
				}
				if err := CollectView(tr, view); err != nil {
					t.Error(err)
				}
			}
		}
	}
	if err := tr.saveSnapshot(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr.beforeCut = nil
	f.send(t, tr, 200)
	crash(tr)
	restored, logs := f.open(t, true)
	defer restored.Close()
	wantLog(t, logs, "counts restored from the snapshot")
	f.sameAsReplay(t, restored, 5*time.Minute)
}

// A damaged or truncated snapshot is ignored: the counts are replayed.
// Each damage is done to a copy of the same snapshot, of the same events:
// sending them once is enough.
func TestDamagedSnapshotIsIgnored(t *testing.T) {
	f := newSnapshotFixture(t)
	tr, _ := f.open(t, true)
	f.send(t, tr, 400)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(f.path)
	if err != nil {
		t.Fatal(err)
	}
	for _, damage := range []struct {
		name string
		fn   func([]byte) []byte
	}{
		{"a bit flipped", func(b []byte) []byte { b[len(b)/2] ^= 4; return b }},
		{"truncated", func(b []byte) []byte { return b[:len(b)*2/3] }},
		{"empty", func([]byte) []byte { return nil }},
	} {
		t.Run(damage.name, func(t *testing.T) {
			if err := os.WriteFile(f.path, damage.fn(slices.Clone(saved)), 0o600); err != nil {
				t.Fatal(err)
			}
			restored, logs := f.open(t, true)
			defer restored.Close() // saves a sound snapshot, which the next damage replaces
			wantLog(t, logs, "snapshot ignored: replaying every event")
			wantLog(t, logs, "corrupt")
			f.sameAsReplay(t, restored)
		})
	}
}

// An erasure after the snapshot was written forces the full replay, and a
// recount in a running server removes the snapshot.
func TestErasureInvalidatesSnapshot(t *testing.T) {
	f := newSnapshotFixture(t)
	ctx := context.Background()
	tr, _ := f.open(t, true)
	f.send(t, tr, 400)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := f.store.ForgetSession(ctx, "br_1", "s7"); err != nil || n == 0 {
		t.Fatalf("forget: %d, %v", n, err)
	}
	restored, logs := f.open(t, true)
	wantLog(t, logs, "events were erased since it was written")
	f.sameAsReplay(t, restored)

	// Running: a save, an erasure, the recount; the snapshot is gone.
	if err := restored.saveSnapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := f.store.ForgetSession(ctx, "br_1", "s8"); err != nil || n == 0 {
		t.Fatalf("forget: %d, %v", n, err)
	}
	restored.followErasures(ctx)
	f.sameAsReplay(t, restored) // the prices too: a recount swaps them in whole
	if _, err := os.Stat(f.path); !os.IsNotExist(err) {
		t.Fatalf("the snapshot is still there after a recount: %v", err)
	}
	if err := restored.Close(); err != nil { // saves again, at the new version
		t.Fatal(err)
	}
	again, logs := f.open(t, true)
	defer again.Close()
	wantLog(t, logs, "counts restored from the snapshot")
	f.sameAsReplay(t, again)
}

// When the newest row a snapshot names expires, the store may give its id
// to a later event: the snapshot is then refused, not trusted. (The
// embedded store also bumps its erasure version then, for its change feed,
// which refuses it first.)
func TestSnapshotRefusedWhenItsNewestEventExpired(t *testing.T) {
	f := newSnapshotFixture(t)
	ctx := context.Background()
	tr, _ := f.open(t, true)
	f.send(t, tr, 200)
	// The newest view: a backfill at the edge of the retention.
	ts, session := f.now.Add(-svc.DefaultRetention+time.Minute).Format(time.RFC3339), "old"
	ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"}, Context: svc.ViewContext{Timestamp: &ts, SessionID: &session}}
	if err := CollectView(tr, ev); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.DeleteExpired(ctx, f.now.Add(-svc.DefaultRetention+time.Hour), f.now, 1000); err != nil {
		t.Fatal(err)
	}
	tr, _ = f.open(t, false)
	f.send(t, tr, 50) // the first takes the expired view's id
	crash(tr)
	restored, logs := f.open(t, true)
	defer restored.Close()
	wantLog(t, logs, "snapshot ignored: replaying every event")
	f.sameAsReplay(t, restored)
}
