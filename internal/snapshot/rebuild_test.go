package snapshot_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
	"github.com/svc-project/svc/internal/products"
	"github.com/svc-project/svc/internal/snapshot"
	"github.com/svc-project/svc/internal/sqlite"
)

// A rebuild counts exactly what the events make, with views spread
// over many goroutines and read in many time ranges.
func TestRebuildCountsEveryView(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Now().UTC().Truncate(time.Second)
	if err := store.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	const nProducts, views = 37, 30_000
	type want struct {
		views    int64
		sessions map[string]bool
	}
	wants := make([]want, nProducts)
	rng := rand.New(rand.NewPCG(3, 3))
	var batch []*svc.Write
	for i := range views {
		p := rng.IntN(nProducts)
		at := now.Add(-time.Duration(rng.IntN(2*3600)) * time.Second) // the last two hours
		ts, session := at.Format(time.RFC3339), fmt.Sprint("s", rng.IntN(5000))
		ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", p)}, Context: svc.ViewContext{SessionID: &session}}
		if errs := svc.Stamp(&ev.Meta, &ts, true, now, svc.DefaultRetention); errs != nil {
			t.Fatal(errs)
		}
		ev.Meta.EventID = fmt.Sprint("e", i)
		batch = append(batch, &svc.Write{View: ev, MayRegister: true})
		if at.After(now.Add(-time.Hour)) {
			if wants[p].sessions == nil {
				wants[p].sessions = map[string]bool{}
			}
			wants[p].views++
			wants[p].sessions[session] = true
		}
	}
	if err := store.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	l := snapshot.Loader{Refs: products.New(), Catalog: match.New(), Price: func(svc.PurchaseRecord) {},
		Now: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler)}
	e := snapshot.NewEngine()
	if err := l.Rebuild(ctx, store, e, snapshot.Options{Parallel: true, Startup: true}); err != nil {
		t.Fatal(err)
	}
	for p, w := range wants {
		ref, ok := l.Refs.Ref("br_1", fmt.Sprint("p", p))
		if !ok {
			t.Fatalf("p%d not loaded", p)
		}
		c := e.Counts(ref, now, time.Hour, time.Hour)
		if c.Views != w.views || c.Viewers != int64(len(w.sessions)) {
			t.Errorf("p%d: %d views by %d viewers, want %d by %d", p, c.Views, c.Viewers, w.views, len(w.sessions))
		}
	}
}
