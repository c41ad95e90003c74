package tracker

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// TestRecountDuringWritesLosesAndDoublesNothing recounts again and again
// while writers send views and purchases: at the end the counts must equal
// exactly what was acknowledged.
func TestRecountDuringWritesLosesAndDoublesNothing(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, sqlitetest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	tr, err := Open(ctx, store, Config{Logger: slog.New(slog.DiscardHandler), Catalog: enrich.NewCatalog()})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()

	var views, purchases atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				session := fmt.Sprintf("s%d-%d", w, i)
				if i%3 == 2 {
					q := int64(1)
					ev := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: fmt.Sprintf("o%d-%d", w, i),
						Items: []svc.PurchaseItem{{ProductID: "p1", Quantity: &q}}}}
					if err := CollectPurchase(tr, ev); err != nil {
						t.Error(err)
						return
					}
					purchases.Add(1)
					continue
				}
				ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"}, Context: svc.ViewContext{SessionID: &session}}
				if err := CollectView(tr, ev); err != nil {
					t.Error(err)
					return
				}
				views.Add(1)
			}
		}()
	}
	// Ten recounts, each of every event written so far: the writers'
	// commits cost CPU for as long as they go on. The order a recount must
	// keep with the applier has a test of its own,
	// TestLockCommittedWaitsForTheApplier.
	for range 10 {
		if err := tr.recount(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	p, err := DefaultProof(tr, "br_1", "p1")
	if err != nil {
		t.Fatal(err)
	}
	if p.Views != views.Load() || p.Viewers != views.Load() || p.Purchases != purchases.Load() || views.Load() == 0 {
		t.Fatalf("after recounts: %d views, %d viewers, %d purchases; acknowledged %d views, %d purchases",
			p.Views, p.Viewers, p.Purchases, views.Load(), purchases.Load())
	}
}
