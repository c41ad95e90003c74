package products_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
	"github.com/svc-project/svc/internal/match/matchtest"
	"github.com/svc-project/svc/internal/prices"
	"github.com/svc-project/svc/internal/products"
)

// BenchmarkRefUnderWrites reads product refs, as every proof does, while the
// tracker's writes go on as at 20,000 events a second: every millisecond a
// batch of 20, each putting its product into this index and the search index
// (its title changed in one in ten) and recording a price paid. "idle" has
// no writes. It reports each read's 99th and 99.9th percentile, where
// waiting for a lock shows. Run with -cpu 2 or more.
func BenchmarkRefUnderWrites(b *testing.B) {
	_, ps := matchtest.Large(11, 100, 1000)
	refs, search, paid := products.New(), match.New(), prices.New()
	for i := range ps {
		p := &ps[i]
		refs.Put(p.BrandID, p.ProductID, svc.ProductRef(i+1))
		search.Put(&svc.Product{Ref: svc.ProductRef(i + 1), BrandID: p.BrandID, ProductID: p.ProductID, Title: &p.Title, URL: &p.URL, SKU: &p.SKU})
	}
	write := func(i, n int) {
		p := &ps[i]
		title := p.Title
		if n%10 == 0 {
			title += " " + strconv.Itoa(n%7)
		}
		ref := svc.ProductRef(i + 1)
		refs.Put(p.BrandID, p.ProductID, ref)
		search.Put(&svc.Product{Ref: ref, BrandID: p.BrandID, ProductID: p.ProductID, Title: &title})
		paid.Add(ref, time.Now(), "EUR", 10)
	}
	read := func(i int) bool {
		_, ok := refs.Ref(ps[i].BrandID, ps[i].ProductID)
		return ok
	}
	b.Run("idle", func(b *testing.B) { readRefs(b, len(ps), read) })
	b.Run("writing", func(b *testing.B) {
		stop, done := make(chan struct{}), make(chan int)
		go applyBatches(len(ps), 20, write, stop, done)
		readRefs(b, len(ps), read)
		close(stop)
		b.ReportMetric(float64(<-done)/b.Elapsed().Seconds(), "writes/s")
	})
}

// applyBatches writes a batch every millisecond until stop, catching up
// when it falls behind, and sends how many writes it made to done.
func applyBatches(products, batch int, write func(i, n int), stop <-chan struct{}, done chan<- int) {
	r := rand.New(rand.NewPCG(1, 2))
	start, n := time.Now(), 0
	for {
		select {
		case <-stop:
			done <- n
			return
		default:
		}
		due := int(time.Since(start)/time.Millisecond+1) * batch
		for ; n < due; n++ {
			write(r.IntN(products), n)
		}
		time.Sleep(time.Until(start.Add(time.Duration(n/batch) * time.Millisecond)))
	}
}

// readRefs reads random products' refs in parallel and reports the
// latency percentiles of one read, timing one read in 16.
func readRefs(b *testing.B, products int, read func(i int) bool) {
	var seed atomic.Uint64
	var mu sync.Mutex
	var lat []time.Duration
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewPCG(seed.Add(1), 7))
		var own []time.Duration
		for n := 0; pb.Next(); n++ {
			i := r.IntN(products)
			if n%16 != 0 { // timing every read would cost more than a read
				if !read(i) {
					b.Error("a known product was not found")
					return
				}
				continue
			}
			start := time.Now()
			ok := read(i)
			own = append(own, time.Since(start))
			if !ok {
				b.Error("a known product was not found")
				return
			}
		}
		mu.Lock()
		lat = append(lat, own...)
		mu.Unlock()
	})
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Nanoseconds()) }
	b.ReportMetric(pct(0.99), "p99-ns")
	b.ReportMetric(pct(0.999), "p99.9-ns")
}

// BenchmarkPut puts 1,000,000 products of 100 brands into an empty index,
// as a start does, and reports the heap the index keeps.
func BenchmarkPut(b *testing.B) {
	ids := make([]string, 1_000_000)
	for i := range ids {
		ids[i] = "p" + strconv.Itoa(i)
	}
	brands := make([]string, 100)
	for i := range brands {
		brands[i] = "br_" + strconv.Itoa(i)
	}
	var before, after runtime.MemStats
	var x *products.Index
	for b.Loop() {
		x = nil
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		x = products.New()
		for i, id := range ids {
			x.Put(brands[i%len(brands)], id, svc.ProductRef(i+1))
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(x.Len()), "products")
}
