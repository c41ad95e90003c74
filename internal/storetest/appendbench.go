package storetest

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// AppendViews is both stores' BenchmarkAppendViews: b.N batches of
// batchSize views of 1,000 known products from one session, appended as
// the group commit does, with the change feed followed when feed is set
// (as by svc serve: each commit notes its ids). It reports this process's
// CPU time per view and per commit (user and system: the driver, the
// encoding, and for SQLite the engine and the fsync's kernel work, which
// the wall time per batch, mostly the fsync's wait, hides) and, with
// size, the store's bytes per view. eventID names the nth event; around,
// if not nil, is called before the measured appends, and what it returns
// after them (a server process's CPU).
func AppendViews(b *testing.B, s interface {
	svc.Store
	svc.ChangeFeed
}, batchSize int, feed bool, eventID func(n int) string, size func() int64, around func() func()) {
	ctx := context.Background()
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
			ev.Meta = svc.EventMeta{EventID: eventID(n), Time: now, ReceivedAt: now}
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
	var size0 int64
	if size != nil {
		size0 = size()
	}
	after := func() {}
	if around != nil {
		after = around()
	}
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		if err := s.Append(ctx, batches[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := float64(cpuTime() - cpu0)
	after()
	views := float64(b.N * batchSize)
	b.ReportMetric(cpu/views/1e3, "cpu-µs/view")
	b.ReportMetric(cpu/float64(b.N)/1e3, "cpu-µs/commit")
	if size != nil {
		b.ReportMetric(float64(size()-size0)/views, "disk-B/view")
	}
}

// cpuTime is this process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
