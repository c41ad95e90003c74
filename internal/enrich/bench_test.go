package enrich

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match/matchtest"
	"github.com/svc-project/svc/internal/window"
)

// source is the brands and counts over a real catalog and window engine.
type source struct {
	cat    *Catalog
	brands map[string]*svc.Brand
	all    []*svc.Brand
	engine *window.Engine
	now    time.Time
}

func newSource(now time.Time, brands []*svc.Brand) *source {
	s := &source{cat: NewCatalog(), brands: map[string]*svc.Brand{}, all: brands,
		engine: window.New(svc.MaxViewWindow, svc.MaxPurchaseWindow), now: now}
	for _, b := range brands {
		s.brands[b.ID] = b
	}
	return s
}

func (s *source) service() *Service             { return New(s.cat, s, s) }
func (s *source) Brand(id string) *svc.Brand    { return s.brands[id] }
func (s *source) Brands() (int64, []*svc.Brand) { return 1, s.all }
func (s *source) Now() time.Time                { return s.now }
func (s *source) Counts(ref svc.ProductRef, now time.Time, v, p time.Duration) window.Counts {
	return s.engine.Counts(ref, now, v, p)
}

type large struct {
	src      *source
	products []matchtest.Product
	brands   []matchtest.Brand
}

var largeOnce = sync.OnceValue(func() *large { return newLarge(1000, 1000) })

// newLarge is a source of matchtest.Large's shops, as a start loads them,
// with a tenth of the products viewed, bought and priced.
func newLarge(nBrands, perBrand int) *large {
	brands, products := matchtest.Large(11, nBrands, perBrand)
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	var bs []*svc.Brand
	for _, b := range brands {
		bs = append(bs, &svc.Brand{ID: b.ID, Name: b.Name, Domains: b.Domains, MinViewers: 3, MinPurchases: 1})
	}
	src := newSource(now, bs)
	src.cat.index.Load(func(put func(*svc.Product)) error { // as a start does
		for i := range products {
			p := &products[i]
			put(&svc.Product{Ref: svc.ProductRef(i + 1), BrandID: p.BrandID, ProductID: p.ProductID, Title: &p.Title, URL: &p.URL, SKU: &p.SKU})
		}
		return nil
	})
	r := rand.New(rand.NewPCG(3, 4))
	for i := range products {
		ref := svc.ProductRef(i + 1)
		// One product in ten was viewed in the last day, a few bought.
		if r.IntN(10) == 0 {
			for v := range 1 + r.IntN(20) {
				src.engine.AddView(ref, now.Add(-time.Duration(r.IntN(86400))*time.Second), uint64(v), now)
			}
			src.cat.PriceHistory().Add(ref, now.Add(-time.Hour), "EUR", 10+float64(r.IntN(500)))
			src.engine.AddPurchase(ref, now.Add(-time.Hour), 1, now)
		}
	}
	return &large{src: src, products: products, brands: brands}
}

// searchRequest makes 20 results as a search engine shows them: a third by
// a product's own page, a third by title on its shop's site, a third from
// sites that are no brand of ours.
func (l *large) searchRequest(r *rand.Rand) *svc.SearchEnrichRequest {
	req := &svc.SearchEnrichRequest{Results: make([]svc.SearchResult, 20)}
	for i := range req.Results {
		p := l.products[r.IntN(len(l.products))]
		price, cur := float64(10+r.IntN(900)), "EUR"
		res := svc.SearchResult{Price: &price, Currency: &cur}
		switch i % 3 {
		case 0:
			u := p.URL + "?utm_source=google"
			res.URL = &u
		case 1:
			u := "https://" + l.brandDomain(p.BrandID) + "/search?q=x"
			t := p.Title + " | Shop"
			res.URL, res.Title = &u, &t
		case 2:
			u := fmt.Sprintf("https://elsewhere%d.example/item/%d", r.IntN(100), r.IntN(1e6))
			t := p.Title
			res.URL, res.Title = &u, &t
		}
		req.Results[i] = res
	}
	return req
}

func (l *large) brandDomain(id string) string {
	var n int
	fmt.Sscanf(id, "br_%d", &n)
	return l.brands[n].Domains[0]
}

// BenchmarkSearchEnrich20 enriches 20 results against 1,000,000 products
// of 1,000 brands, and reports the latency percentiles of one request.
func BenchmarkSearchEnrich20(b *testing.B) {
	l := largeOnce()
	s := l.src.service()
	r := rand.New(rand.NewPCG(1, 2))
	reqs := make([]*svc.SearchEnrichRequest, 512)
	for i := range reqs {
		reqs[i] = l.searchRequest(r)
	}
	lat := make([]time.Duration, 0, b.N)
	runtime.GC() // the index's construction garbage, not the steady state's
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		s.Search(reqs[i%len(reqs)], "")
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(0.999), "p99.9-ms")
	b.ReportMetric(float64(l.src.cat.index.Len()), "products")
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB") // the index, the prices, the engine and the test's own copy of the products
}

// BenchmarkProductEnrichOffers enriches product pages with their offers at
// 12 shops of 1,300 products each, as a price-comparison site's merchants
// are: half the pages are a shop's own (found by address), half are
// another site's with the title alone; it reports the latency percentiles
// of one request, and how many offers a page got.
func BenchmarkProductEnrichOffers(b *testing.B) {
	l := newLarge(12, 1300)
	s := l.src.service()
	r := rand.New(rand.NewPCG(5, 6))
	reqs := make([]*svc.ProductEnrichRequest, 512)
	for i := range reqs {
		p := l.products[r.IntN(len(l.products))]
		title, price, cur := p.Title, float64(10+r.IntN(900)), "EUR"
		req := &svc.ProductEnrichRequest{Product: svc.PageProduct{Title: &title, Price: &price, Currency: &cur}}
		if i%2 == 0 {
			u := p.URL
			req.Context.URL = &u
		} else {
			u := fmt.Sprintf("https://elsewhere%d.example/item/%d", r.IntN(100), r.IntN(1e6))
			req.Context.URL = &u
		}
		reqs[i] = req
	}
	lat := make([]time.Duration, 0, b.N)
	offers := 0
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		out := s.Product(reqs[i%len(reqs)], "")
		lat = append(lat, time.Since(start))
		offers += len(out.Offers)
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(0.999), "p99.9-ms")
	b.ReportMetric(float64(offers)/float64(len(lat)), "offers/op")
	b.ReportMetric(float64(l.src.cat.index.Len()), "products")
}
