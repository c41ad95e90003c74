package match_test

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
	"github.com/svc-project/svc/internal/match/matchtest"
)

// BenchmarkBuild puts 1,000,000 products into an empty index, as a start
// does, and reports the heap the index keeps: "fixture" has the titles of
// matchtest.Large (1,000 brands), "seed" those of bench/seed ("Product
// 123" at one of 100 brands: a million distinct words).
func BenchmarkBuild(b *testing.B) {
	b.Run("fixture", func(b *testing.B) {
		_, products := matchtest.Large(11, 1000, 1000)
		ps := make([]svc.Product, len(products))
		for i := range products {
			p := &products[i]
			ps[i] = svc.Product{Ref: svc.ProductRef(i + 1), BrandID: p.BrandID, ProductID: p.ProductID, Title: &p.Title, URL: &p.URL, SKU: &p.SKU}
		}
		benchmarkBuild(b, ps)
	})
	b.Run("seed", func(b *testing.B) {
		ps := make([]svc.Product, 1_000_000)
		for r := range ps {
			id := strconv.Itoa(r)
			brand := fmt.Sprintf("br_%03d", r%100)
			title, url, sku := "Product "+id, "https://shop"+brand+".example/p/"+id, "SKU-"+id
			ps[r] = svc.Product{Ref: svc.ProductRef(r + 1), BrandID: brand, ProductID: "p" + id, Title: &title, URL: &url, SKU: &sku}
		}
		benchmarkBuild(b, ps)
	})
}

var built *match.Index // kept for -memprofile

// benchmarkBuild fills an index with Load, as a start does, or with one
// Put a product.
func benchmarkBuild(b *testing.B, ps []svc.Product) {
	b.Run("load", func(b *testing.B) {
		fill(b, func(c *match.Index) {
			c.Load(func(put func(*svc.Product)) error {
				for i := range ps {
					put(&ps[i])
				}
				return nil
			})
		})
	})
	b.Run("put", func(b *testing.B) {
		fill(b, func(c *match.Index) {
			for i := range ps {
				c.Put(&ps[i])
			}
		})
	})
}

func fill(b *testing.B, fn func(*match.Index)) {
	var before, after runtime.MemStats
	var c *match.Index
	for b.Loop() {
		c = nil
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		c = match.New()
		fn(c)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(c.Len()), "products")
	built = c
}
