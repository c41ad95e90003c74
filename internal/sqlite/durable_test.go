package sqlite

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// syncWatch records the syncs of the log: which file, and how long it
// was then.
type syncWatch struct {
	files []string
	sizes []int64
	err   error // what the sync returns
}

func (w *syncWatch) sync(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	w.files, w.sizes = append(w.files, f.Name()), append(w.sizes, fi.Size())
	if w.err != nil {
		return w.err
	}
	return syncData(f)
}

func watchedStore(t *testing.T) (*Store, *syncWatch) {
	t.Helper()
	s, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	w := &syncWatch{}
	s.log.syncFile = w.sync
	return s, w
}

func testView(i int) *svc.Write {
	now := time.Now()
	ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", i)}}
	ev.Meta = svc.EventMeta{EventID: fmt.Sprint("e", i), Time: now, ReceivedAt: now}
	return &svc.Write{View: ev, MayRegister: true}
}

// The writer commits at synchronous=NORMAL, which does not sync the log:
// every write that returns durable must have synced the log itself, after
// its frames were written.
func TestEveryDurableWriteSyncsTheLog(t *testing.T) {
	ctx := context.Background()
	s, w := watchedStore(t)
	wal := s.path + "-wal"
	walSize := func() int64 {
		fi, err := os.Stat(wal)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	seen := 0
	synced := func(what string, want int) {
		t.Helper()
		if len(w.files) != want {
			t.Fatalf("%s: %d syncs of the log, want %d", what, len(w.files), want)
		}
		if want == seen {
			return // no new sync to check
		}
		seen = want
		if last := len(w.files) - 1; w.files[last] != wal || w.sizes[last] != walSize() {
			t.Fatalf("%s: synced %s at %d bytes; the log %s is %d bytes", what, w.files[last], w.sizes[last], wal, walSize())
		}
	}
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	synced("a brand", 1)
	if err := s.Append(ctx, []*svc.Write{testView(1), testView(2)}); err != nil {
		t.Fatal(err)
	}
	synced("Append", 2)
	if err := s.Commit(ctx, []*svc.Write{testView(3)}); err != nil {
		t.Fatal(err)
	}
	synced("Commit, which leaves the sync to SyncCommitted", 2)
	if err := s.SyncCommitted(); err != nil {
		t.Fatal(err)
	}
	synced("SyncCommitted", 3)
	if _, err := s.ForgetSession(ctx, "br_1", "s1"); err != nil {
		t.Fatal(err)
	}
	synced("an erasure", 4)
}

// After a failed fsync the kernel may have dropped the pages it could not
// write, so a later fsync that succeeds proves nothing: the store takes no
// more writes, and says so to the readiness probe.
func TestFailedSyncStopsWrites(t *testing.T) {
	ctx := context.Background()
	s, w := watchedStore(t)
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	w.err = syscall.EIO
	if err := s.Append(ctx, []*svc.Write{testView(1)}); svc.ErrorCode(err) != svc.EUNAVAILABLE {
		t.Fatalf("Append with a failing sync: %v, want EUNAVAILABLE", err)
	}
	w.err = nil // the disk seems well again
	if err := s.SyncCommitted(); svc.ErrorCode(err) != svc.EUNAVAILABLE {
		t.Fatalf("a sync after a failed one: %v, want EUNAVAILABLE", err)
	}
	var before int
	if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM view_events").Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, []*svc.Write{testView(2)}); svc.ErrorCode(err) != svc.EUNAVAILABLE {
		t.Fatalf("Commit after a failed sync: %v, want EUNAVAILABLE", err)
	}
	var after int
	if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM view_events").Scan(&after); err != nil || after != before {
		t.Fatalf("a refused Commit wrote: %d views before, %d after (%v)", before, after, err)
	}
	if err := s.Ping(ctx); svc.ErrorCode(err) != svc.EUNAVAILABLE {
		t.Fatalf("Ping after a failed sync: %v, want EUNAVAILABLE", err)
	}
}
