//go:build unix

package tracker

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
)

// BenchmarkGroupCommit runs the group commit alone, without HTTP, on a
// real SQLite store:
//
//	go test -run '^$' -bench GroupCommit -count 6 ./internal/tracker
//
// load=closed: 64 writers, each submitting its next view when the last is
// durable; ns/op is per view. load=rate-N: N views a second, each from its
// own goroutine at its due time, as requests arrive; p99-µs is from the
// due time to the answer.
func BenchmarkGroupCommit(b *testing.B) {
	b.Run("load=closed", func(b *testing.B) {
		bt, commits := benchBatcher(b)
		var next atomic.Int64
		b.SetParallelism(32) // 64 writers on 2 cores
		cpu := cpuTime(b)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := bt.submit(benchView(next.Add(1))); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.StopTimer()
		report(b, cpuTime(b)-cpu, commits())
	})
	for _, rate := range []int{1000, 4000} {
		b.Run(fmt.Sprintf("load=rate-%d", rate), func(b *testing.B) {
			bt, commits := benchBatcher(b)
			lat := make([]time.Duration, b.N)
			var wg sync.WaitGroup
			every := time.Second / time.Duration(rate)
			cpu := cpuTime(b)
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				due := start.Add(time.Duration(i) * every)
				time.Sleep(time.Until(due))
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := bt.submit(benchView(int64(i))); err != nil {
						b.Error(err)
					}
					lat[i] = time.Since(due)
				}()
			}
			wg.Wait()
			b.StopTimer()
			report(b, cpuTime(b)-cpu, commits())
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		})
	}
}

func benchBatcher(b *testing.B) (*batcher, func() int64) {
	b.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	if err := store.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Now()}, nil); err != nil {
		b.Fatal(err)
	}
	var commits atomic.Int64
	bt := newBatcher(store, 1000, func([]*svc.Write) { commits.Add(1) }, nil)
	b.Cleanup(bt.close)
	for i := range 1000 { // the products exist, as in a running shop
		if err := bt.submit(benchView(int64(i))); err != nil {
			b.Fatal(err)
		}
	}
	base := commits.Load()
	return bt, func() int64 { return commits.Load() - base }
}

func benchView(i int64) *svc.Write {
	now := time.Now()
	return &svc.Write{MayRegister: true, View: &svc.ViewEvent{BrandID: "br_1",
		Product: svc.ViewProduct{ProductID: fmt.Sprint("p", i%1000)},
		Meta:    svc.EventMeta{EventID: fmt.Sprint("ev_", i, "_", now.UnixNano()), Time: now, ReceivedAt: now}}}
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func report(b *testing.B, cpu time.Duration, commits int64) {
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	if commits > 0 {
		b.ReportMetric(float64(b.N)/float64(commits), "views/commit")
	}
}
