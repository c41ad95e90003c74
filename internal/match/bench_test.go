package catalog_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/catalog"
	"github.com/svc-project/svc/internal/catalog/catalogtest"
)

// BenchmarkBuild puts 1,000,000 products into an empty catalog, as a start
// does, and reports the heap the catalog keeps: "fixture" has the titles of
// catalogtest.Large (1,000 brands), "seed" those of bench/seed ("Product
// 123" at one of 100 brands: a million distinct words).
func BenchmarkBuild(b *testing.B) {
	b.Run("fixture", func(b *testing.B) {
		_, products := catalogtest.Large(11, 1000, 1000)
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

var built *catalog.Catalog // kept for -memprofile

// benchmarkBuild fills a catalog with Load, as a start does, or with one
// Put a product.
func benchmarkBuild(b *testing.B, ps []svc.Product) {
	b.Run("load", func(b *testing.B) {
		fill(b, func(c *catalog.Catalog) {
			c.Load(func(put func(*svc.Product)) error {
				for i := range ps {
					put(&ps[i])
				}
				return nil
			})
		})
	})
	b.Run("put", func(b *testing.B) {
		fill(b, func(c *catalog.Catalog) {
			for i := range ps {
				c.Put(&ps[i])
			}
		})
	})
}

func fill(b *testing.B, fn func(*catalog.Catalog)) {
	var before, after runtime.MemStats
	var c *catalog.Catalog
	for b.Loop() {
		c = nil
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		c = catalog.New()
		fn(c)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(c.Len()), "products")
	built = c
}

// BenchmarkRefUnderWrites reads product refs, as every proof does, while one
// goroutine writes as committed events do: each event puts its product
// (its title changed in one in ten) and records a price paid. "idle" has
// no writer, for comparison. Run with -cpu 2 or more.
func BenchmarkRefUnderWrites(b *testing.B) {
	_, products := catalogtest.Large(11, 100, 1000)
	c := catalog.New()
	for i := range products {
		p := &products[i]
		c.Put(&svc.Product{Ref: svc.ProductRef(i + 1), BrandID: p.BrandID, ProductID: p.ProductID, Title: &p.Title, URL: &p.URL, SKU: &p.SKU})
	}
	write := func(r *rand.Rand, n int) {
		i := r.IntN(len(products))
		p := &products[i]
		title := p.Title
		if n%10 == 0 {
			title += " " + strconv.Itoa(n%7)
		}
		ref := svc.ProductRef(i + 1)
		c.Put(&svc.Product{Ref: ref, BrandID: p.BrandID, ProductID: p.ProductID, Title: &title})
		c.AddPrice(ref, time.Now(), "EUR", 10)
	}
	read := func(b *testing.B) {
		var seed atomic.Uint64
		b.RunParallel(func(pb *testing.PB) {
			r := rand.New(rand.NewPCG(seed.Add(1), 7))
			for pb.Next() {
				p := &products[r.IntN(len(products))]
				if _, ok := c.Ref(p.BrandID, p.ProductID); !ok {
					b.Fatal("a known product was not found")
				}
			}
		})
	}
	b.Run("idle", read)
	b.Run("writing", func(b *testing.B) {
		stop, done := make(chan struct{}), make(chan int)
		go func() {
			r := rand.New(rand.NewPCG(1, 2))
			n := 0
			for ; ; n++ {
				select {
				case <-stop:
					done <- n
					return
				default:
				}
				write(r, n)
			}
		}()
		read(b)
		close(stop)
		b.ReportMetric(float64(<-done)/float64(b.N), "writes/op")
	})
}
