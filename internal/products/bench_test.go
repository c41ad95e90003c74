package products_test

import (
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
	"github.com/svc-project/svc/internal/match/matchtest"
	"github.com/svc-project/svc/internal/prices"
	"github.com/svc-project/svc/internal/products"
)

// BenchmarkRefUnderWrites reads product refs, as every proof does, while one
// goroutine writes as committed events do: each event puts its product
// into this index and the search index (its title changed in one in ten)
// and records a price paid. "idle" has no writer, for comparison. Run with
// -cpu 2 or more.
func BenchmarkRefUnderWrites(b *testing.B) {
	_, ps := matchtest.Large(11, 100, 1000)
	refs, search, paid := products.New(), match.New(), prices.New()
	for i := range ps {
		p := &ps[i]
		refs.Put(p.BrandID, p.ProductID, svc.ProductRef(i+1))
		search.Put(&svc.Product{Ref: svc.ProductRef(i + 1), BrandID: p.BrandID, ProductID: p.ProductID, Title: &p.Title, URL: &p.URL, SKU: &p.SKU})
	}
	write := func(r *rand.Rand, n int) {
		i := r.IntN(len(ps))
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
	read := func(b *testing.B) {
		var seed atomic.Uint64
		b.RunParallel(func(pb *testing.PB) {
			r := rand.New(rand.NewPCG(seed.Add(1), 7))
			for pb.Next() {
				p := &ps[r.IntN(len(ps))]
				if _, ok := refs.Ref(p.BrandID, p.ProductID); !ok {
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
