package insights

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
)

// sketchReads counts the hour sketches the store hands over.
type sketchReads struct {
	*counted
	sketches atomic.Int64
	before   func() // when set, called before a read of sketches
}

func (s *sketchReads) RollupHours(ctx context.Context, brandID, productID string, from, to time.Time, fn func(rollup.Row) error) error {
	if s.before != nil {
		s.before()
	}
	return s.counted.RollupHours(ctx, brandID, productID, from, to, s.count(fn))
}

func (s *sketchReads) RollupHourSums(ctx context.Context, brandID, productID string, from, to time.Time, fn func(rollup.Row) error) error {
	return s.counted.RollupHourSums(ctx, brandID, productID, from, to, s.count(fn))
}

func (s *sketchReads) count(fn func(rollup.Row) error) func(rollup.Row) error {
	return func(r rollup.Row) error {
		if len(r.Viewers) > 0 {
			s.sketches.Add(1)
		}
		return fn(r)
	}
}

// A window's viewers come from the day cache, keyed by the digests of the
// hours' sketches: a reading reads the sketches of the days that changed
// alone, and rows written before the digests are read as they were.
func TestDayCacheReadsTheDaysThatChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := &sketchReads{counted: openCounted(t)}
	n := 0
	view := func(ago time.Duration, session string) *svc.Write {
		n++
		v := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", n%3)},
			Context: svc.ViewContext{SessionID: ptr(session)}}
		at := now.Add(-ago)
		v.Meta = svc.EventMeta{EventID: fmt.Sprint("e", n), Time: at, ReceivedAt: at, Keyed: true}
		return &svc.Write{View: v, MayRegister: true}
	}
	var batch []*svc.Write
	for h := range 10 * 24 {
		batch = append(batch, view(time.Duration(h)*time.Hour, fmt.Sprint("s", h%50)), view(time.Duration(h)*time.Hour+time.Minute, fmt.Sprint("s", h%70)))
	}
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	w := Window{End(now).Add(-8 * 24 * time.Hour), End(now)}
	events := func() int64 {
		d, err := Load(ctx, s, "br_1", now)
		if err != nil {
			t.Fatal(err)
		}
		return d.Totals("", w.From, w.To).Viewers
	}
	c := &Cache{Store: s, Now: func() time.Time { return now }} // TTL 0: a reading per request
	// read reads the window's viewers, and checks them and how many
	// sketches were read (between least and most).
	read := func(c *Cache, step string, want, least, most int64) {
		t.Helper()
		f, err := c.Brand(ctx, "br_1")
		if err != nil {
			t.Fatal(err)
		}
		before := s.sketches.Load()
		got, err := f.Totals(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		if got.Viewers != want {
			t.Errorf("%s: %d viewers, want %d", step, got.Viewers, want)
		}
		if read := s.sketches.Load() - before; read < least || read > most {
			t.Errorf("%s: %d sketches read, want %d to %d", step, read, least, most)
		}
	}
	want := events()
	if want < 60 {
		t.Fatalf("the events give %d viewers", want)
	}
	const all = 8 * 24
	read(c, "first", want, all, all)
	read(c, "again", want, 1, 1) // the current hour's alone
	if err := s.Append(ctx, []*svc.Write{view(3*24*time.Hour+30*time.Minute, "new")}); err != nil {
		t.Fatal(err)
	}
	read(c, "a view three days ago", want+1, 2, 25) // that day's, and the current hour's
	read(c, "and again", want+1, 1, 1)

	// A sketch that changes between its digest and its read is merged as
	// it is, but not kept under the digest read before.
	kept := len(c.days.cur)
	s.before = func() {
		s.before = nil
		if err := s.Append(ctx, []*svc.Write{view(3*24*time.Hour+40*time.Minute, "newer")}); err != nil {
			t.Error(err)
		}
	}
	if err := s.Append(ctx, []*svc.Write{view(3*24*time.Hour+35*time.Minute, "new again")}); err != nil {
		t.Fatal(err)
	}
	read(c, "a view while reading", want+3, 2, 25)
	if len(c.days.cur) != kept {
		t.Errorf("a span read while it changed was kept: %d spans, were %d", len(c.days.cur), kept)
	}
	read(c, "after it", want+3, 2, 25)
	read(c, "and after it again", want+3, 1, 1)

	// Rows written before the digests were kept: their sketches are read
	// with the rest of the row, and give the same merges.
	db, err := sql.Open("sqlite", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE rollup_hours SET viewers_sum = NULL WHERE hour % (5 * 3600000) = 0"); err != nil {
		t.Fatal(err)
	}
	read(c, "some digests missing", want+3, all/5, all/5+2)
	read(&Cache{Store: s, Now: func() time.Time { return now }}, "some digests missing, nothing cached", want+3, all, all+all/5+2)
	if _, err := db.Exec("UPDATE rollup_hours SET viewers_sum = NULL"); err != nil {
		t.Fatal(err)
	}
	read(c, "without digests", want+3, all, all)
	read(&Cache{Store: s, Now: func() time.Time { return now }}, "without digests, nothing cached", want+3, all, all)
}
