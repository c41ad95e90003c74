package window

import (
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// BenchmarkAddView appends views to 1,000 products at one per product per second.
func BenchmarkAddView(b *testing.B) {
	e := newEngine()
	sessions := make([]uint64, 1024)
	for i := range sessions {
		sessions[i] = e.SessionHash(fmt.Sprint("s", i))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := t0.Add(time.Duration(i/1000) * time.Second)
		e.AddView(svc.ProductRef(i%1000), now, sessions[i%1024], now)
	}
}

// BenchmarkCounts reads one product whose history holds n distinct seconds:
// the cost must grow with log n at most.
func BenchmarkCounts(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 600_000} {
		b.Run(fmt.Sprint("seconds=", n), func(b *testing.B) {
			e := newEngine()
			start := t0
			for i := 0; i < n; i++ {
				at := start.Add(time.Duration(i) * time.Second)
				e.AddView(1, at, uint64(i%5000+1), at)
			}
			now := start.Add(time.Duration(n) * time.Second)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				e.Counts(1, now, time.Hour, 24*time.Hour)
			}
		})
	}
}

// BenchmarkLateView adds, to a product holding a week of views at one every
// other second, a view on time and a view one minute late at a second not
// held yet: the late one moves only the last minute's 30 entries.
func BenchmarkLateView(b *testing.B) {
	e := newEngine()
	const n = 300_000
	for i := 0; i < n; i++ {
		at := t0.Add(time.Duration(2*i) * time.Second)
		e.AddView(1, at, 0, at)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := t0.Add(time.Duration(2*(n+i)) * time.Second)
		e.AddView(1, now, 0, now)
		e.AddView(1, now.Add(-time.Minute+time.Second), 0, now) // an odd second: new
	}
}

// BenchmarkAddPurchase appends orders of 1 to 3 units to 1,000 products.
func BenchmarkAddPurchase(b *testing.B) {
	e := newEngine()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := t0.Add(time.Duration(i/1000) * time.Second)
		e.AddPurchase(svc.ProductRef(i%1000), now, int64(1+i%3), now)
	}
}
