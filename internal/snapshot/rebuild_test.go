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
	"github.com/svc-project/svc/internal/window"
)

// openWithBrand opens a store in a new folder with brand br_1, and
// returns it with the time, to the second.
func openWithBrand(t *testing.T) (*sqlite.Store, time.Time) {
	t.Helper()
	store, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	now := time.Now().UTC().Truncate(time.Second)
	if err := store.CreateBrand(context.Background(), &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	return store, now
}

// A rebuild counts exactly what the events make, with views spread
// over many goroutines and read in many time ranges.
func TestRebuildCountsEveryView(t *testing.T) {
	ctx := context.Background()
	store, now := openWithBrand(t)
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

// A replay counts what AddView counts of the same views one by one, through
// the store's counted views (svc.ViewCounter) and through Views: views
// with and without a session, a session's views out of order, blocks whose
// times overlap, views outside the window and ahead of now.
func TestReplayCountsAsAddView(t *testing.T) {
	ctx := context.Background()
	store, now := openWithBrand(t)
	const nProducts = 23
	rng := rand.New(rand.NewPCG(5, 8))
	for g := range 40 { // commit groups, whose keyed times overlap
		var batch []*svc.Write
		for i := range 1 + rng.IntN(300) {
			var at time.Time
			switch k := rng.IntN(20); {
			case k == 0:
				at = now.Add(-svc.MaxViewWindow - time.Duration(1+rng.IntN(3600))*time.Second) // outside the window
			case k == 1:
				at = now.Add(time.Duration(1+rng.IntN(20)) * time.Second) // ahead of now
			default:
				at = now.Add(-time.Duration(rng.IntN(int(svc.MaxViewWindow/time.Millisecond))) * time.Millisecond)
			}
			ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", rng.IntN(nProducts))}}
			if rng.IntN(8) > 0 {
				session := fmt.Sprint("s", rng.IntN(400))
				ev.Context.SessionID = &session
			}
			ts := at.Format(time.RFC3339Nano)
			if errs := svc.Stamp(&ev.Meta, &ts, true, now, svc.DefaultRetention); errs != nil {
				t.Fatal(errs)
			}
			ev.Meta.EventID = fmt.Sprint("e", g, "-", i)
			batch = append(batch, &svc.Write{View: ev, MayRegister: true})
		}
		if err := store.Append(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := any(store).(svc.ViewCounter); !ok {
		t.Fatal("the embedded store hands over no counted views")
	}
	rebuilt := func(src svc.EventReader) (*window.Engine, *products.Index) {
		l := snapshot.Loader{Refs: products.New(), Catalog: match.New(), Price: func(svc.PurchaseRecord) {},
			Now: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler)}
		e := snapshot.NewEngine()
		if err := l.Rebuild(ctx, src, e, snapshot.Options{Parallel: true}); err != nil {
			t.Fatal(err)
		}
		return e, l.Refs
	}
	counted, refs := rebuilt(store)
	viewed, _ := rebuilt(struct{ svc.EventReader }{store}) // Views only
	one := snapshot.NewEngine()
	if err := store.Views(ctx, now.Add(-svc.MaxViewWindow), func(r svc.ViewRecord) error {
		one.AddView(r.Product, r.Time, one.SessionHash(r.SessionID), now)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for p := range nProducts {
		ref, ok := refs.Ref("br_1", fmt.Sprint("p", p))
		if !ok {
			t.Fatalf("p%d not loaded", p)
		}
		for _, at := range []time.Time{now, now.Add(30 * time.Second)} {
			for _, w := range []time.Duration{time.Minute, time.Hour, svc.MaxViewWindow} {
				want := one.Counts(ref, at, w, w)
				if got := counted.Counts(ref, at, w, w); got != want {
					t.Errorf("p%d at now+%v, window %v: counted views %+v, one by one %+v", p, at.Sub(now), w, got, want)
				}
				if got := viewed.Counts(ref, at, w, w); got != want {
					t.Errorf("p%d at now+%v, window %v: through Views %+v, one by one %+v", p, at.Sub(now), w, got, want)
				}
				if w == svc.MaxViewWindow && at == now && want.Views == 0 {
					t.Errorf("p%d: no views", p)
				}
			}
		}
	}
}
