package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/svc-project/svc"
)

// storeWithBrand is a new store in a temporary folder with the brand
// br_1, closed when the test ends.
func storeWithBrand(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), migratedDir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.CreateBrand(context.Background(), &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Unix(0, 0)}, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// oldStore writes a store as the version before view_blocks left it:
// migrations up to 00028, and views as rows of view_events.
func oldStore(t *testing.T, dir string) *sql.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName)+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sub, _ := fs.Sub(migrations, "migrations")
	p, err := goose.NewProvider(goose.DialectSQLite3, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 28); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"INSERT INTO brands (id, name, created_at) VALUES ('br_1', 'One', 0)",
		"INSERT INTO products (id, brand_id, product_id, title, created_at, updated_at, changed) VALUES (1, 'br_1', 'p1', 'One', 0, 0, 1), (2, 'br_1', 'p2', NULL, 0, 0, 2)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

var oldViews = []struct {
	id, product, ts  int64
	given            any
	session, country any
	locale           any
	keyed            bool
	arm, eventID     string
}{
	{1, 1, 1_764_000_000_000, nil, "s1", "DE", "de-DE", false, "shown", "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a51"},
	{2, 2, 1_764_000_001_000, int64(1_763_000_000_000), nil, nil, nil, true, "", "my-own-id"},
	{3, 1, 1_763_999_000_000, nil, "s2", "FR", nil, false, "held_out", "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a53"},
	{4, 1, 1_764_000_002_000, nil, "", nil, nil, false, "", "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a54"},
	{7, 2, 1_764_000_003_000, nil, "s1", "DE", nil, false, "shown", "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a57"},
	{8, 1, 1_764_000_004_000, nil, "s3", nil, nil, false, "", "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a58"},
}

func insertOld(t *testing.T, db *sql.DB, from, to int) {
	t.Helper()
	for _, v := range oldViews[from:to] {
		if _, err := db.Exec(`INSERT INTO view_events (id, event_id, product, ts, given_ts, received_at, session_id, country, locale, keyed, arm)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, v.id, v.eventID, v.product, v.ts, v.given, v.ts+5, v.session, v.country, v.locale, v.keyed, v.arm); err != nil {
			t.Fatal(err)
		}
	}
}

// The first start of this version moves a store's rows of view_events
// into blocks, a few at a time, and resumes with rows left (as a start
// stopped halfway leaves them): each view reads back as it was stored,
// with its id.
func TestMoveViewRowsOfTheVersionBefore(t *testing.T) {
	defer func(s struct{ block, batch int }) { moveSizes = s }(moveSizes)
	moveSizes.block, moveSizes.batch = 2, 3
	ctx := context.Background()
	dir := t.TempDir()
	db := oldStore(t, dir)
	insertOld(t, db, 0, 5)
	// What the version before exports, to compare with.
	var want []svc.ExportedEvent
	{
		s, err := Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		var rows int
		if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM view_events").Scan(&rows); err != nil || rows != 0 {
			t.Fatalf("rows left in view_events: %d %v", rows, err)
		}
		var blocks int
		if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM view_blocks").Scan(&blocks); err != nil || blocks != 3 {
			t.Fatalf("%d blocks, want 3 (5 views, 3 a transaction, 2 a block): %v", blocks, err)
		}
		if err := s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error { want = append(want, e); return nil }); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	if len(want) != 5 {
		t.Fatalf("exported %d views, want 5", len(want))
	}
	for i, wantTS := range []int64{oldViews[2].ts, oldViews[0].ts, oldViews[1].ts, oldViews[3].ts, oldViews[4].ts} {
		if got := want[i].View.Meta.Time.UnixMilli(); got != wantTS {
			t.Errorf("view %d at %d, want %d: oldest first", i, got, wantTS)
		}
	}
	v := want[2].View // id 2: given time, keyed, no session, country or locale
	if v.Meta.EventID != "my-own-id" || !v.Meta.Keyed || v.Meta.GivenTime == nil || v.Meta.GivenTime.UnixMilli() != 1_763_000_000_000 ||
		v.Context.SessionID != nil || v.Context.Country != nil || v.Product.ProductID != "p2" || v.Product.Title != nil ||
		v.Meta.ReceivedAt.UnixMilli() != oldViews[1].ts+5 {
		t.Errorf("view 2 read back as %+v %+v", v.Meta, v.Context)
	}
	v = want[1].View
	if *v.Context.SessionID != "s1" || *v.Context.Country != "DE" || *v.Context.Locale != "de-DE" || v.Meta.Arm != "shown" ||
		*v.Product.Title != "One" || v.Meta.GivenTime != nil {
		t.Errorf("view 1 read back as %+v %+v", v.Meta, v.Context)
	}
	if v := want[3].View; v.Context.SessionID == nil || *v.Context.SessionID != "" {
		t.Errorf("an empty session came back as %v, want empty, not NULL", v.Context.SessionID)
	}

	// A start that stopped halfway left rows: the next moves them.
	insertOld(t, db, 5, 6)
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []int64
	if err := s.reads.ViewsAfter(ctx, 0, time.Time{}, func(id int64, _ svc.ViewRecord) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []int64{1, 2, 3, 4, 7, 8}) {
		t.Errorf("ids %v, want the rows' own", ids)
	}
	pos, err := s.reads.LogPosition(ctx)
	if err != nil || pos.Views != 8 || pos.ViewEvent != oldViews[5].eventID {
		t.Errorf("log position %+v %v, want the newest view, 8", pos, err)
	}
	// The next view written comes after the moved ones.
	w := &svc.Write{View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"},
		Meta: svc.EventMeta{EventID: "next", Time: time.UnixMilli(1_764_000_005_000), ReceivedAt: time.UnixMilli(1_764_000_005_000)}}}
	if err := s.Append(ctx, []*svc.Write{w}); err != nil || w.Result.Err != nil {
		t.Fatal(err, w.Result.Err)
	}
	if pos, err := s.reads.LogPosition(ctx); err != nil || pos.Views != 9 || pos.ViewEvent != "next" {
		t.Errorf("log position %+v %v after a write, want 9", pos, err)
	}
}

// Rows a version before wrote to a file whose views were in blocks
// already (it was run on the file again) get ids after the blocks':
// moving them replaces no block.
func TestMoveViewRowsWrittenAfterBlocks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := oldStore(t, dir)
	insertOld(t, db, 0, 2)
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	insertOld(t, db, 0, 1) // the version before gives id 1 again: its table is empty
	if s, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []int64
	if err := s.reads.ViewsAfter(ctx, 0, time.Time{}, func(id int64, _ svc.ViewRecord) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []int64{1, 2, 3}) {
		t.Errorf("ids %v, want the two views moved first and the row written after them", ids)
	}
}

// A block's views keep their ids when an erasure or expiry writes it
// again without some, and the log tells a server when its newest view
// went.
func TestBlockRewritesKeepIDs(t *testing.T) {
	ctx := context.Background()
	s := storeWithBrand(t)
	if _, err := s.EnsureProduct(ctx, &svc.Product{BrandID: "br_1", ProductID: "p1"}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	view := func(session string, at time.Time) *svc.Write {
		return &svc.Write{View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"},
			Context: svc.ViewContext{SessionID: &session}, Meta: svc.EventMeta{EventID: session, Time: at, ReceivedAt: now, Keyed: true}}}
	}
	// One commit group, one block: a view 20 days old (a keyed event's
	// own time) among today's.
	batch := []*svc.Write{view("a", now), view("old", now.Add(-20*24*time.Hour)), view("b", now), view("c", now)}
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for _, w := range batch {
		if w.Result.Status != svc.StatusAccepted {
			t.Fatalf("%+v", w.Result)
		}
	}
	ids := func() map[string]int64 {
		out := map[string]int64{}
		err := s.reads.ViewsAfter(ctx, 0, time.Time{}, func(id int64, r svc.ViewRecord) error { out[r.SessionID] = id; return nil })
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := ids(); !reflect.DeepEqual(got, map[string]int64{"a": 1, "old": 2, "b": 3, "c": 4}) {
		t.Fatalf("ids %v", got)
	}
	if n, err := s.ForgetSession(ctx, "br_1", "b"); err != nil || n != 1 {
		t.Fatalf("forget: %d %v", n, err)
	}
	pos, _ := s.reads.LogPosition(ctx)
	if got := ids(); !reflect.DeepEqual(got, map[string]int64{"a": 1, "old": 2, "c": 4}) || pos.Views != 4 {
		t.Fatalf("after an erasure: ids %v, position %+v", got, pos)
	}
	if ok, err := s.reads.Continues(ctx, pos); !ok || err != nil {
		t.Fatalf("the log does not continue an erasure of another view: %v", err)
	}
	// Expiry: the block straddles the edge; its old view goes, the others stay.
	if n, err := s.DeleteExpired(ctx, now.Add(-10*24*time.Hour), now, 100); err != nil || n != 1 {
		t.Fatalf("expired %d: %v", n, err)
	}
	if got := ids(); !reflect.DeepEqual(got, map[string]int64{"a": 1, "c": 4}) {
		t.Fatalf("after expiry: ids %v", got)
	}
	var minTS int64
	if err := s.r.QueryRowContext(ctx, "SELECT min_ts FROM view_blocks").Scan(&minTS); err != nil || minTS != now.UnixMilli() {
		t.Fatalf("the block's oldest time %d, want today's %d: %v", minTS, now.UnixMilli(), err)
	}
	if _, err := s.ForgetSession(ctx, "br_1", "c"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.reads.Continues(ctx, pos); ok || err != nil {
		t.Fatalf("the newest view was erased, yet the log continues: %v", err)
	}
	// Its id is not given again: the block's range stands.
	if err := s.Append(ctx, []*svc.Write{view("d", now)}); err != nil {
		t.Fatal(err)
	}
	if got := ids(); !reflect.DeepEqual(got, map[string]int64{"a": 1, "d": 5}) {
		t.Fatalf("after a write: ids %v", got)
	}
}

// The rollups kept on the write path, through the writer's cache of hour
// rows, erasures, expiry and another connection's write between, are
// the rows a build from the stored blocks makes.
func TestRollupsOfWritesAreABuildsRows(t *testing.T) {
	ctx := context.Background()
	dir := migratedDir(t)
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Unix(0, 0)}, nil); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Hour)
	n := 0
	batch := func(size int, at time.Time) {
		t.Helper()
		var ws []*svc.Write
		for range size {
			session := fmt.Sprint("s", n%7)
			ws = append(ws, &svc.Write{MayRegister: true, View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", n%3)},
				Context: svc.ViewContext{SessionID: &session}, Meta: svc.EventMeta{EventID: fmt.Sprint("e", n), Time: at.Add(time.Duration(n) * time.Second), ReceivedAt: now}}})
			n++
		}
		if err := s.Append(ctx, ws); err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if w.Result.Status != svc.StatusAccepted {
				t.Fatalf("%+v", w.Result)
			}
		}
	}
	batch(5, now.Add(-20*24*time.Hour))
	batch(4, now)
	batch(1, now)
	if _, err := s.ForgetSession(ctx, "br_1", "s2"); err != nil {
		t.Fatal(err)
	}
	batch(3, now)
	other, err := sql.Open("sqlite", filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec("UPDATE rollup_hours SET views = views + 100 WHERE product = 0 AND hour = ?", now.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	batch(2, now)
	if _, err := s.DeleteExpired(ctx, now.Add(-10*24*time.Hour), now, 100); err != nil {
		t.Fatal(err)
	}
	batch(2, now)
	rows := func() []string {
		var out []string
		err := eachRowOf(ctx, s.r, func(r *sql.Rows) error {
			var brand string
			var product, hour, views int64
			var viewers []byte
			if err := r.Scan(&brand, &product, &hour, &views, &viewers); err != nil {
				return err
			}
			out = append(out, fmt.Sprint(brand, product, hour, views, viewers))
			return nil
		}, "SELECT brand_id, product, hour, views, viewers FROM rollup_hours ORDER BY 1, 2, 3")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	kept := rows()
	if len(kept) != 4 { // the brand's hour and its three products'
		t.Fatalf("%d hour rows: %v", len(kept), kept)
	}
	if _, err := s.w.ExecContext(ctx, "UPDATE rollup_hours SET views = views - 100 WHERE product = 0 AND hour = ?", now.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	kept = rows()
	if err := s.RebuildRollups(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	// The other connection's hundred views are the brand's hour's only
	// difference: the writer read the row it changed.
	if built := rows(); !reflect.DeepEqual(kept, built) {
		t.Fatalf("kept on the write path:\n%v\nbuilt from the blocks:\n%v", kept, built)
	}
}

// An erasure reads the blocks a page at a time: more blocks than a page
// are all read.
func TestEraseAcrossPagesOfBlocks(t *testing.T) {
	ctx := context.Background()
	s := storeWithBrand(t)
	now := time.Now()
	const blocks = 600
	for i := range blocks {
		session := fmt.Sprint("s", i%2)
		w := &svc.Write{MayRegister: true, View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"},
			Context: svc.ViewContext{SessionID: &session}, Meta: svc.EventMeta{EventID: fmt.Sprint("e", i), Time: now, ReceivedAt: now}}}
		if err := s.Append(ctx, []*svc.Write{w}); err != nil || w.Result.Status != svc.StatusAccepted {
			t.Fatal(err, w.Result)
		}
	}
	if n, err := s.ForgetSession(ctx, "br_1", "s1"); err != nil || n != blocks/2 {
		t.Fatalf("erased %d views, want %d: %v", n, blocks/2, err)
	}
	left := 0
	err := s.reads.ViewsAfter(ctx, 0, time.Time{}, func(id int64, r svc.ViewRecord) error {
		if r.SessionID != "s0" || id%2 != 1 {
			t.Errorf("view %d of %q left", id, r.SessionID)
		}
		left++
		return nil
	})
	if err != nil || left != blocks/2 {
		t.Fatalf("%d views left, want %d: %v", left, blocks/2, err)
	}
}

// Another write may take the writer between Append's commit and its
// merge into the cache of hour rows: an erasure there changes the rows
// the merge would note, and the next Append must not add to the rows as
// they were before it.
func TestHourCacheAfterAWriteBetweenCommitAndMerge(t *testing.T) {
	ctx := context.Background()
	s := storeWithBrand(t)
	now := time.Now().UTC().Truncate(time.Hour)
	n := 0
	batch := func(size int) {
		t.Helper()
		var ws []*svc.Write
		for range size {
			session := fmt.Sprint("s", n%2)
			ws = append(ws, &svc.Write{MayRegister: true, View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"},
				Context: svc.ViewContext{SessionID: &session}, Meta: svc.EventMeta{EventID: fmt.Sprint("e", n), Time: now.Add(time.Duration(n) * time.Second), ReceivedAt: now}}})
			n++
		}
		if err := s.Append(ctx, ws); err != nil {
			t.Fatal(err)
		}
	}
	views := func() (out []int64) {
		err := eachRowOf(ctx, s.r, func(r *sql.Rows) error {
			var v int64
			out = append(out, v)
			return r.Scan(&out[len(out)-1])
		}, "SELECT views FROM rollup_hours ORDER BY brand_id, product, hour")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	batch(4)
	defer func() { appendCommitted = func() {} }()
	appendCommitted = func() {
		appendCommitted = func() {}
		if _, err := s.ForgetSession(ctx, "br_1", "s0"); err != nil {
			t.Error(err)
		}
	}
	batch(2)
	batch(1)
	kept := views()
	if err := s.RebuildRollups(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	if built := views(); !reflect.DeepEqual(kept, built) {
		t.Fatalf("views of the hour rows kept on the write path %v, built from the blocks %v", kept, built)
	}
}

// An erasure deletes the session's rows of view_events too, should any
// be left beside the blocks (the start moves them; the code is shared
// with PostgreSQL, where they may wait).
func TestEraseRowsNotYetMoved(t *testing.T) {
	ctx := context.Background()
	s := storeWithBrand(t)
	now := time.Now()
	session := "s1"
	w := &svc.Write{MayRegister: true, View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"},
		Context: svc.ViewContext{SessionID: &session}, Meta: svc.EventMeta{EventID: "b1", Time: now, ReceivedAt: now}}}
	if err := s.Append(ctx, []*svc.Write{w}); err != nil || w.Result.Status != svc.StatusAccepted {
		t.Fatal(err, w.Result)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO view_events (id, event_id, product, ts, received_at, session_id, keyed)
		SELECT 1000, 'r1', id, ?, ?, 's1', 0 FROM products WHERE product_id = 'p1'`, now.UnixMilli(), now.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if n, err := s.ForgetSession(ctx, "br_1", "s1"); err != nil || n != 2 {
		t.Fatalf("erased %d views, want b1 and r1: %v", n, err)
	}
	var rows int
	if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM view_events").Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("rows left in view_events: %d %v", rows, err)
	}
}
