// Command rebuildprof opens a data folder as svc serve does, rebuilding the
// counts from the stored events, and writes a CPU profile of that rebuild
// and a heap profile of what it holds afterwards: how bench/RESULTS.md found
// where a restart's time and memory go. As svc serve, it loads the counts
// snapshot of the folder when there is one (delete it to profile the full
// replay), and saves one when done.
//
// Usage (bench/ is a module of its own, hence -C):
//
//	go build -C bench -o /tmp/rebuildprof ./experiments/rebuildprof
//	/tmp/rebuildprof DATA_FOLDER PROFILE_PREFIX
//
// writes PROFILE_PREFIX.cpu and PROFILE_PREFIX.heap.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/tracker"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: rebuildprof DATA_FOLDER PROFILE_PREFIX")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "rebuildprof:", err)
		os.Exit(1)
	}
}

func run(data, prefix string) error {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, data)
	if err != nil {
		return err
	}
	defer store.Close()
	cpu, err := os.Create(prefix + ".cpu")
	if err != nil {
		return err
	}
	defer cpu.Close()
	if err := pprof.StartCPUProfile(cpu); err != nil {
		return err
	}
	start := time.Now()
	t, err := tracker.Open(ctx, store, tracker.Config{Catalog: enrich.NewCatalog(), Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
		EventLog: store, SnapshotPath: filepath.Join(data, "counts.snapshot"), SnapshotInterval: -1})
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	defer t.Close()
	took := time.Since(start)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Printf("rebuilt in %s; heap in use %d MiB, obtained from the system %d MiB\n", took.Round(time.Millisecond), m.HeapInuse>>20, m.Sys>>20)
	heap, err := os.Create(prefix + ".heap")
	if err != nil {
		return err
	}
	defer heap.Close()
	return pprof.WriteHeapProfile(heap)
}
