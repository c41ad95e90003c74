package sqlite

import (
	"context"
	"database/sql"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/svc-project/svc"
)

// cancelOnLog cancels a context at the first record whose message is msg.
type cancelOnLog struct {
	slog.Handler
	msg    string
	cancel func()
}

func (h cancelOnLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.cancel()
	}
	return nil
}

// TestViewRowsMoveIntoBlocks writes a store as the version before blocks
// did (migrations up to 00018, views in view_events), and opens it with
// this one: the first start moves every view into blocks, keeping its
// columns, its event id and its id as its position, and resumes after a
// start that stopped half-way. A backup of the version before, restored
// into a data folder, is such a store.
func TestViewRowsMoveIntoBlocks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	sub, _ := fs.Sub(migrations, "migrations")
	p, err := goose.NewProvider(goose.DialectSQLite3, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 18); err != nil {
		t.Fatal(err)
	}
	const n = 70_000 // more than a slice of the move
	t0 := time.Now().Add(-time.Hour).UnixMilli()
	for _, q := range []string{
		"INSERT INTO brands (id, name, created_at) VALUES ('acme', 'Acme', 0), ('other', 'Other', 0)",
		"INSERT INTO products (brand_id, product_id, title, created_at, updated_at) VALUES ('acme', 'p1', 'One', 0, 0), ('acme', 'p2', NULL, 0, 0), ('other', 'p1', NULL, 0, 0)",
		`WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < 70000)
		INSERT INTO view_events (id, event_id, product, ts, given_ts, received_at, session_id, country, locale, keyed, arm)
		SELECT x * 2, 'ev' || x, 1 + x % 3, ` + "?" + ` + x, CASE WHEN x % 7 = 0 THEN 5 END, ` + "?" + ` + x + 3,
			CASE WHEN x % 5 <> 0 THEN 's' || (x % 100) END, CASE WHEN x % 2 = 0 THEN 'DE' END, 'de-DE', x % 2, iif(x % 3 = 0, 'shown', '')
		FROM i`,
	} {
		args := []any{}
		if q[0] == 'W' {
			args = []any{t0, t0}
		}
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	// A start that stops after the first slice.
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	old := slog.Default()
	slog.SetDefault(slog.New(cancelOnLog{Handler: old.Handler(), msg: "views: moved into blocks", cancel: cancel}))
	s, err := Open(stop, dir)
	slog.SetDefault(old)
	if err == nil {
		s.Close()
		t.Fatal("a start stopped half-way opened")
	}
	s, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	var left int
	if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'view_events'").Scan(&left); err != nil || left != 0 {
		t.Fatalf("view_events still there (%d, %v)", left, err)
	}
	var views int
	if err := s.Views(ctx, time.UnixMilli(t0), func(svc.ViewRecord) error { views++; return nil }); err != nil || views != n {
		t.Fatalf("%d views read back, want %d (%v)", views, n, err)
	}
	pos, err := s.LogPosition(ctx)
	if err != nil || pos.Views != 2*n || pos.ViewEvent != "ev70000" {
		t.Fatalf("log position %+v, %v; want the last row's id and event id", pos, err)
	}
	if ok, err := s.Continues(ctx, svc.LogPosition{Views: 2 * 1000, ViewEvent: "ev1000"}); err != nil || !ok {
		t.Fatalf("a position of the version before does not continue: %v", err)
	}
	var got []*svc.ViewEvent
	if err := s.ExportEvents(ctx, "acme", func(e svc.ExportedEvent) error {
		if e.View != nil {
			got = append(got, e.View)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := 0
	for x := 1; x <= n; x++ {
		if x%3 != 2 {
			want++
		}
	}
	if len(got) != want {
		t.Fatalf("%d views of acme exported, want %d", len(got), want)
	}
	if !slices.IsSortedFunc(got, func(a, b *svc.ViewEvent) int { return a.Meta.Time.Compare(b.Meta.Time) }) {
		t.Error("exported views out of order")
	}
	// ev21: product 1 + 21 % 3 = 1, acme's p1.
	found := false
	for _, v := range got {
		if v.Meta.EventID != "ev21" {
			continue
		}
		m := v.Meta
		if v.Product.ProductID != "p1" || *v.Product.Title != "One" || m.Time.UnixMilli() != t0+21 || m.ReceivedAt.UnixMilli() != t0+24 ||
			m.GivenTime == nil || m.GivenTime.UnixMilli() != 5 || *v.Context.SessionID != "s21" || v.Context.Country != nil ||
			*v.Context.Locale != "de-DE" || !m.Keyed || m.Arm != "shown" {
			t.Fatalf("ev21 moved as %+v %+v %+v", v.Product, m, v.Context)
		}
		found = true
	}
	if !found {
		t.Fatal("ev21 not exported")
	}
}
