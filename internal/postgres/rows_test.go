package postgres

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/viewblock"
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
	var counted []int64
	var sessions []string
	if err := s.CountedViews(ctx, time.UnixMilli(0), func(b []byte) uint64 { return uint64(len(b)) }, func(vs []svc.CountedView) error {
		for _, v := range vs {
			counted = append(counted, v.UnixMilli)
			sessions = append(sessions, fmt.Sprint(v.Session))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(counted, replayed) || !reflect.DeepEqual(sessions, []string{"0", "2", "2", "2"}) {
		t.Errorf("counted views of times %v and sessions %v, want %v and [0 2 2 2]", counted, sessions, replayed)
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

// backendPID is the backend of the transaction.
func backendPID(t *testing.T, tx pgx.Tx) int32 {
	t.Helper()
	var pid int32
	if err := tx.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitBlockedBy waits until a backend waits for a lock that pid holds,
// or returns false when done is closed first.
func waitBlockedBy(t *testing.T, s *Store, pid int32, done <-chan struct{}) bool {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var blocked bool
		if err := s.pool.QueryRow(context.Background(),
			"SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)))", pid).Scan(&blocked); err != nil {
			t.Fatal(err)
		}
		if blocked {
			return true
		}
		select {
		case <-done:
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("nothing waited for backend %d", pid)
	return false
}

// blockViews reads every view of the blocks by event id.
func blockViews(t *testing.T, s *Store) map[string]viewblock.View {
	t.Helper()
	out := map[string]viewblock.View{}
	err := eachRow(context.Background(), s.pool, func(r pgx.Rows) error {
		var data []byte
		if err := r.Scan(&data); err != nil {
			return err
		}
		vs, err := viewblock.Decode(nil, data)
		for _, v := range vs {
			out[v.EventID] = v
		}
		return err
	}, "SELECT data FROM view_blocks")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// orphans returns the views of blocks whose product is gone.
func orphans(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	for e, v := range blockViews(t, s) {
		var ok bool
		if err := s.pool.QueryRow(context.Background(), "SELECT EXISTS (SELECT 1 FROM products WHERE id = $1)", v.Product).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		if !ok {
			out = append(out, e)
		}
	}
	return out
}

// productRef is the id of a product of br_1.
func productRef(t *testing.T, s *Store, productID string) int64 {
	t.Helper()
	var ref int64
	if err := s.pool.QueryRow(context.Background(), "SELECT id FROM products WHERE brand_id = 'br_1' AND product_id = $1", productID).Scan(&ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// A move locks the rows it moves: an erasure or a merge that changed them
// meanwhile (here its statement on the rows, uncommitted) is waited for,
// and the rows are moved as it left them, not as they were.
func TestMoveWaitsForRowsChanged(t *testing.T) {
	for _, c := range []struct{ name, change string }{
		{"erasure", "DELETE FROM view_events WHERE session_id = 's1'"},
		{"merge", "UPDATE view_events SET product = (SELECT id FROM products WHERE product_id = 'p1') WHERE product = (SELECT id FROM products WHERE product_id = 'p2')"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			s, url := rowsStore(t)
			const ts = 1_764_000_000_000
			oldRow(t, s, "r1", "p2", ts, "s1")
			oldRow(t, s, "r2", "p2", ts+1000, "s2")
			tx, err := s.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, c.change); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			var moveErr error
			go func() {
				defer close(done)
				var other *Store
				if other, moveErr = Open(ctx, url); moveErr == nil {
					other.Close()
				}
			}()
			waitBlockedBy(t, s, backendPID(t, tx), done)
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			<-done
			if moveErr != nil {
				t.Fatal(moveErr)
			}
			views := blockViews(t, s)
			p1 := productRef(t, s, "p1")
			switch c.name {
			case "erasure":
				if _, ok := views["r1"]; ok || len(views) != 1 {
					t.Errorf("blocks hold %v: the erased r1 came back", views)
				}
			case "merge":
				if views["r1"].Product != p1 || views["r2"].Product != p1 {
					t.Errorf("moved r1 of product %d, r2 of %d, want the merged %d", views["r1"].Product, views["r2"].Product, p1)
				}
			}
		})
	}
}

// A merge of products while a move batch is open waits for it, and
// rewrites the blocks it wrote: no block names the product merged away.
func TestMergeDuringAMoveBatch(t *testing.T) {
	ctx := context.Background()
	s, _ := rowsStore(t)
	const ts = 1_764_000_000_000
	oldRow(t, s, "r1", "p2", ts, "s1")
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if n, err := moveBatch(ctx, tx); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	done := make(chan struct{})
	var mergeErr error
	go func() {
		defer close(done)
		_, _, mergeErr = s.MergeProducts(ctx, "br_1", "p1", "p2")
	}()
	waitBlockedBy(t, s, backendPID(t, tx), done)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	if mergeErr != nil {
		t.Fatal(mergeErr)
	}
	if o := orphans(t, s); len(o) > 0 {
		t.Errorf("views %v name the product merged away", o)
	}
}

// An erasure while a move batch holds the session's rows waits for it,
// and then erases the views from the batch's blocks: none comes back.
func TestForgetSessionDuringAMoveBatch(t *testing.T) {
	ctx := context.Background()
	s, _ := rowsStore(t)
	const ts = 1_764_000_000_000
	oldRow(t, s, "r1", "p1", ts, "s1")
	oldRow(t, s, "r2", "p2", ts+1000, "s2")
	if err := s.RebuildRollups(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if n, err := moveBatch(ctx, tx); err != nil || n != 2 {
		t.Fatal(n, err)
	}
	done := make(chan struct{})
	var erased int64
	var eraseErr error
	go func() {
		defer close(done)
		erased, eraseErr = s.ForgetSession(ctx, "br_1", "s1")
	}()
	waitBlockedBy(t, s, backendPID(t, tx), done)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	if eraseErr != nil || erased != 1 {
		t.Fatalf("erased %d views, %v; want r1", erased, eraseErr)
	}
	if views := blockViews(t, s); len(views) != 1 || views["r2"].EventID != "r2" {
		t.Errorf("blocks hold %v, want r2 alone", views)
	}
	if n := rollupViews(t, s); n != 1 {
		t.Errorf("the rollups count %d views after the erasure, want 1", n)
	}
}

// An Append of a view and a merge of its product away, at once, leave no
// block naming the product gone: the Append locks its views' products
// (rows had a foreign key), and the merge waits for it and rewrites its
// block. The Append is held open after its block's insert by a lock on
// its hour's rollup row, which the merge does not touch.
func TestAppendAndMergeLeaveNoOrphan(t *testing.T) {
	ctx := context.Background()
	s, _ := rowsStore(t)
	const ts = 1_764_000_000_000
	appendView(t, s, "b0", "p1", ts, "")
	hold, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx)
	if _, err := hold.Exec(ctx, "SELECT 1 FROM rollup_hours WHERE brand_id = 'br_1' AND product = 0 FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	holdPID := backendPID(t, hold)

	appended := make(chan struct{})
	w := &svc.Write{View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p2"},
		Meta: svc.EventMeta{EventID: "a1", Time: time.UnixMilli(ts + 1000), ReceivedAt: time.UnixMilli(ts + 1000)}}}
	var appendErr error
	go func() {
		defer close(appended)
		appendErr = s.Append(ctx, []*svc.Write{w})
	}()
	waitBlockedBy(t, s, holdPID, appended)
	var appendPID int32
	if err := s.pool.QueryRow(ctx, "SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", holdPID).Scan(&appendPID); err != nil {
		t.Fatal(err)
	}

	merged := make(chan struct{})
	var mergeErr error
	go func() {
		defer close(merged)
		_, _, mergeErr = s.MergeProducts(ctx, "br_1", "p1", "p2")
	}()
	waitBlockedBy(t, s, appendPID, merged) // without the lock, the merge ends first
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	<-appended
	<-merged
	if appendErr != nil || w.Result.Status != svc.StatusAccepted {
		t.Fatal(appendErr, w.Result)
	}
	if mergeErr != nil {
		t.Fatal(mergeErr)
	}
	if o := orphans(t, s); len(o) > 0 {
		t.Errorf("views %v name the product merged away", o)
	}
	if v := blockViews(t, s)["a1"]; v.Product != productRef(t, s, "p1") {
		t.Errorf("a1 names product %d, want p1 it was merged into", v.Product)
	}
}

// A product merged away between an Append's look-up and its lock is
// found gone, and the batch decided again: its view goes to the product
// the id now names. The merge is its statements, held open.
func TestAppendDecidesAgainWhenItsProductIsMergedAway(t *testing.T) {
	ctx := context.Background()
	s, _ := rowsStore(t)
	const ts = 1_764_000_000_000
	merge, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer merge.Rollback(ctx)
	if _, err := merge.Exec(ctx, "SELECT 1 FROM products WHERE product_id IN ('p1', 'p2') ORDER BY id FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	appended := make(chan struct{})
	w := &svc.Write{View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p2"},
		Meta: svc.EventMeta{EventID: "a1", Time: time.UnixMilli(ts), ReceivedAt: time.UnixMilli(ts)}}}
	var appendErr error
	go func() {
		defer close(appended)
		appendErr = s.Append(ctx, []*svc.Write{w})
	}()
	waitBlockedBy(t, s, backendPID(t, merge), appended)
	for _, q := range []string{
		"INSERT INTO product_names (brand_id, name, product_id, created_at) VALUES ('br_1', 'p2', 'p1', 0)",
		"DELETE FROM products WHERE product_id = 'p2'",
	} {
		if _, err := merge.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := merge.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	<-appended
	if appendErr != nil || w.Result.Status != svc.StatusAccepted {
		t.Fatal(appendErr, w.Result)
	}
	if v := blockViews(t, s)["a1"]; v.Product != productRef(t, s, "p1") {
		t.Errorf("a1 names product %d, want p1, which p2 now names", v.Product)
	}
}
