package window

import (
	"testing"
	"time"
)

// CountsNow answers what Counts answers, and the viewers of the now
// window as Counts does with it.
func TestCountsNow(t *testing.T) {
	e := New(7*24*time.Hour, 30*24*time.Hour)
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for i, d := range []time.Duration{0, time.Minute, 4*time.Minute + 59*time.Second, 5 * time.Minute, time.Hour} {
		e.AddView(1, t0.Add(-d), e.SessionHash(string(rune('a'+i))), t0)
	}
	e.AddView(1, t0, e.SessionHash("a"), t0)
	e.AddPurchase(1, t0.Add(-time.Hour), 3, t0)
	for _, nw := range []time.Duration{time.Minute, 5 * time.Minute, time.Hour} {
		c, now := e.CountsNow(1, t0, 2*time.Hour, 24*time.Hour, nw)
		if want := e.Counts(1, t0, 2*time.Hour, 24*time.Hour); c != want {
			t.Fatalf("counts %+v, want %+v", c, want)
		}
		if want := e.Counts(1, t0, nw, 0).Viewers; now != want {
			t.Fatalf("now window %s: %d viewers, want %d", nw, now, want)
		}
	}
	if _, now := e.CountsNow(1, t0, time.Hour, time.Hour, 5*time.Minute); now != 3 {
		t.Fatalf("viewers in the last 5 minutes: %d, want 3", now)
	}
	if c, now := e.CountsNow(2, t0, time.Hour, time.Hour, time.Minute); c != (Counts{}) || now != 0 {
		t.Fatal("an unknown product")
	}
}

// BenchmarkCountsNow is BenchmarkCounts with the now window read too: what
// the proof costs the engine.
func BenchmarkCountsNow(b *testing.B) {
	e := New(7*24*time.Hour, 30*24*time.Hour)
	start := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	const n = 100_000
	for i := range n {
		at := start.Add(time.Duration(i) * time.Second)
		e.AddView(1, at, uint64(i%5000+1), at)
	}
	now := start.Add(n * time.Second)
	b.ReportAllocs()
	for b.Loop() {
		e.CountsNow(1, now, time.Hour, 24*time.Hour, 5*time.Minute)
	}
}
