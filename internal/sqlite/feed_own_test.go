package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// A poll of the feed reads no row that the Store committed itself: the
// ids it asks for are narrowed to what another writer may have added, here
// the two views of a second Store between the first one's own commits.
func TestFeedReadsAroundOwnCommits(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	stores := make([]*Store, 2)
	for i := range stores {
		s, err := Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	a, b := stores[0], stores[1]
	now := time.Now()
	if err := a.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	cur, err := a.ReadSnapshot(ctx, func(svc.EventReader) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	views := func(s *Store, k int) {
		t.Helper()
		var ws []*svc.Write
		for range k {
			n++
			ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", n)}}
			ev.Meta = svc.EventMeta{EventID: fmt.Sprint("e", n), Time: now, ReceivedAt: now}
			ws = append(ws, &svc.Write{View: ev, MayRegister: true})
		}
		if err := s.Append(ctx, ws); err != nil {
			t.Fatal(err)
		}
	}
	views(a, 3) // ids 1 to 3
	views(b, 2) // 4 and 5
	views(a, 3) // 6 to 8
	if lo, hi := a.othersIn(tViews, 0, 8); lo != 3 || hi != 5 {
		t.Errorf("own views 1-3 and 6-8, another's 4-5: reads (%d, %d], want (3, 5]", lo, hi)
	}
	if lo, hi := a.othersIn(tViews, 5, 8); lo < hi {
		t.Errorf("after the other's views, only own ones: reads (%d, %d], want nothing", lo, hi)
	}
	ch, err := a.Changes(ctx, cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Writes) != 2 || ch.Writes[0].View.Product.ProductID != "p4" || ch.Writes[1].View.Product.ProductID != "p5" {
		t.Errorf("the feed brings %d writes, want the other Store's two views (p4, p5)", len(ch.Writes))
	}
	views(a, 2)
	if lo, hi := a.othersIn(tViews, 8, 10); lo < hi {
		t.Errorf("own views alone since the last read: reads (%d, %d], want nothing", lo, hi)
	}
}

// Once an erasure or expiry deleted a table's newest rows, their ids are
// another writer's to take, and the recount's snapshot read forgets the
// server's own writes before it: the feed then brings the other writer's
// rows, though their ids are those the server once wrote.
func TestFeedAfterOwnNewestRowsWereDeleted(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	stores := make([]*Store, 2)
	for i := range stores {
		s, err := Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	a, b := stores[0], stores[1]
	now := time.Now()
	if err := a.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	n := 0
	views := func(s *Store, k int) {
		t.Helper()
		var ws []*svc.Write
		for range k {
			n++
			ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", n)}}
			ev.Meta = svc.EventMeta{EventID: fmt.Sprint("e", n), Time: now, ReceivedAt: now}
			ws = append(ws, &svc.Write{View: ev, MayRegister: true})
		}
		if err := s.Append(ctx, ws); err != nil {
			t.Fatal(err)
		}
	}
	read := func() svc.FeedCursor {
		t.Helper()
		cur, err := a.ReadSnapshot(ctx, func(svc.EventReader) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		return cur
	}
	read()
	views(a, 3) // ids 1 to 3, a's own
	if _, err := b.w.ExecContext(ctx, "DELETE FROM view_events"); err != nil {
		t.Fatal(err) // as an erasure would; the servers then recount
	}
	cur := read()
	views(b, 2) // ids 1 and 2 again, b's
	ch, err := a.Changes(ctx, cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Writes) != 2 {
		t.Errorf("the feed brings %d writes, want the other Store's 2 views on the reused ids", len(ch.Writes))
	}
}
