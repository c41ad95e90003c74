package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
)

// Views are stored in blocks, a commit group's views together
// (docs/storage.md, Views in blocks): these tests write several views in
// one batch and take some of them out again.

func init() {
	tests = append(tests,
		struct {
			name string
			fn   func(*testing.T, svc.Store)
		}{"ViewBlockColumns", testViewBlockColumns},
		struct {
			name string
			fn   func(*testing.T, svc.Store)
		}{"ViewBlockErasureKeepsTheOthers", testViewBlockErasure},
		struct {
			name string
			fn   func(*testing.T, svc.Store)
		}{"ViewBlockExpiryAcrossTheCutoff", testViewBlockExpiry},
	)
}

func exportedViews(t *testing.T, s svc.Store, brand string) []*svc.ViewEvent {
	t.Helper()
	var out []*svc.ViewEvent
	if err := s.ExportEvents(ctx, brand, func(e svc.ExportedEvent) error {
		if e.View != nil {
			out = append(out, e.View)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// testViewBlockColumns writes views with and without each optional
// column in one batch, and reads every column back as written, oldest
// first, whatever the order in the batch.
func testViewBlockColumns(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	given := t0.Add(-3 * time.Hour)
	full := view("p1", "")
	full.View.Meta = svc.EventMeta{EventID: "01938a4e-8f00-7000-8000-00000000abcd", Time: t0, ReceivedAt: t0.Add(time.Second),
		GivenTime: &given, Keyed: true, Arm: svc.ArmShown}
	full.View.Context = svc.ViewContext{SessionID: ptr("s1"), Country: ptr("AT"), Locale: ptr("de-AT")}
	bare := view("p2", "")
	bare.View.Meta.Time, bare.View.Meta.ReceivedAt = t0.Add(-time.Minute), t0.Add(-time.Minute)
	empty := view("p1", "")
	empty.View.Context.SessionID = ptr("") // given and empty: kept apart from none
	empty.View.Meta.Time, empty.View.Meta.ReceivedAt = t0.Add(time.Minute), t0.Add(time.Minute)
	appendAll(t, s, full, bare, empty)

	got := exportedViews(t, s, "br_1")
	if len(got) != 3 {
		t.Fatalf("%d views exported, want 3", len(got))
	}
	if got[0].Meta.EventID != bare.View.Meta.EventID || got[1].Meta.EventID != full.View.Meta.EventID || got[2].Meta.EventID != empty.View.Meta.EventID {
		t.Fatalf("views out of time order: %s %s %s", got[0].Meta.EventID, got[1].Meta.EventID, got[2].Meta.EventID)
	}
	f := got[1]
	if f.Product.ProductID != "p1" || !f.Meta.Time.Equal(t0) || !f.Meta.ReceivedAt.Equal(t0.Add(time.Second)) ||
		f.Meta.GivenTime == nil || !f.Meta.GivenTime.Equal(given) || !f.Meta.Keyed || f.Meta.Arm != svc.ArmShown ||
		f.Context.SessionID == nil || *f.Context.SessionID != "s1" || f.Context.Country == nil || *f.Context.Country != "AT" ||
		f.Context.Locale == nil || *f.Context.Locale != "de-AT" {
		t.Fatalf("the view with every column read back as %+v %+v %+v", f.Product, f.Meta, f.Context)
	}
	b := got[0]
	if b.Meta.GivenTime != nil || b.Meta.Keyed || b.Meta.Arm != "" || b.Context.SessionID != nil || b.Context.Country != nil || b.Context.Locale != nil {
		t.Fatalf("the bare view read back as %+v %+v", b.Meta, b.Context)
	}
	if e := got[2]; e.Context.SessionID == nil || *e.Context.SessionID != "" {
		t.Fatalf("an empty session read back as %v", e.Context.SessionID)
	}
	var sessions []string
	if err := s.Views(ctx, t0.Add(-time.Hour), func(r svc.ViewRecord) error { sessions = append(sessions, r.SessionID); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sessions, []string{"", "s1", ""}) {
		t.Fatalf("replay's sessions %q", sessions)
	}
}

// testViewBlockErasure erases one session of a brand from a block that
// holds other sessions and another brand's views: they stay, with their
// event ids and, in a store with an event log, their positions.
func testViewBlockErasure(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	withBrand(t, s, "br_2")
	var batch []*svc.Write
	for i := range 10 {
		w := view(fmt.Sprint("p", i%3), "")
		w.View.Context.SessionID = ptr(fmt.Sprint("s", i%2))
		w.View.Meta.Time = t0.Add(time.Duration(i) * time.Second)
		if i == 9 {
			w.View.BrandID = "br_2"
			w.View.Context.SessionID = ptr("s1")
		}
		batch = append(batch, w)
	}
	appendAll(t, s, batch...)
	log, isLog := s.(svc.EventLog)
	positions := map[string]int64{}
	if isLog {
		var i int
		if err := log.ViewsAfter(ctx, 0, time.Time{}, func(pos int64, r svc.ViewRecord) error {
			positions[batch[i].View.Meta.EventID] = pos
			i++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.ForgetSession(ctx, "br_1", "s1"); err != nil || n != 4 {
		t.Fatalf("forget: %d, %v; want br_1's 4 views of s1", n, err)
	}
	var want []string
	for _, w := range batch[:9] {
		if *w.View.Context.SessionID == "s0" {
			want = append(want, w.View.Meta.EventID)
		}
	}
	var got []string
	for _, v := range exportedViews(t, s, "br_1") {
		got = append(got, v.Meta.EventID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("br_1's views after the erasure: %q, want %q", got, want)
	}
	if other := exportedViews(t, s, "br_2"); len(other) != 1 || *other[0].Context.SessionID != "s1" {
		t.Fatalf("br_2's view after br_1's erasure: %d", len(other))
	}
	if n := countViews(t, s); n != 6 {
		t.Fatalf("%d views left, want 6", n)
	}
	if isLog {
		var left []int64
		if err := log.ViewsAfter(ctx, 0, time.Time{}, func(pos int64, _ svc.ViewRecord) error { left = append(left, pos); return nil }); err != nil {
			t.Fatal(err)
		}
		var kept []int64
		for _, w := range batch {
			if w.View.BrandID == "br_2" || *w.View.Context.SessionID == "s0" {
				kept = append(kept, positions[w.View.Meta.EventID])
			}
		}
		if !slices.Equal(left, kept) {
			t.Fatalf("positions after the erasure %v, want %v", left, kept)
		}
	}
	if n, err := s.ForgetSession(ctx, "br_1", "s1"); err != nil || n != 0 {
		t.Fatalf("forgetting again: %d, %v", n, err)
	}
}

// testViewBlockExpiry expires the older part of a block that spans the
// cutoff: its newer views stay, and the rollups lose only the older ones.
func testViewBlockExpiry(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	var batch []*svc.Write
	for i := range 6 {
		w := view("p1", "")
		w.View.Meta.Time = t0.Add(-time.Duration(i) * 12 * time.Hour) // 0 to 60 hours back
		w.View.Meta.ReceivedAt = t0
		batch = append(batch, w)
	}
	appendAll(t, s, batch...)
	rs := s.(rollup.Store)
	hours := func() int64 {
		var views int64
		if err := rs.RollupHours(ctx, "br_1", "", t0.Add(-100*time.Hour), t0.Add(time.Hour), func(r rollup.Row) error { views += r.Views; return nil }); err != nil {
			t.Fatal(err)
		}
		return views
	}
	if v := hours(); v != 6 {
		t.Fatalf("the rollups hold %d views before the expiry, want 6", v)
	}
	n, err := s.DeleteExpired(ctx, t0.Add(-30*time.Hour), t0, 100)
	if err != nil || n < 3 {
		t.Fatalf("expiry: %d, %v; want 3 views at least", n, err)
	}
	var left []time.Time
	if err := s.Views(ctx, t0.Add(-100*time.Hour), func(r svc.ViewRecord) error { left = append(left, r.Time); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(left) != 3 || !left[0].Equal(t0.Add(-24*time.Hour)) || !left[2].Equal(t0) {
		t.Fatalf("views left %v, want the 3 of the last 24 hours, oldest first", left)
	}
	if v := hours(); v != 3 {
		t.Fatalf("the rollups hold %d views after the expiry, want 3", v)
	}
	if got := exportedViews(t, s, "br_1"); len(got) != 3 {
		t.Fatalf("%d views exported after the expiry, want 3", len(got))
	}
}
