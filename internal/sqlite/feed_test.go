package sqlite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

func feedView(product string, at time.Time) *svc.Write {
	e := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: product}}
	e.Meta = svc.EventMeta{EventID: fmt.Sprintf("ev-%p", e), Time: at, ReceivedAt: at}
	return &svc.Write{View: e, MayRegister: true}
}

func feedStores(t *testing.T) (dir string, a, b *sqlite.Store) {
	t.Helper()
	dir = sqlitetest.Dir(t)
	a, b = open(t, dir), open(t, dir)
	if err := a.CreateBrand(context.Background(), &svc.Brand{ID: "br_1", Name: "One", CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	return dir, a, b
}

func mustAppend(t *testing.T, s *sqlite.Store, ws ...*svc.Write) {
	t.Helper()
	if err := s.Append(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
}

// Once the feed is followed, LogPosition is that of the feed's last read:
// what the counts hold, not what another process committed since.
func TestLogPositionFollowsTheFeed(t *testing.T) {
	ctx := context.Background()
	_, a, b := feedStores(t)
	mustAppend(t, b, feedView("p1", t0))
	cur, err := a.ReadSnapshot(ctx, func(svc.EventReader) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	read, err := a.LogPosition(ctx)
	if err != nil || read.Views != 1 {
		t.Fatalf("position after the snapshot: %+v, %v", read, err)
	}
	mustAppend(t, b, feedView("p1", t0))
	if p, err := a.LogPosition(ctx); err != nil || p != read {
		t.Fatalf("position after another's commit: %+v, want the read's %+v (%v)", p, read, err)
	}
	if _, err := a.Changes(ctx, cur); err != nil {
		t.Fatal(err)
	}
	if p, err := a.LogPosition(ctx); err != nil || p.Views != 2 {
		t.Fatalf("position after the next read: %+v, %v", p, err)
	}
}

// A cursor is the tables' largest ids: a restarted process goes on from it
// (its own commits of before are not skipped: it did not count them).
func TestCursorOutlivesTheStore(t *testing.T) {
	ctx := context.Background()
	dir, a, b := feedStores(t)
	cur, err := a.ReadSnapshot(ctx, func(svc.EventReader) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, a, feedView("p1", t0))
	mustAppend(t, b, feedView("p2", t0))
	a.Close()
	again := open(t, dir)
	ch, err := again.Changes(ctx, cur)
	if err != nil || len(ch.Writes) != 2 {
		t.Fatalf("changes after a restart: %d writes, %v; want 2", len(ch.Writes), err)
	}
	if _, err := again.Changes(ctx, "postgres:1:2:"); err == nil {
		t.Fatal("a cursor of another store was taken")
	}
}

// Expiry that deletes a table's newest row bumps the erasure version: SQLite
// may give that id to the next row, which a server's feed would take for
// one it saw; the server recounts instead. Expiry of older rows does not.
func TestExpiringTheNewestRowBumpsTheErasureVersion(t *testing.T) {
	ctx := context.Background()
	_, a, _ := feedStores(t)
	now := t0.Add(30 * 24 * time.Hour)
	mustAppend(t, a, feedView("p1", t0), feedView("p1", now))
	v0, err := a.ErasureVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := a.DeleteExpired(ctx, t0.Add(time.Hour), now, 10); err != nil || n != 1 {
		t.Fatalf("deleted %d, %v", n, err)
	}
	if v, _ := a.ErasureVersion(ctx); v != v0 {
		t.Fatalf("erasure version %d after an older row expired, want %d", v, v0)
	}
	if n, err := a.DeleteExpired(ctx, now.Add(time.Hour), now, 10); err != nil || n != 1 {
		t.Fatalf("deleted %d, %v", n, err)
	}
	if v, _ := a.ErasureVersion(ctx); v == v0 {
		t.Fatal("the erasure version stayed after the newest row expired")
	}
}

// BenchmarkIdlePoll is a poll of the feed while nobody writes: what a
// server pays every 200 ms (feedPoll) on a quiet store.
func BenchmarkIdlePoll(b *testing.B) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	cur, err := s.ReadSnapshot(ctx, func(svc.EventReader) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ch, err := s.Changes(ctx, cur)
		if err != nil {
			b.Fatal(err)
		}
		cur = ch.Cursor
	}
}

// BenchmarkBusyPoll is a poll that finds one batch of 100 views of another
// process, as during svc import.
func BenchmarkBusyPoll(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	s, err := sqlite.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	other, err := sqlite.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer other.Close()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: t0}, nil); err != nil {
		b.Fatal(err)
	}
	cur, err := s.ReadSnapshot(ctx, func(svc.EventReader) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		batch := make([]*svc.Write, 100)
		for i := range batch {
			batch[i] = feedView(fmt.Sprint("p", i%10), t0)
		}
		if err := other.Append(ctx, batch); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		ch, err := s.Changes(ctx, cur)
		if err != nil || len(ch.Writes) != 100 {
			b.Fatalf("%d writes, %v", len(ch.Writes), err)
		}
		cur = ch.Cursor
	}
}
