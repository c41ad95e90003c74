package tracker

import (
	"context"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// lockCommitted must not return while a batch the store has committed is
// still on its way to the counts: a recount taken then would read the
// event from the store and count it again when the applier gets to it.
func TestLockCommittedWaitsForTheApplier(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, sqlitetest.Dir(t))
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
	case <-time.After(testwait.Timeout):
		t.Fatal("lockCommitted did not return once the batch was applied")
	}
	b.unlockCommitted()
	if err := <-submitted; err != nil {
		t.Fatal(err)
	}
}
