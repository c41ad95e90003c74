package postgres

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/storetest"
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
	size := func() int64 {
		var n int64
		if err := s.pool.QueryRow(ctx, `SELECT pg_total_relation_size('view_events') +
			coalesce(pg_total_relation_size(to_regclass('view_blocks')), 0)`).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	}
	server := func() func() {
		var pid int
		if err := s.pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			b.Fatal(err)
		}
		cpu0 := processCPU(b, pid)
		return func() {
			b.ReportMetric(float64(processCPU(b, pid)-cpu0)/float64(b.N*batchSize)/1e3, "server-cpu-µs/view")
		}
	}
	storetest.AppendViews(b, s, batchSize, true, func(int) string { return uuid.Must(uuid.NewV7()).String() }, size, server)
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
