package postgres

import (
	"context"
	"database/sql"
	"io/fs"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // the driver "pgx"
	"github.com/pressly/goose/v3"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/viewblock"
)

// The first start of this version moves the rows of view_events that the
// version before wrote into blocks, a few at a time, each block of one
// transaction's rows and keeping its txid; two nodes starting at once
// move them once between them. Each view reads back as it was stored.
func TestMoveViewRowsOfTheVersionBefore(t *testing.T) {
	defer func(s struct{ block, batch int }) { moveSizes = s }(moveSizes)
	moveSizes.block, moveSizes.batch = 2, 3
	ctx := context.Background()
	url := pgtest.URL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sub, _ := fs.Sub(migrations, "migrations")
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 29); err != nil {
		t.Fatal(err)
	}
	const ts = 1_764_000_000_000
	for _, q := range []string{
		"INSERT INTO brands (id, name, created_at) VALUES ('br_1', 'One', 0)",
		"INSERT INTO products (brand_id, product_id, title, created_at, updated_at) VALUES ('br_1', 'p1', 'One', 0, 0), ('br_1', 'p2', NULL, 0, 0)",
		// Three transactions: a1 a2, b1, then a3 a4 a5.
		`BEGIN;
		INSERT INTO view_events (event_id, product, ts, received_at, session_id, country, locale, keyed, arm)
			SELECT 'a1', id, 1764000000000, 1764000000005, 's1', 'DE', 'de-DE', false, 'shown' FROM products WHERE product_id = 'p1';
		INSERT INTO view_events (event_id, product, ts, given_ts, received_at, keyed)
			SELECT 'a2', id, 1764000001000, 1763000000000, 1764000001005, true FROM products WHERE product_id = 'p2';
		COMMIT`,
		`BEGIN;
		INSERT INTO view_events (event_id, product, ts, received_at, session_id, keyed)
			SELECT 'b1', id, 1763999000000, 1763999000005, '', false FROM products WHERE product_id = 'p1';
		COMMIT`,
		`BEGIN;
		INSERT INTO view_events (event_id, product, ts, received_at, session_id, country, keyed)
			SELECT 'a3', id, 1764000002000, 1764000002005, 's2', 'FR', false FROM products WHERE product_id = 'p1';
		INSERT INTO view_events (event_id, product, ts, received_at, keyed)
			SELECT 'a4', id, 1764000003000, 1764000003005, false FROM products WHERE product_id = 'p2';
		INSERT INTO view_events (event_id, product, ts, received_at, keyed)
			SELECT 'a5', id, 1764000004000, 1764000004005, false FROM products WHERE product_id = 'p2';
		COMMIT`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	txOf := map[string]string{}
	rows, err := db.Query("SELECT event_id, txid::text FROM view_events")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var e, x string
		if err := rows.Scan(&e, &x); err != nil {
			t.Fatal(err)
		}
		txOf[e] = x
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}

	// Two nodes start at once.
	stores := make([]*Store, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(ctx, url)
		}()
	}
	wg.Wait()
	for i, s := range stores {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		defer s.Close()
	}
	s := stores[0]
	var left int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM view_events").Scan(&left); err != nil || left != 0 {
		t.Fatalf("rows left in view_events: %d %v", left, err)
	}
	// Blocks: a batch of 3 rows, split by transaction ([a1 a2] [b1]), then one
	// of 3 rows of one transaction, 2 a block ([a3 a4] [a5]).
	blocks, txids, _ := storedBlocks(t, s)
	if want := [][]string{{"a1", "a2"}, {"b1"}, {"a3", "a4"}, {"a5"}}; !reflect.DeepEqual(blocks, want) {
		t.Fatalf("blocks %v, want %v", blocks, want)
	}
	for i, b := range blocks {
		if txids[i] != txOf[b[0]] {
			t.Errorf("block %v has txid %s, its rows had %s", b, txids[i], txOf[b[0]])
		}
	}

	var got []svc.ExportedEvent
	if err := s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range got {
		order = append(order, e.View.Meta.EventID)
	}
	if want := []string{"b1", "a1", "a2", "a3", "a4", "a5"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("exported %v, want %v: oldest first", order, want)
	}
	v := got[2].View // a2: given time, keyed, no session, country or locale
	if !v.Meta.Keyed || v.Meta.GivenTime == nil || v.Meta.GivenTime.UnixMilli() != 1_763_000_000_000 ||
		v.Context.SessionID != nil || v.Context.Country != nil || v.Product.ProductID != "p2" || v.Product.Title != nil ||
		v.Meta.ReceivedAt.UnixMilli() != 1_764_000_001_005 {
		t.Errorf("a2 read back as %+v %+v", v.Meta, v.Context)
	}
	v = got[1].View
	if *v.Context.SessionID != "s1" || *v.Context.Country != "DE" || *v.Context.Locale != "de-DE" || v.Meta.Arm != "shown" ||
		*v.Product.Title != "One" || v.Meta.GivenTime != nil || v.Meta.Time.UnixMilli() != ts {
		t.Errorf("a1 read back as %+v %+v", v.Meta, v.Context)
	}
	if v := got[0].View; v.Context.SessionID == nil || *v.Context.SessionID != "" {
		t.Errorf("an empty session came back as %v, want empty, not NULL", v.Context.SessionID)
	}
	// Replay reads them, and the next view written comes after them.
	n := 0
	if err := s.Views(ctx, time.UnixMilli(0), func(svc.ViewRecord) error { n++; return nil }); err != nil || n != 6 {
		t.Fatalf("replayed %d views, %v", n, err)
	}
	w := &svc.Write{View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"},
		Meta: svc.EventMeta{EventID: "next", Time: time.UnixMilli(ts + 5000), ReceivedAt: time.UnixMilli(ts + 5000)}}}
	if err := stores[1].Append(ctx, []*svc.Write{w}); err != nil || w.Result.Err != nil {
		t.Fatal(err, w.Result.Err)
	}
	_, _, ids := storedBlocks(t, s)
	for e, id := range ids {
		if e != "next" && id >= ids["next"] {
			t.Errorf("the new view's id %d, %s's %d", ids["next"], e, id)
		}
	}
}

// storedBlocks reads the event ids of each block, in id order, the
// blocks' txids, and each view's id by its event id.
func storedBlocks(t *testing.T, s *Store) (blocks [][]string, txids []string, ids map[string]int64) {
	t.Helper()
	ids = map[string]int64{}
	err := eachRow(context.Background(), s.pool, func(r pgx.Rows) error {
		var data []byte
		var x string
		if err := r.Scan(&data, &x); err != nil {
			return err
		}
		vs, err := viewblock.Decode(nil, data)
		var events []string
		for _, v := range vs {
			events, ids[v.EventID] = append(events, v.EventID), v.ID
		}
		blocks, txids = append(blocks, events), append(txids, x)
		return err
	}, "SELECT data, txid::text FROM view_blocks ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	return blocks, txids, ids
}

// A node following the feed from before a move is handed each moved view
// once: those it had as rows are not handed again as blocks, and those it
// had not are handed as blocks (a block keeps its rows' transaction).
func TestMoveViewRowsUnderAFeed(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Unix(0, 0)}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureProduct(ctx, &svc.Product{BrandID: "br_1", ProductID: "p1"}); err != nil {
		t.Fatal(err)
	}
	cur, err := s.ReadSnapshot(ctx, func(svc.EventReader) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	poll := func() {
		t.Helper()
		ch, err := s.Changes(ctx, cur)
		if err != nil {
			t.Fatal(err)
		}
		cur = ch.Cursor
		for _, w := range ch.Writes {
			seen[w.Result.EventID]++
		}
	}
	// Rows, as a node of the version before writes them.
	oldNode := func(eventID string) {
		t.Helper()
		if _, err := s.pool.Exec(ctx, `INSERT INTO view_events (event_id, product, ts, received_at, keyed)
			SELECT $1, id, 1764000000000, 1764000000000, false FROM products WHERE product_id = 'p1'`, eventID); err != nil {
			t.Fatal(err)
		}
	}
	oldNode("r1")
	poll()
	oldNode("r2")
	other, err := Open(ctx, url) // moves r1 and r2
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	if blocks, _, _ := storedBlocks(t, s); len(blocks) != 2 {
		t.Fatalf("blocks %v, want r1 and r2 moved", blocks)
	}
	poll()
	poll()
	if seen["r1"] != 1 || seen["r2"] != 1 {
		t.Fatalf("r1 handed %d times, r2 %d, want once each", seen["r1"], seen["r2"])
	}
}
