package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// storeWithEvents writes views over three days into a new data folder
// through the store, and returns the brand's rollups as the write path
// kept them.
func storeWithEvents(t *testing.T) (dir, brand string, want string) {
	t.Helper()
	dir = sqlitetest.Dir(t)
	brand = addBrand(t, dir).BrandID
	ctx := context.Background()
	s, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now().UTC()
	var batch []*svc.Write
	for i := range 300 {
		at := now.Add(-time.Duration(i) * 15 * time.Minute) // three days and more
		v := &svc.ViewEvent{BrandID: brand, Product: svc.ViewProduct{ProductID: fmt.Sprint("p", i%5)},
			Context: svc.ViewContext{SessionID: ptr(fmt.Sprint("s", i%17))}}
		v.Meta = svc.EventMeta{EventID: fmt.Sprint("v", i), Time: at, ReceivedAt: at, Keyed: true}
		batch = append(batch, &svc.Write{View: v, MayRegister: true})
		// A few carts and orders with a city, for the funnel and the cities.
		if i%7 == 3 {
			c := &svc.CartEvent{BrandID: brand, Product: svc.ViewProduct{ProductID: fmt.Sprint("p", i%5)}, Context: svc.ViewContext{SessionID: ptr(fmt.Sprint("s", i%17))}}
			c.Meta = svc.EventMeta{EventID: fmt.Sprint("c", i), Time: at.Add(time.Minute), ReceivedAt: at, Keyed: true}
			batch = append(batch, &svc.Write{Cart: c, MayRegister: true})
		}
		if i%11 == 5 {
			o := &svc.PurchaseEvent{BrandID: brand, Order: svc.Order{OrderID: fmt.Sprint("o", i), Currency: ptr("EUR"),
				Items: []svc.PurchaseItem{{ProductID: fmt.Sprint("p", i%5), Quantity: ptr(int64(1)), UnitPrice: ptr(9.5)}}},
				Context: svc.PurchaseContext{SessionID: ptr(fmt.Sprint("s", i%17)), Country: ptr("DE"), City: ptr([]string{"Berlin", "Köln"}[i%2])}}
			o.Meta = svc.EventMeta{EventID: fmt.Sprint("o", i), Time: at.Add(2 * time.Minute), ReceivedAt: at, Keyed: true}
			batch = append(batch, &svc.Write{Purchase: o, MayRegister: true})
		}
	}
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	return dir, brand, rollupsOf(t, s, brand)
}

func ptr[T any](v T) *T { return &v }

func rollupsOf(t *testing.T, s *sqlite.Store, brand string) string {
	t.Helper()
	var rows []rollup.Row
	err := s.RollupHours(context.Background(), brand, "", time.Now().Add(-10*24*time.Hour), time.Now().Add(24*time.Hour),
		func(r rollup.Row) error { rows = append(rows, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rows {
		sk, err := rollup.Sketch(r.Viewers) // its bytes follow the order sessions came in
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d:%d:%d ", r.Hour, r.Views, sk.Estimate())
	}
	if len(rows) < 70 {
		t.Fatalf("%d hours of rollups, want the events' 76", len(rows))
	}
	// The funnel and the cities of those days.
	from, to := time.Now().Add(-10*24*time.Hour), time.Now().Add(24*time.Hour)
	f, err := s.RollupFunnel(context.Background(), brand, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if f.Carted == 0 || f.Bought == 0 {
		t.Fatalf("funnel %+v: want sessions that carted and bought", f)
	}
	cities, err := s.RollupCities(context.Background(), brand, from, to)
	if err != nil || len(cities) == 0 {
		t.Fatalf("cities %v, %v", cities, err)
	}
	fmt.Fprintf(&b, "funnel %+v cities %v", f, cities)
	return b.String()
}

// sessionRowsOf returns the folder's rows of the sessions, the arms and
// the funnel, as text: what a build writes without their triggers.
func sessionRowsOf(t *testing.T, dir string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, q := range []string{"SELECT brand_id, session_id, arm, first_at, last_at, orders, revenue, carts FROM rollup_sessions ORDER BY 1, 2",
		"SELECT brand_id, arm, sessions FROM rollup_arms WHERE sessions <> 0 ORDER BY 1, 2",
		"SELECT brand_id, day, sessions, carted, bought FROM rollup_funnel WHERE sessions <> 0 ORDER BY 1, 2"} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, vals...)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// forgetRollups makes the folder's store look like one of the version
// before the rollups: none kept, none built.
func forgetRollups(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"DELETE FROM rollup_hours", "DELETE FROM rollup_countries", "DELETE FROM rollup_cities", "DELETE FROM rollup_sessions",
		"UPDATE rollup_build SET built_until = 0, done = 0"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRollupsRebuild(t *testing.T) {
	t.Parallel()
	dir, brand, want := storeWithEvents(t)
	wantSessions := sessionRowsOf(t, dir)
	forgetRollups(t, dir)
	out := runCmd(t, "rollups", "rebuild", "--data", dir)
	if !strings.Contains(out, "rollups rebuilt from the stored events") {
		t.Errorf("output %q", out)
	}
	s, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := rollupsOf(t, s, brand); got != want {
		t.Errorf("rebuilt rollups differ from the write path's:\n%s\n%s", got, want)
	}
	if got := sessionRowsOf(t, dir); got != wantSessions {
		t.Errorf("rebuilt sessions, arms and funnel differ from the write path's:\n%s\n%s", got, wantSessions)
	}
}

// The first start of this version on an older store builds the rollups
// from its events before it serves, logging each day; a build stopped
// half-way resumes after its last day.
func TestFirstStartBuildsRollups(t *testing.T) {
	t.Parallel()
	dir, brand, want := storeWithEvents(t)
	wantSessions := sessionRowsOf(t, dir)
	forgetRollups(t, dir)
	// A first start stopped after its first day.
	s, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	days := 0
	err = s.RebuildRollups(ctx, true, func(time.Time, int, int) { days++; cancel() })
	s.Close()
	if !errors.Is(err, context.Canceled) || days != 1 {
		t.Fatalf("the stopped build: %v after %d days", err, days)
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	pr, pw := io.Pipe()
	var logs syncLog
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", dir}, noEnv, pw, &logs)
		pw.Close()
	}()
	readURL(t, bufio.NewReader(pr))
	go io.Copy(io.Discard, pr)
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	log := logs.String()
	if !strings.Contains(log, "rollups: building them from the stored events") || strings.Count(log, "rollups: day built") < 3 || !strings.Contains(log, "rollups: built") {
		t.Errorf("the start's log does not show the build:\n%s", log)
	}
	s, err = sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := rollupsOf(t, s, brand); got != want {
		t.Errorf("the first start's rollups differ from the write path's:\n%s\n%s", got, want)
	}
	if got := sessionRowsOf(t, dir); got != wantSessions {
		t.Errorf("the first start's sessions, arms and funnel differ from the write path's:\n%s\n%s", got, wantSessions)
	}
	if built, err := s.RollupsBuilt(context.Background()); err != nil || !built {
		t.Errorf("built: %v, %v", built, err)
	}
}

type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }
func (l *syncLog) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }
