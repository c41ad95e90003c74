package tracker

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
)

// lockCommitted must not return while a batch the store has committed is
// still on its way to the counts: a recount taken then would read the
// event from the store and count it again when the applier gets to it.
func TestLockCommittedWaitsForTheApplier(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	applying, release := make(chan struct{}), make(chan struct{})
	b := newBatcher(store, 16, func([]*svc.Write) {
		close(applying)
		<-release
	}, nil)
	defer b.close()

	submitted := make(chan error, 1)
	go func() {
		now := time.Now()
		submitted <- b.submit(&svc.Write{MayRegister: true, View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"},
			Meta: svc.EventMeta{EventID: "ev_1", Time: now, ReceivedAt: now, Keyed: true}}})
	}()
	<-applying // committed, held in apply

	locked := make(chan struct{})
	go func() {
		b.lockCommitted()
		close(locked)
	}()
	select {
	case <-locked:
		close(release) // let close end
		b.unlockCommitted()
		t.Fatal("lockCommitted returned while a committed batch was not yet applied")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	select {
	case <-locked:
	case <-time.After(5 * time.Second):
		t.Fatal("lockCommitted did not return once the batch was applied")
	}
	b.unlockCommitted()
	if err := <-submitted; err != nil {
		t.Fatal(err)
	}
}

// heldSync is the SQLite store with its syncs held until the test lets
// each one go, with what it returns.
type heldSync struct {
	*sqlite.Store
	commits atomic.Int32
	syncs   atomic.Int32
	syncing chan struct{}
	release chan error
	stop    chan struct{} // closed at the end of the test: syncs are let go
}

func (h *heldSync) Commit(ctx context.Context, batch []*svc.Write) error {
	err := h.Store.Commit(ctx, batch)
	h.commits.Add(1)
	return err
}

func (h *heldSync) SyncCommitted() error {
	h.syncs.Add(1)
	select {
	case h.syncing <- struct{}{}:
		select {
		case err := <-h.release:
			if err != nil {
				return err
			}
		case <-h.stop:
		}
	case <-h.stop:
	}
	return h.Store.SyncCommitted()
}

// newHeldBatcher returns a group commit on a held store, and the event ids
// it applied to the counts, in order.
func newHeldBatcher(t *testing.T) (*batcher, *heldSync, func() []string) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	h := &heldSync{Store: store, syncing: make(chan struct{}), release: make(chan error), stop: make(chan struct{})}
	var mu sync.Mutex
	var applied []string
	b := newBatcher(h, 16, func(ws []*svc.Write) {
		mu.Lock()
		defer mu.Unlock()
		for _, w := range ws {
			applied = append(applied, w.View.Meta.EventID)
		}
	}, nil)
	t.Cleanup(b.close)
	t.Cleanup(func() { close(h.stop) }) // first, so that a failed test does not hang in close
	return b, h, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(applied)
	}
}

func submitView(b *batcher, id string) <-chan error {
	done := make(chan error, 1)
	go func() {
		now := time.Now()
		done <- b.submit(&svc.Write{MayRegister: true, View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"},
			Meta: svc.EventMeta{EventID: id, Time: now, ReceivedAt: now, Keyed: true}}})
	}()
	return done
}

func answered(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("no answer")
		return nil
	}
}

// A write is answered, and counted, only after a sync that began after its
// commit; the batches committed during one sync share the next.
func TestWritesWaitForTheirSync(t *testing.T) {
	b, h, applied := newHeldBatcher(t)
	first := submitView(b, "ev_1")
	<-h.syncing // ev_1 is committed; its sync is held
	committed := func(n int32) {
		for deadline := time.Now().Add(5 * time.Second); h.commits.Load() < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d commits, want %d: the writer waits for the sync", h.commits.Load(), n)
			}
		}
	}
	second := submitView(b, "ev_2")
	committed(2) // the writer goes on while the sync is held
	third := submitView(b, "ev_3")
	committed(3)
	select {
	case err := <-first:
		t.Fatalf("answered (%v) before its sync returned", err)
	case <-time.After(100 * time.Millisecond):
	}
	if got := applied(); len(got) != 0 {
		t.Fatalf("counted %v before the sync returned", got)
	}
	h.release <- nil
	if err := answered(t, first); err != nil {
		t.Fatal(err)
	}
	<-h.syncing // one sync for ev_2 and ev_3, committed before it began
	select {
	case err := <-second:
		t.Fatalf("ev_2 answered (%v) before its sync returned", err)
	case <-time.After(100 * time.Millisecond):
	}
	h.release <- nil
	if err := errors.Join(answered(t, second), answered(t, third)); err != nil {
		t.Fatal(err)
	}
	if got := applied(); !slices.Equal(got, []string{"ev_1", "ev_2", "ev_3"}) {
		t.Fatalf("counted %v, want ev_1 to ev_3 in commit order", got)
	}
	if n := h.syncs.Load(); n != 2 {
		t.Fatalf("%d syncs for 3 batches, want 2", n)
	}
}

// A write whose sync fails is answered with the error and never counted.
func TestFailedSyncFailsTheWrite(t *testing.T) {
	b, h, applied := newHeldBatcher(t)
	done := submitView(b, "ev_1")
	<-h.syncing
	h.release <- svc.Errorf(svc.EUNAVAILABLE, "the disk is gone")
	if err := answered(t, done); svc.ErrorCode(err) != svc.EUNAVAILABLE {
		t.Fatalf("answer after a failed sync: %v, want EUNAVAILABLE", err)
	}
	if got := applied(); len(got) != 0 {
		t.Fatalf("counted %v after a failed sync", got)
	}
}
