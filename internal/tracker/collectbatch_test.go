package tracker

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/enrich"
)

// appendSpy records the writes of each Append of the store it wraps.
type appendSpy struct {
	svc.Store
	mu      sync.Mutex
	commits [][]*svc.Write
}

func (s *appendSpy) Append(ctx context.Context, batch []*svc.Write) error {
	s.mu.Lock()
	s.commits = append(s.commits, slices.Clone(batch))
	s.mu.Unlock()
	return s.Store.Append(ctx, batch)
}

// A batch request's events go in their order, in slices of at most
// SliceLines lines, each whole in one commit, while single events are
// collected beside them.
func TestCollectBatchIsCommittedInSlices(t *testing.T) {
	f := newSnapshotFixture(t)
	spy := &appendSpy{Store: f.store}
	tr, err := Open(context.Background(), spy, Config{Now: func() time.Time { return f.now }, MaxBatch: 64, Catalog: enrich.NewCatalog()})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("single-", w, "-", i)}}
				if err := CollectView(tr, ev); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	var batches [][]*svc.Write
	for b := range 5 {
		ws := make([]*svc.Write, 300) // more than MaxBatch: never split past the slices all the same
		for i := range ws {
			ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("batch-", b, "-", i)}}
			svc.Stamp(&ev.Meta, nil, true, f.now, svc.DefaultRetention)
			ws[i] = &svc.Write{View: ev, MayRegister: true}
		}
		if b == 4 { // and 3 orders of 800 lines: a slice each
			ws = ws[:3]
			for i := range ws {
				ws[i] = batchOrder("br_1", fmt.Sprint("big-", i), 800, f.now)
			}
		}
		if err := tr.CollectBatch(ws); err != nil {
			t.Fatal(err)
		}
		for i, w := range ws {
			if w.Result.Status != svc.StatusAccepted || w.Result.EventID == "" {
				t.Fatalf("batch %d, event %d: %+v", b, i, w.Result)
			}
		}
		batches = append(batches, ws)
	}
	wg.Wait()
	for b, ws := range batches {
		var got [][]*svc.Write // the batch's part of each commit that has one, in commit order
		for _, c := range spy.commits {
			var part []*svc.Write
			for _, w := range c {
				if slices.Contains(ws, w) {
					part = append(part, w)
				}
			}
			if len(part) > 0 {
				got = append(got, part)
			}
		}
		var want [][]*svc.Write
		for rest := ws; len(rest) > 0; {
			n := sliceLen(rest, SliceLines)
			want, rest = append(want, rest[:n]), rest[n:]
		}
		if b == 4 && len(want) != 3 { // 800 + 800 > 1,000: one order a slice
			t.Errorf("3 orders of 800 lines: %d slices, want 3", len(want))
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("batch %d: committed in %d parts, want %d slices, each whole in one Append, in order", b, len(got), len(want))
		}
	}
}

// batchOrder is a keyed order of lines lines, each a product of its own.
func batchOrder(brand, id string, lines int, now time.Time) *svc.Write {
	items := make([]svc.PurchaseItem, lines)
	for i := range items {
		q := int64(1)
		items[i] = svc.PurchaseItem{ProductID: fmt.Sprint(id, "-", i), Quantity: &q}
	}
	ev := &svc.PurchaseEvent{BrandID: brand, Order: svc.Order{OrderID: id, Items: items}}
	svc.Stamp(&ev.Meta, nil, true, now, svc.DefaultRetention)
	return &svc.Write{Purchase: ev, MayRegister: true}
}
