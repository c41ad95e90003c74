package insights

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
)

// titleReads counts the titles the store hands over.
type titleReads struct {
	*counted
	rows atomic.Int64
}

func (s *titleReads) BrandTitles(ctx context.Context, brandID string, after rollup.TitlesMark, fn func(int64, string)) (rollup.TitlesMark, bool, error) {
	return s.counted.BrandTitles(ctx, brandID, after, func(ref int64, title string) {
		s.rows.Add(1)
		fn(ref, title)
	})
}

// A brand's titles are kept across readings: the next reading reads the
// titles written since, and shows the latest.
func TestTitlesKeptUntilTheyChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := &titleReads{counted: openCounted(t)}
	const n = 3 * titlesOneByOne
	titled := func(i int, title string) *svc.Write {
		v := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", i), Title: ptr(title)}}
		v.Meta = svc.EventMeta{EventID: fmt.Sprint("e", i, title), Time: now, ReceivedAt: now}
		return &svc.Write{View: v, MayRegister: true}
	}
	var batch []*svc.Write
	for i := range n {
		batch = append(batch, titled(i, fmt.Sprint("Title ", i)))
	}
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	rows := func() []ProductRow {
		out := make([]ProductRow, n)
		for i, w := range batch {
			out[i] = ProductRow{Ref: int64(w.Result.Lines[0].Product), ProductID: fmt.Sprint("p", i)}
		}
		return out
	}
	c := &Cache{Store: s, Now: func() time.Time { return now }} // TTL 0: a reading per request
	read := func(step string, want map[int]string, reads int64) {
		t.Helper()
		f, err := c.Brand(ctx, "br_1")
		if err != nil {
			t.Fatal(err)
		}
		before := s.rows.Load()
		r := rows()
		if err := f.Titled(ctx, r); err != nil {
			t.Fatal(err)
		}
		for i, row := range r {
			w, ok := want[i]
			if !ok {
				w = fmt.Sprint("Title ", i)
			}
			if row.Title != w {
				t.Fatalf("%s: %s's title %q, want %q", step, row.ProductID, row.Title, w)
			}
		}
		if got := s.rows.Load() - before; got != reads {
			t.Errorf("%s: %d titles read from the store, want %d", step, got, reads)
		}
	}
	read("first", nil, n)
	read("again", nil, 0)
	if err := s.Append(ctx, []*svc.Write{titled(7, "Renamed")}); err != nil {
		t.Fatal(err)
	}
	read("after a rename", map[int]string{7: "Renamed"}, 1)
	read("after a rename, again", map[int]string{7: "Renamed"}, 0)

	// Without the cache (a Figures of its own), every title is read.
	f, err := loadFigures(ctx, s, "br_1", now)
	if err != nil {
		t.Fatal(err)
	}
	r := rows()
	if err := f.Titled(ctx, r); err != nil || r[7].Title != "Renamed" || r[8].Title != "Title 8" {
		t.Fatalf("titles without the cache: %v %v", r[7:9], err)
	}
}
