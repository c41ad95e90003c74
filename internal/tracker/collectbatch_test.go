package tracker

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
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

// A batch request's events go in one commit, whole, in their order, while
// single events are collected beside it.
func TestCollectBatchIsOneCommit(t *testing.T) {
	f := newSnapshotFixture(t)
	spy := &appendSpy{Store: f.store}
	tr, err := Open(context.Background(), spy, Config{Now: func() time.Time { return f.now }, MaxBatch: 64})
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
		ws := make([]*svc.Write, 300) // more than MaxBatch: never split all the same
		for i := range ws {
			ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("batch-", b, "-", i)}}
			svc.Stamp(&ev.Meta, nil, true, f.now, svc.DefaultRetention)
			ws[i] = &svc.Write{View: ev, MayRegister: true}
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
		found := false
		for _, c := range spy.commits {
			if i := slices.Index(c, ws[0]); i >= 0 {
				found = len(c) >= i+len(ws) && slices.Equal(c[i:i+len(ws)], ws)
				break
			}
		}
		if !found {
			t.Errorf("batch %d was not committed whole, in order, in one Append", b)
		}
	}
}
