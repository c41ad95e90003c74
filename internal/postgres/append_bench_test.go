package postgres

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres/pgtest"
)

// BenchmarkAppendViews appends batches of views of known products, as the
// group commit does (internal/sqlite's benchmark of the same name), with
// the change feed followed, as by svc serve. The store has one
// connection, so that its server process is known: it reports the CPU
// time per view of this process (pgx, the batch's encoding) and of that
// server process (parse, plan, insert, index, commit), and the bytes the
// views' tables and indexes grew by per view:
//
//	go test -run '^$' -bench AppendViews -benchtime 2000x ./internal/postgres
func BenchmarkAppendViews(b *testing.B) {
	for _, size := range []int{1, 32} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) { benchmarkAppendViews(b, size) })
	}
}

func benchmarkAppendViews(b *testing.B, batchSize int) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.URL(b)+"&pool_max_conns=1")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := s.ReadSnapshot(ctx, func(svc.EventReader) error { return nil }); err != nil {
		b.Fatal(err)
	}
	const products = 1000
	session, country, locale := "s1", "DE", "de-DE"
	n := 0
	batch := func() []*svc.Write {
		ws := make([]*svc.Write, batchSize)
		for i := range ws {
			ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", n%products)},
				Context: svc.ViewContext{SessionID: &session, Country: &country, Locale: &locale}}
			ev.Meta = svc.EventMeta{EventID: uuid.Must(uuid.NewV7()).String(), Time: now, ReceivedAt: now}
			ws[i] = &svc.Write{View: ev, MayRegister: true}
			n++
		}
		return ws
	}
	for range (products + batchSize - 1) / batchSize { // every product known
		if err := s.Append(ctx, batch()); err != nil {
			b.Fatal(err)
		}
	}
	batches := make([][]*svc.Write, b.N)
	for i := range batches {
		batches[i] = batch()
	}
	var pid int
	if err := s.pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		b.Fatal(err)
	}
	size := func() int64 {
		var n int64
		if err := s.pool.QueryRow(ctx, `SELECT pg_total_relation_size('view_events') +
			coalesce(pg_total_relation_size(to_regclass('view_blocks')), 0)`).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	}
	size0, cpu0, server0 := size(), cpuTime(), processCPU(b, pid)
	b.ResetTimer()
	for i := range b.N {
		if err := s.Append(ctx, batches[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	views := float64(b.N * batchSize)
	b.ReportMetric(float64(cpuTime()-cpu0)/views/1e3, "cpu-µs/view")
	b.ReportMetric(float64(processCPU(b, pid)-server0)/views/1e3, "server-cpu-µs/view")
	b.ReportMetric(float64(size()-size0)/views, "disk-B/view")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU is the user and system time of a process of this machine
// (the server's, which runs here in the tests), in clock ticks of 10 ms.
func processCPU(b *testing.B, pid int) time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
