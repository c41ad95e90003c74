package purchasefeed

import (
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// BenchmarkRecent reads the feed of a brand with n orders in its window,
// over 1,000 products and 50 cities: all products, and one product, in the
// second the window was counted, and in a new second.
func BenchmarkRecent(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		f := New()
		for i := range n {
			f.Add(svc.RecentPurchase{BrandID: "b", Order: fmt.Sprint("o", i), Product: svc.ProductRef(1 + i%1000),
				Time: t0.Add(-time.Duration(n-i) * 800 * time.Millisecond), Units: 1, Country: "DE", City: fmt.Sprint("c", i%50), Keyed: true})
		}
		// A new second: the window is counted again, once a second a brand.
		b.Run(fmt.Sprintf("orders=%d/new-second", n), func(b *testing.B) {
			b.ReportAllocs()
			now := t0
			for b.Loop() {
				now = now.Add(time.Second)
				f.Recent("b", 0, rules, now)
			}
		})
		for _, product := range []svc.ProductRef{0, 7} {
			b.Run(fmt.Sprintf("orders=%d/product=%d", n, product), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if len(f.Recent("b", product, rules, t0)) == 0 {
						b.Fatal("nothing")
					}
				}
			})
		}
	}
}

// BenchmarkCut is what a save holds the commit path for: a week of
// 400,000 orders of one brand (the restart's seed).
func BenchmarkCut(b *testing.B) {
	f := New()
	for i := range 400_000 {
		f.Add(svc.RecentPurchase{BrandID: "b", Order: fmt.Sprint("o", i), Product: svc.ProductRef(1 + i%100_000),
			Time: t0.Add(time.Duration(i) * time.Second), Units: 1, Country: "DE", City: fmt.Sprint("c", i%50), Keyed: true})
	}
	b.ReportAllocs()
	for b.Loop() {
		f.Cut()
	}
}
