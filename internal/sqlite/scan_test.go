package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// Views are read in many time ranges at once and must still come oldest
// first, each exactly once, from since on; an error from fn stops the scan.
func TestViewsInOrderAcrossRanges(t *testing.T) {
	s := withBrand(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 3000
	var batch []*svc.Write
	for i := range n {
		// Out of order in the table, spread over 10 hours with clumps.
		at := t0.Add(-time.Duration(rng.IntN(36_000)) * time.Second)
		if i%10 == 0 {
			at = t0.Add(-5 * time.Hour)
		}
		ts, session := at.Format(time.RFC3339), fmt.Sprint("s", i)
		ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", i%7)}, Context: svc.ViewContext{SessionID: &session}}
		if errs := svc.Stamp(&ev.Meta, &ts, true, t0, svc.DefaultRetention); errs != nil {
			t.Fatal(errs)
		}
		ev.Meta.EventID = fmt.Sprint("e", i)
		batch = append(batch, &svc.Write{View: ev, MayRegister: true})
	}
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	since := t0.Add(-8 * time.Hour)
	want := 0
	for _, w := range batch {
		if !w.View.Meta.Time.Before(since) {
			want++
		}
	}
	seen := map[string]bool{}
	var last time.Time
	err := s.Views(ctx, since, func(r svc.ViewRecord) error {
		if r.Time.Before(last) || r.Time.Before(since) {
			t.Fatalf("view at %s after one at %s (since %s)", r.Time, last, since)
		}
		if seen[r.SessionID] {
			t.Fatalf("session %s twice", r.SessionID)
		}
		last, seen[r.SessionID] = r.Time, true
		return nil
	})
	if err != nil || len(seen) != want {
		t.Fatalf("%d views, want %d: %v", len(seen), want, err)
	}
	// Views as a replay counts them: the same, in the same order.
	var views, counted []svc.CountedView
	hash := func(b []byte) uint64 {
		if len(b) == 0 {
			return 0
		}
		return uint64(len(b))<<32 | uint64(b[len(b)-1])
	}
	_ = s.Views(ctx, since, func(r svc.ViewRecord) error {
		views = append(views, svc.CountedView{Product: r.Product, UnixMilli: r.Time.UnixMilli(), Session: hash([]byte(r.SessionID))})
		return nil
	})
	if err := s.CountedViews(ctx, since, hash, func(vs []svc.CountedView) error { counted = append(counted, vs...); return nil }); err != nil || !slices.Equal(counted, views) {
		t.Fatalf("counted views differ from Views (%v)", err)
	}

	stop := errors.New("stop")
	calls := 0
	err = s.Views(ctx, since, func(svc.ViewRecord) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("after an error: %d calls, %v", calls, err)
	}
	if err := s.Views(ctx, t0.Add(time.Hour), func(svc.ViewRecord) error { return stop }); err != nil {
		t.Fatalf("no views: %v", err)
	}
}

// The writer's memory of products follows every change: updates within a
// batch, across batches, and a change made by EnsureProduct in between.
func TestProductMemoFollowsEveryWrite(t *testing.T) {
	s := withBrand(t)
	ctx := context.Background()
	withTitle := func(title string) *svc.Write {
		ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1", Title: &title}}
		svc.Stamp(&ev.Meta, nil, true, t0, svc.DefaultRetention)
		ev.Meta.EventID = title
		return &svc.Write{View: ev, MayRegister: true}
	}
	stored := func() string {
		var title string
		_ = s.Products(ctx, func(p *svc.Product) error { title = *p.Title; return nil })
		return title
	}
	steps := []struct {
		do   func() error
		want string
	}{
		{func() error { return s.Append(ctx, []*svc.Write{withTitle("A"), withTitle("B")}) }, "B"},
		{func() error { return s.Append(ctx, []*svc.Write{withTitle("A")}) }, "A"},
		{func() error {
			title := "C"
			_, err := s.EnsureProduct(ctx, &svc.Product{BrandID: "br_1", ProductID: "p1", Title: &title})
			return err
		}, "C"},
		{func() error { return s.Append(ctx, []*svc.Write{withTitle("A")}) }, "A"},
		{func() error { // a batch that takes the slow path, with savepoints
			gone := withTitle("x")
			gone.View.BrandID = "br_gone" // its product breaks a foreign key
			return s.Append(ctx, []*svc.Write{withTitle("B"), gone})
		}, "B"},
		{func() error { return s.Append(ctx, []*svc.Write{withTitle("A")}) }, "A"},
	}
	for i, st := range steps {
		if err := st.do(); err != nil {
			t.Fatal(err)
		}
		if got := stored(); got != st.want {
			t.Fatalf("step %d: title %q, want %q", i, got, st.want)
		}
	}
}
