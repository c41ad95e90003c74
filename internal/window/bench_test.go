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
