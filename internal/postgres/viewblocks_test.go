package postgres

import (
	"context"
	"io/fs"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres/pgtest"
)

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

// TestViewRowsMoveIntoBlocks writes a database as the version before
// blocks did (migrations up to 00018, views in view_events) and opens it
// with this one: the first start moves every view into blocks, keeping
// its columns and event id, resumes after a start that stopped half-way,
// and the change feed does not hand the moved views over again.
func TestViewRowsMoveIntoBlocks(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDBFromPool(pool)
	sub, _ := fs.Sub(migrations, "migrations")
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 18); err != nil {
		t.Fatal(err)
	}
	const n = 70_000
	t0 := time.Now().Add(-time.Hour).UnixMilli()
	for _, q := range []string{
		"INSERT INTO brands (id, name, created_at) VALUES ('acme', 'Acme', 0), ('other', 'Other', 0)",
		"INSERT INTO products (brand_id, product_id, title, created_at, updated_at) VALUES ('acme', 'p1', 'One', 0, 0), ('acme', 'p2', NULL, 0, 0), ('other', 'p1', NULL, 0, 0)",
		`INSERT INTO view_events (event_id, product, ts, given_ts, received_at, session_id, country, locale, keyed, arm)
		SELECT 'ev' || x, (SELECT min(id) FROM products) + x % 3, $1::bigint + x, CASE WHEN x % 7 = 0 THEN 5 END, $1::bigint + x + 3,
			CASE WHEN x % 5 <> 0 THEN 's' || (x % 100) END, CASE WHEN x % 2 = 0 THEN 'DE' END, 'de-DE', x % 2 = 1,
			CASE WHEN x % 3 = 0 THEN 'shown' ELSE '' END
		FROM generate_series(1, 70000) AS x`,
	} {
		args := []any{}
		if q[len(q)-1] == 'x' {
			args = []any{t0}
		}
		if _, err := pool.Exec(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	pool.Close()

	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	old := slog.Default()
	slog.SetDefault(slog.New(cancelOnLog{Handler: old.Handler(), msg: "views: moved into blocks", cancel: cancel}))
	s, err := Open(stop, url)
	slog.SetDefault(old)
	if err == nil {
		s.Close()
		t.Fatal("a start stopped half-way opened")
	}
	s, err = Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var gone bool
	if err := s.pool.QueryRow(ctx, "SELECT to_regclass('view_events') IS NULL").Scan(&gone); err != nil || !gone {
		t.Fatalf("view_events still there (%v)", err)
	}
	views := 0
	cur, err := s.ReadSnapshot(ctx, func(r svc.EventReader) error {
		return r.Views(ctx, time.UnixMilli(t0), func(svc.ViewRecord) error { views++; return nil })
	})
	if err != nil || views != n {
		t.Fatalf("%d views read back, want %d (%v)", views, n, err)
	}
	ch, err := s.Changes(ctx, cur)
	if err != nil || len(ch.Writes) != 0 {
		t.Fatalf("the feed after the move: %d writes, %v", len(ch.Writes), err)
	}
	found := false
	err = s.ExportEvents(ctx, "acme", func(e svc.ExportedEvent) error {
		v := e.View
		if v == nil || v.Meta.EventID != "ev21" {
			return nil
		}
		m := v.Meta
		if v.Product.ProductID != "p1" || *v.Product.Title != "One" || m.Time.UnixMilli() != t0+21 || m.ReceivedAt.UnixMilli() != t0+24 ||
			m.GivenTime == nil || m.GivenTime.UnixMilli() != 5 || *v.Context.SessionID != "s21" || v.Context.Country != nil ||
			*v.Context.Locale != "de-DE" || !m.Keyed || m.Arm != "shown" {
			t.Fatalf("ev21 moved as %+v %+v %+v", v.Product, m, v.Context)
		}
		found = true
		return nil
	})
	if err != nil || !found {
		t.Fatalf("ev21 exported: %v, %v", found, err)
	}
}
