package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// ownFeed is two Stores on one file, a following the feed and b another
// writer, with a brand whose product views each append.
type ownFeed struct {
	t    *testing.T
	a, b *Store
	n    int
}

func newOwnFeed(t *testing.T) *ownFeed {
	dir := migratedDir(t)
	f := &ownFeed{t: t}
	for _, s := range []**Store{&f.a, &f.b} {
		var err error
		if *s, err = Open(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { (*s).Close() })
	}
	if err := f.a.CreateBrand(context.Background(), &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	return f
}

// views appends k views of new products through s.
func (f *ownFeed) views(s *Store, k int) {
	f.t.Helper()
	now := time.Now()
	var ws []*svc.Write
	for range k {
		f.n++
		ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", f.n)}}
		ev.Meta = svc.EventMeta{EventID: fmt.Sprint("e", f.n), Time: now, ReceivedAt: now}
		ws = append(ws, &svc.Write{View: ev, MayRegister: true})
	}
	if err := s.Append(context.Background(), ws); err != nil {
		f.t.Fatal(err)
	}
}

// read is a's snapshot read, as a server's start or recount.
func (f *ownFeed) read() svc.FeedCursor {
	f.t.Helper()
	cur, err := f.a.ReadSnapshot(context.Background(), func(svc.EventReader) error { return nil })
	if err != nil {
		f.t.Fatal(err)
	}
	return cur
}

// A poll of the feed reads no row that the Store committed itself: the
// ids it asks for are narrowed to what another writer may have added, here
// the two views of a second Store between the first one's own commits.
func TestFeedReadsAroundOwnCommits(t *testing.T) {
	f := newOwnFeed(t)
	cur := f.read()
	f.views(f.a, 3) // ids 1 to 3
	f.views(f.b, 2) // 4 and 5
	f.views(f.a, 3) // 6 to 8
	if lo, hi := f.a.othersIn(tViews, 0, 8); lo != 3 || hi != 5 {
		t.Errorf("own views 1-3 and 6-8, another's 4-5: reads (%d, %d], want (3, 5]", lo, hi)
	}
	if lo, hi := f.a.othersIn(tViews, 5, 8); lo < hi {
		t.Errorf("after the other's views, only own ones: reads (%d, %d], want nothing", lo, hi)
	}
	ch, err := f.a.Changes(context.Background(), cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Writes) != 2 || ch.Writes[0].View.Product.ProductID != "p4" || ch.Writes[1].View.Product.ProductID != "p5" {
		t.Errorf("the feed brings %d writes, want the other Store's two views (p4, p5)", len(ch.Writes))
	}
	f.views(f.a, 2)
	if lo, hi := f.a.othersIn(tViews, 8, 10); lo < hi {
		t.Errorf("own views alone since the last read: reads (%d, %d], want nothing", lo, hi)
	}
}

// Once an erasure or expiry deleted a table's newest rows, their ids are
// another writer's to take, and the recount's snapshot read forgets the
// server's own writes before it: the feed then brings the other writer's
// rows, though their ids are those the server once wrote.
func TestFeedAfterOwnNewestRowsWereDeleted(t *testing.T) {
	f := newOwnFeed(t)
	f.read()
	f.views(f.a, 3) // ids 1 to 3, a's own
	if _, err := f.b.w.ExecContext(context.Background(), "DELETE FROM view_blocks"); err != nil {
		t.Fatal(err) // as an erasure would; the servers then recount
	}
	cur := f.read()
	f.views(f.b, 2) // ids 1 and 2 again, b's
	ch, err := f.a.Changes(context.Background(), cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Writes) != 2 {
		t.Errorf("the feed brings %d writes, want the other Store's 2 views on the reused ids", len(ch.Writes))
	}
}
