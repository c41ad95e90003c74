package window

import (
	"fmt"
	"math/rand/v2"
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

// BenchmarkReplay counts 1,000,000 views of 50,000 products, popular by a
// Zipf law as bench/seed's, by 250,000 sessions over a day, in time order,
// into an empty engine, and trims it: a replay at start, a twentieth of
// the size of bench/RESULTS.md's. It reports the engine's bytes before and
// after the trim, and the bytes allocated, the garbage the replay leaves.
func BenchmarkReplay(b *testing.B) {
	const products, views, sessions = 50_000, 1_000_000, 250_000
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, products-1)
	type view struct {
		ref     svc.ProductRef
		at      int64
		session uint64
	}
	vs := make([]view, views)
	start := t0.Add(-24 * time.Hour).UnixMilli()
	for i := range vs {
		vs[i] = view{svc.ProductRef(zipf.Uint64()), start + int64(i)*86_400_000/views, 1 + uint64(rng.IntN(sessions))*0x9e3779b97f4a7c15}
	}
	b.ReportAllocs()
	var before, st Stats
	for b.Loop() {
		e := newEngine()
		for _, v := range vs {
			e.AddViewUnixMilli(v.ref, v.at, v.session, t0)
		}
		before = e.Sweep(t0)
		e.Trim()
		st = e.Sweep(t0)
	}
	b.ReportMetric(float64(before.Bytes), "untrimmed-bytes")
	b.ReportMetric(float64(st.Bytes), "engine-bytes")
}
