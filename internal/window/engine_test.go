package window

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func newEngine() *Engine { return New(svc.MaxViewWindow, svc.MaxPurchaseWindow) }

func TestWindowEdges(t *testing.T) {
	const h, d = time.Hour, 24 * time.Hour
	tests := []struct {
		name          string
		age           time.Duration // how long before now the event happened
		viewWin       time.Duration
		purchWin      time.Duration
		wantView      bool
		wantPurchased bool
	}{
		{"at now", 0, h, d, true, true},
		{"59:59 ago is in 60 min", h - time.Second, h, d, true, true},
		{"60:00 ago is out of 60 min", h, h, d, false, true},
		{"23:59:59 ago is in 24 h", d - time.Second, h, d, false, true},
		{"24:00:00 ago is out of 24 h", d, h, d, false, false},
		{"14:59 ago is in 15 min", 15*time.Minute - time.Second, 15 * time.Minute, 48 * h, true, true},
		{"15:00 ago is out of 15 min", 15 * time.Minute, 15 * time.Minute, 48 * h, false, true},
		{"47:59:59 ago is in 48 h", 48*h - time.Second, 15 * time.Minute, 48 * h, false, true},
		{"48:00:00 ago is out of 48 h", 48 * h, 15 * time.Minute, 48 * h, false, false},
		{"7 days less 1 s is in 10080 min", svc.MaxViewWindow - time.Second, svc.MaxViewWindow, svc.MaxPurchaseWindow, true, true},
		{"7 days is out of 10080 min", svc.MaxViewWindow, svc.MaxViewWindow, svc.MaxPurchaseWindow, false, true},
		{"30 days less 1 s is in 720 h", svc.MaxPurchaseWindow - time.Second, svc.MaxViewWindow, svc.MaxPurchaseWindow, false, true},
		{"30 days is out of 720 h", svc.MaxPurchaseWindow, svc.MaxViewWindow, svc.MaxPurchaseWindow, false, false},
		{"1 s in the future does not count yet", -time.Second, h, d, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine()
			at := t0.Add(-tt.age)
			e.AddView(1, at, e.SessionHash("s1"), t0)
			e.AddPurchase(1, at, 3, t0)
			var want Counts
			if tt.wantView {
				want.Views, want.Viewers = 1, 1
			}
			if tt.wantPurchased {
				want.Purchases, want.Units = 1, 3
			}
			if got := e.Counts(1, t0, tt.viewWin, tt.purchWin); got != want {
				t.Fatalf("Counts = %+v, want %+v", got, want)
			}
		})
	}
}

func TestFutureEventCountsWhenItsSecondComes(t *testing.T) {
	e := newEngine()
	s := e.SessionHash("s")
	e.AddView(1, t0.Add(-10*time.Minute), s, t0)
	e.AddView(1, t0.Add(2*time.Minute), s, t0) // keyed, 2 min ahead
	if got := e.Counts(1, t0, time.Hour, time.Hour); got.Views != 1 || got.Viewers != 1 {
		t.Fatalf("before its time: %+v, want 1 view by 1 viewer", got)
	}
	later := t0.Add(2 * time.Minute)
	if got := e.Counts(1, later, time.Hour, time.Hour); got.Views != 2 || got.Viewers != 1 {
		t.Fatalf("at its time: %+v, want 2 views by 1 viewer", got)
	}
	// The session's latest view is now the newer one: a 1-minute window holds it.
	if got := e.Counts(1, later, time.Minute, time.Hour); got.Views != 1 || got.Viewers != 1 {
		t.Fatalf("1 min window: %+v, want 1 view by 1 viewer", got)
	}
}

func TestViewersAreDistinctSessions(t *testing.T) {
	e := newEngine()
	for i, sess := range []string{"a", "b", "a", "", "c", "a", ""} {
		e.AddView(7, t0.Add(time.Duration(i)*time.Second), e.SessionHash(sess), t0.Add(time.Hour))
	}
	got := e.Counts(7, t0.Add(time.Hour), 2*time.Hour, time.Hour)
	if got.Views != 7 || got.Viewers != 3 {
		t.Fatalf("got %+v, want 7 views by 3 viewers", got)
	}
}

func TestOutOfOrderEvents(t *testing.T) {
	e := newEngine()
	now := t0
	for _, age := range []int{5, 50, 1, 3000, 2, 50, 3599, 3600, 4000} {
		e.AddView(1, now.Add(-time.Duration(age)*time.Second), 0, now)
	}
	if got := e.Counts(1, now, time.Hour, time.Hour).Views; got != 7 {
		t.Fatalf("views = %d, want 7 (ages under 3600 s)", got)
	}
	if got := e.Counts(1, now, time.Minute, time.Hour).Views; got != 5 {
		t.Fatalf("views in 1 min = %d, want 5", got)
	}
}

func TestSweepDropsAgedProducts(t *testing.T) {
	e := newEngine()
	e.AddView(1, t0, e.SessionHash("s"), t0)
	e.AddPurchase(2, t0, 1, t0)
	e.AddView(3, t0.Add(6*24*time.Hour), 0, t0.Add(6*24*time.Hour))
	st := e.Sweep(t0.Add(svc.MaxViewWindow + time.Second))
	if st.Products != 2 {
		t.Fatalf("after 7 days: %d products held, want 2 (the purchase and the newer view)", st.Products)
	}
	st = e.Sweep(t0.Add(svc.MaxPurchaseWindow + time.Second))
	if st.Products != 0 || st.Bytes != 0 {
		t.Fatalf("after 30 days: %+v, want nothing held", st)
	}
	// A session forgotten by the sweep is counted afresh when it comes back.
	now := t0.Add(svc.MaxPurchaseWindow + time.Minute)
	e.AddView(1, now, e.SessionHash("s"), now)
	if got := e.Counts(1, now, time.Hour, time.Hour); got.Views != 1 || got.Viewers != 1 {
		t.Fatalf("returning session: %+v", got)
	}
}

// TestAgainstModel feeds random events, in and out of order, with sweeps in
// between, and compares every count with a brute-force scan.
func TestAgainstModel(t *testing.T) {
	type ev struct {
		ref      svc.ProductRef
		at       time.Time
		session  string
		units    int64
		purchase bool
	}
	rng := rand.New(rand.NewPCG(1, 2))
	e := newEngine()
	var log []ev
	now := t0
	sessions := []string{"", "a", "b", "c", "d", "e", "f"}
	for step := 0; step < 20000; step++ {
		now = now.Add(time.Duration(rng.IntN(120)) * time.Second)
		ref := svc.ProductRef(rng.IntN(4))
		// Mostly now, sometimes late by up to 2 days, sometimes early by up to 5 min.
		at := now
		switch r := rng.IntN(10); {
		case r == 0:
			at = now.Add(-time.Duration(rng.IntN(2*86400)) * time.Second)
		case r == 1:
			at = now.Add(time.Duration(rng.IntN(300)) * time.Second)
		case r < 5:
			at = now.Add(-time.Duration(rng.IntN(30)) * time.Second)
		}
		x := ev{ref: ref, at: at, session: sessions[rng.IntN(len(sessions))]}
		if rng.IntN(8) == 0 {
			x.purchase, x.units = true, int64(1+rng.IntN(3))
			e.AddPurchase(ref, at, x.units, now)
		} else {
			e.AddView(ref, at, e.SessionHash(x.session), now)
		}
		log = append(log, x)
		if step%997 == 0 {
			e.Sweep(now)
		}
		if step%50 != 0 {
			continue
		}
		vw := time.Duration(1+rng.IntN(10080)) * time.Minute
		pw := time.Duration(1+rng.IntN(720)) * time.Hour
		var want Counts
		seen := map[string]bool{}
		for _, x := range log {
			if x.ref != ref || x.at.After(now) {
				continue
			}
			age := now.Sub(x.at)
			switch {
			case x.purchase && age < pw:
				want.Purchases++
				want.Units += x.units
			case !x.purchase && age < vw:
				want.Views++
				if x.session != "" && !seen[x.session] {
					seen[x.session] = true
					want.Viewers++
				}
			}
		}
		if got := e.Counts(ref, now, vw, pw); got != want {
			t.Fatalf("step %d, product %d, windows %s/%s: got %+v, want %+v", step, ref, vw, pw, got, want)
		}
	}
}

func TestUnitsDoNotWrap(t *testing.T) {
	e := newEngine()
	for i := 0; i < 9; i++ { // nine orders of 500 lines of 1,000,000 units
		e.AddPurchase(1, t0, 500*1_000_000, t0)
	}
	if got := e.Counts(1, t0, time.Hour, time.Hour).Units; got != 4_500_000_000 {
		t.Fatalf("units %d, want 4500000000", got)
	}
}

// Trim changes no count.
func TestTrimKeepsCounts(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	e := New(time.Hour, time.Hour)
	for i := range 1000 {
		at := now.Add(-time.Duration(i%3000) * time.Second)
		e.AddView(svc.ProductRef(i%7), at, uint64(i%13), now)
		if i%10 == 0 {
			e.AddPurchase(svc.ProductRef(i%7), at, int64(i%4), now)
		}
	}
	e.AddView(1, now.Add(time.Minute), 5, now) // pending
	var before [7]Counts
	for r := range before {
		before[r] = e.Counts(svc.ProductRef(r), now, time.Hour, time.Hour)
	}
	e.Trim()
	for r := range before {
		if got := e.Counts(svc.ProductRef(r), now, time.Hour, time.Hour); got != before[r] {
			t.Errorf("product %d: %+v after Trim, %+v before", r, got, before[r])
		}
	}
	e.AddView(2, now, 99, now)
	if got := e.Counts(2, now, time.Hour, time.Hour); got.Views != before[2].Views+1 || got.Viewers != before[2].Viewers+1 {
		t.Errorf("a view after Trim: %+v, before %+v", got, before[2])
	}
	if got := e.Counts(1, now.Add(time.Minute), time.Hour, time.Hour); got.Views != before[1].Views+1 {
		t.Errorf("the pending view after Trim: %d views, want %d", got.Views, before[1].Views+1)
	}
}

// AddViewUnixMilli counts what AddView counts of the same time, to the
// second, and SessionHashBytes hashes as SessionHash.
func TestAddViewUnixMilli(t *testing.T) {
	a, b := newKeyed(3600, 3600, [2]uint64{1, 2}), newKeyed(3600, 3600, [2]uint64{1, 2})
	now := time.UnixMilli(1_800_000_000_500)
	for i, ms := range []int64{1_800_000_000_500, 1_799_999_999_999, 1_799_999_999_000, 1_799_999_000_001, 1_800_000_003_000, -1, -1000, -1001, 0} {
		s := fmt.Sprint("s", i%3)
		if i == 4 {
			s = ""
		}
		if got, want := a.SessionHashBytes([]byte(s)), a.SessionHash(s); got != want {
			t.Fatalf("%q: SessionHashBytes %x, SessionHash %x", s, got, want)
		}
		if got, want := secOfMilli(ms), sec(time.UnixMilli(ms)); got != want {
			t.Fatalf("%d ms: second %d, want %d", ms, got, want)
		}
		a.AddViewUnixMilli(9, ms, a.SessionHashBytes([]byte(s)), now)
		b.AddView(9, time.UnixMilli(ms), b.SessionHash(s), now)
	}
	for _, at := range []time.Time{now, now.Add(3 * time.Second)} {
		if got, want := a.Counts(9, at, time.Hour, time.Hour), b.Counts(9, at, time.Hour, time.Hour); got != want || got.Views == 0 {
			t.Fatalf("at %v: %+v, want %+v", at, got, want)
		}
	}
}
