package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
)

// BenchmarkAppendViews appends batches of views of known products, as the
// group commit does: 32 under load, 1 to 4 at moderate rates. It reports
// the CPU time of the whole process per view and per commit (user and
// system: SQLite, database/sql and the fsync's kernel work), which the
// wall time per batch, mostly the fsync's wait, hides. The sizes together
// split a commit's fixed cost from a view's. With feed, the store's change
// feed is followed, as by svc serve: each commit notes its ids (feed.go).
func BenchmarkAppendViews(b *testing.B) {
	for _, size := range []int{1, 4, 32} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) { benchmarkAppendViews(b, size, false) })
		b.Run(fmt.Sprintf("batch=%d/feed", size), func(b *testing.B) { benchmarkAppendViews(b, size, true) })
	}
}

func benchmarkAppendViews(b *testing.B, batchSize int, feed bool) {
	ctx := context.Background()
	dir := b.TempDir()
	s, err := sqlite.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		b.Fatal(err)
	}
	if feed {
		if _, err := s.ReadSnapshot(ctx, func(svc.EventReader) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	const products = 1000
	session, country, locale := "s1", "DE", "de-DE"
	n := 0
	batch := func() []*svc.Write {
		ws := make([]*svc.Write, batchSize)
		for i := range ws {
			ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", n%products)},
				Context: svc.ViewContext{SessionID: &session, Country: &country, Locale: &locale}}
			ev.Meta = svc.EventMeta{EventID: fmt.Sprint("e", n), Time: now, ReceivedAt: now}
			ws[i] = &svc.Write{View: ev, MayRegister: true}
			n++
		}
		return ws
	}
	for range (products + batchSize - 1) / batchSize { // every product known to the writer
		if err := s.Append(ctx, batch()); err != nil {
			b.Fatal(err)
		}
	}
	batches := make([][]*svc.Write, b.N)
	for i := range batches {
		batches[i] = batch()
	}
	size0 := dbBytes(b, dir)
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		if err := s.Append(ctx, batches[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := float64(cpuTime() - cpu0)
	b.ReportMetric(cpu/float64(b.N*batchSize)/1e3, "cpu-µs/view")
	b.ReportMetric(cpu/float64(b.N)/1e3, "cpu-µs/commit")
	b.ReportMetric(float64(dbBytes(b, dir)-size0)/float64(b.N*batchSize), "disk-B/view")
}

// dbBytes is the size of the database's pages, those in the log too.
func dbBytes(b *testing.B, dir string) int64 {
	db, err := sql.Open("sqlite", filepath.Join(dir, sqlite.FileName))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var pages, size int64
	if err := db.QueryRow("SELECT page_count * page_size, freelist_count * page_size FROM pragma_page_count(), pragma_page_size(), pragma_freelist_count()").Scan(&pages, &size); err != nil {
		b.Fatal(err)
	}
	return pages - size
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
