package enrich

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// BenchmarkSameTitleAbuse enriches requests of 50 results that all name
// one title, at a brand that holds 250,000 products with that title (and
// 1,000 others), as one probe did; and product pages with that title. It
// reports the slowest request's time and CPU time: none may take over
// 50 ms, or 20 ms of CPU.
func BenchmarkSameTitleAbuse(b *testing.B) {
	const same = 250_000
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	var brands []*svc.Brand
	for i := range 4 {
		brands = append(brands, &svc.Brand{ID: fmt.Sprintf("br_%d", i), Name: fmt.Sprintf("Shop %d", i), Domains: []string{fmt.Sprintf("shop%d.example", i)}})
	}
	src := newSource(now, brands)
	title := "Sony WH-1000XM5 Wireless Headphones Black"
	src.cat.index.Load(func(put func(*svc.Product)) error {
		ref := svc.ProductRef(0)
		for i := range same + 3000 {
			ref++
			brand, t := "br_0", title
			if i >= same {
				brand, t = fmt.Sprintf("br_%d", 1+i%3), fmt.Sprintf("%s %d", title, i)
			}
			put(&svc.Product{Ref: ref, BrandID: brand, ProductID: fmt.Sprint(i), Title: &t})
		}
		return nil
	})
	s := src.service()
	search := &svc.SearchEnrichRequest{Results: make([]svc.SearchResult, svc.MaxSearchResults)}
	for i := range search.Results {
		u, t := fmt.Sprintf("https://shop0.example/search?q=%d", i), title
		if i%2 == 1 {
			t = fmt.Sprintf("%s v%d", title, i) // each title its own, so no answer can be reused
		}
		search.Results[i] = svc.SearchResult{URL: &u, Title: &t}
	}
	page := &svc.ProductEnrichRequest{Product: svc.PageProduct{Title: &title}}
	for _, tc := range []struct {
		name string
		do   func()
	}{
		{"search-50", func() { s.Search(search, "") }},
		{"product", func() { s.Product(page, "") }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var wall, cpu []time.Duration
			for b.Loop() {
				start, c0 := time.Now(), threadCPU()
				tc.do()
				cpu = append(cpu, threadCPU()-c0)
				wall = append(wall, time.Since(start))
			}
			slices.Sort(wall)
			slices.Sort(cpu)
			b.ReportMetric(float64(wall[len(wall)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(wall[len(wall)-1].Microseconds())/1000, "max-ms")
			b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "p50-cpu-ms")
			b.ReportMetric(float64(cpu[len(cpu)-1].Microseconds())/1000, "max-cpu-ms")
		})
	}
}
