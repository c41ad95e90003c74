package postgres

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres/pgtest"
)

// The rows of view_events that a node of the version before writes, or
// that an interrupted move left, are views like those of blocks until a
// start moves them.

// rowsStore opens a store with a brand br_1 and its products p1 and p2.
func rowsStore(t *testing.T) (*Store, string) {
	t.Helper()
	ctx := context.Background()
	url := pgtest.URL(t)
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Unix(0, 0)}, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"p1", "p2"} {
		if _, err := s.EnsureProduct(ctx, &svc.Product{BrandID: "br_1", ProductID: p}); err != nil {
			t.Fatal(err)
		}
	}
	return s, url
}

// oldRow writes a view as a node of the version before does: a row of
// view_events, which the store's start moves into a block.
func oldRow(t *testing.T, s *Store, eventID, product string, ts int64, session string) {
	t.Helper()
	if _, err := s.pool.Exec(context.Background(), `INSERT INTO view_events (event_id, product, ts, received_at, session_id, keyed)
		SELECT $1, id, $3, $3, nullif($4, ''), false FROM products WHERE brand_id = 'br_1' AND product_id = $2`,
		eventID, product, ts, session); err != nil {
		t.Fatal(err)
	}
}

// appendView appends a view through the store: a block.
func appendView(t *testing.T, s *Store, eventID, product string, ts int64, session string) {
	t.Helper()
	v := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: product},
		Meta: svc.EventMeta{EventID: eventID, Time: time.UnixMilli(ts), ReceivedAt: time.UnixMilli(ts)}}
	if session != "" {
		v.Context.SessionID = &session
	}
	w := &svc.Write{View: v}
	if err := s.Append(context.Background(), []*svc.Write{w}); err != nil || w.Result.Err != nil {
		t.Fatal(err, w.Result.Err)
	}
}

// rollupViews is the brand's views the rollups count.
func rollupViews(t *testing.T, s *Store) int64 {
	t.Helper()
	var n int64
	if err := s.pool.QueryRow(context.Background(), "SELECT coalesce(sum(views), 0) FROM rollup_hours WHERE brand_id = 'br_1' AND product = 0").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Replay, a snapshot, export and a rollups build read the rows not yet
// moved with the blocks, in the order of their times.
func TestRowsNotYetMovedAreRead(t *testing.T) {
	ctx := context.Background()
	s, _ := rowsStore(t)
	const ts = 1_764_000_000_000
	oldRow(t, s, "r1", "p1", ts, "s1")
	appendView(t, s, "b1", "p2", ts+1000, "s1")
	oldRow(t, s, "r2", "p2", ts+2000, "s2")
	oldRow(t, s, "r0", "p1", ts-1000, "")
	want := []string{"r0", "r1", "b1", "r2"}

	var replayed []int64
	if err := s.Views(ctx, time.UnixMilli(0), func(v svc.ViewRecord) error {
		replayed = append(replayed, v.Time.UnixMilli())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if w := []int64{ts - 1000, ts, ts + 1000, ts + 2000}; !reflect.DeepEqual(replayed, w) {
		t.Errorf("replayed views of times %v, want %v", replayed, w)
	}
	var inSnapshot int
	if _, err := s.ReadSnapshot(ctx, func(r svc.EventReader) error {
		return r.Views(ctx, time.UnixMilli(ts), func(svc.ViewRecord) error { inSnapshot++; return nil })
	}); err != nil || inSnapshot != 3 {
		t.Errorf("a snapshot read %d views since r1, want 3 (%v)", inSnapshot, err)
	}

	var exported []string
	if err := s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error {
		if e.View != nil {
			exported = append(exported, e.View.Meta.EventID)
			if e.View.Meta.EventID == "r2" && (e.View.Product.ProductID != "p2" || *e.View.Context.SessionID != "s2") {
				t.Errorf("r2 exported as %+v", e.View)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(exported, want) {
		t.Errorf("exported %v, want %v", exported, want)
	}

	if err := s.RebuildRollups(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	if n := rollupViews(t, s); n != 4 {
		t.Errorf("a build counted %d views, want 4", n)
	}
}

// An erasure deletes the session's rows not yet moved as well as its
// views in blocks, and takes them out of the rollups.
func TestForgetSessionDeletesRowsNotYetMoved(t *testing.T) {
	ctx := context.Background()
	s, _ := rowsStore(t)
	const ts = 1_764_000_000_000
	oldRow(t, s, "r1", "p1", ts, "s1")
	oldRow(t, s, "r2", "p2", ts+1000, "s2")
	appendView(t, s, "b1", "p2", ts+2000, "s1")
	if err := s.RebuildRollups(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	n, err := s.ForgetSession(ctx, "br_1", "s1")
	if err != nil || n != 2 {
		t.Fatalf("erased %d views, %v; want r1 and b1", n, err)
	}
	var left []string
	if err := s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error {
		left = append(left, e.View.Meta.EventID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(left, []string{"r2"}) {
		t.Errorf("views left %v, want [r2]", left)
	}
	if n := rollupViews(t, s); n != 1 {
		t.Errorf("the rollups count %d views after the erasure, want 1", n)
	}
}
