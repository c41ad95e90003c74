package tracker

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/postgres"
	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// One brand's maximal batches (5,000 lines, each a new product; three
// requests at once) do not hold another brand's writes until they end:
// those are committed between their slices, and a commit takes one slice
// at most. The other brand's worst latency is logged (bench/RESULTS.md,
// One brand's batch beside another's writes); what is asserted is the
// order of the commits, which no slow machine changes.
func TestBatchDoesNotStallAnotherBrand(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var s svc.Store
			if store == "sqlite" {
				st, err := sqlite.Open(ctx, sqlitetest.Dir(t))
				if err != nil {
					t.Fatal(err)
				}
				s = st
			} else {
				st, err := postgres.Open(ctx, pgtest.URL(t))
				if err != nil {
					t.Fatal(err)
				}
				s = st
			}
			t.Cleanup(func() { s.Close() })
			now := time.Now().UTC()
			for _, id := range []string{"br_big", "br_small"} {
				if err := s.CreateBrand(ctx, &svc.Brand{ID: id, Name: id, CreatedAt: now}, nil); err != nil {
					t.Fatal(err)
				}
			}
			spy := &appendSpy{Store: s}
			tr, err := Open(ctx, spy, Config{Logger: slog.New(slog.DiscardHandler), Catalog: enrich.NewCatalog()})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()

			// Three requests at once, each of 10 orders of 500 lines: the
			// most a batch may carry.
			var batches [3][]*svc.Write
			var batch []*svc.Write // all of them
			for b := range batches {
				batches[b] = make([]*svc.Write, 10)
				for i := range batches[b] {
					batches[b][i] = batchOrder("br_big", fmt.Sprint("big-", b, "-", i), 500, now)
				}
				batch = append(batch, batches[b]...)
			}
			var done atomic.Bool
			var small []*svc.Write
			var worst time.Duration
			var wg sync.WaitGroup
			wg.Go(func() {
				for i := 0; !done.Load(); i++ {
					ev := &svc.ViewEvent{BrandID: "br_small", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", i)}}
					svc.Stamp(&ev.Meta, nil, true, now, svc.DefaultRetention)
					w := &svc.Write{View: ev, MayRegister: true}
					start := time.Now()
					if err := tr.Collect(w); err != nil {
						t.Error(err)
						return
					}
					worst = max(worst, time.Since(start))
					small = append(small, w)
				}
			})
			start := time.Now()
			var big sync.WaitGroup
			for _, ws := range batches {
				big.Go(func() {
					if err := tr.CollectBatch(ws); err != nil {
						t.Error(err)
					}
				})
			}
			big.Wait()
			took := time.Since(start)
			done.Store(true)
			wg.Wait()
			t.Logf("%s: 3 batches of 5,000 lines at once took %s; the other brand's %d views meanwhile waited %s at most", store, took, len(small), worst)

			for i, w := range batch {
				if w.Result.Status != svc.StatusAccepted {
					t.Fatalf("order %d: %+v", i, w.Result)
				}
			}
			for _, w := range small {
				p, err := DefaultProof(tr, "br_small", w.View.Product.ProductID)
				if err != nil || p.Views != 1 {
					t.Fatalf("view of %s: %+v, %v", w.View.Product.ProductID, p, err)
				}
			}
			p, err := DefaultProof(tr, "br_big", "big-2-9-499")
			if err != nil || p.Purchases != 1 || p.Units != 1 {
				t.Fatalf("last line of the batch: %+v, %v", p, err)
			}

			// The commits that hold a part of the batch, and those of the
			// other brand's views: one of the views is committed after the
			// batch's first slice and before its last.
			spy.mu.Lock()
			defer spy.mu.Unlock()
			// Looked up, not searched: 15,000 lines in each of their
			// commits, scanned under the race detector, took seconds.
			batchOf := make(map[*svc.Write]int, len(batch))
			for b, ws := range batches {
				for _, w := range ws {
					batchOf[w] = b
				}
			}
			isSmall := make(map[*svc.Write]bool, len(small))
			for _, w := range small {
				isSmall[w] = true
			}
			first, last, between := -1, -1, 0
			for i, c := range spy.commits {
				if n := lines(c); n > 1024+SliceLines {
					t.Errorf("commit %d holds %d lines: more than MaxBatch (1,024) and a slice", i, n)
				}
				in := map[int]bool{} // batches with a slice in the commit
				for _, w := range c {
					if b, ok := batchOf[w]; ok {
						in[b] = true
					}
				}
				if len(in) > 1 {
					t.Errorf("commit %d holds slices of %d batches: one at most", i, len(in))
				}
				if len(in) > 0 {
					if first < 0 {
						first = i
					}
					last = i
				}
			}
			for _, c := range spy.commits[first+1 : last] {
				if slices.ContainsFunc(c, func(w *svc.Write) bool { return isSmall[w] }) {
					between++
				}
			}
			if last-first < 4 {
				t.Errorf("the batches of 5,000 lines went in commits %d to %d: want 5 slices at least", first, last)
			}
			if between == 0 {
				t.Errorf("none of the other brand's %d views was committed between the batch's slices", len(small))
			}
		})
	}
}
