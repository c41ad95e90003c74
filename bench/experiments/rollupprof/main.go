// Command rollupprof times a build of the dashboard's rollups on a data
// folder (svc rollups rebuild, or the first start's with -resume), with
// its process CPU, and writes a CPU profile of it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/svc-project/svc/internal/sqlite"
)

func main() {
	data := flag.String("data", "", "a data folder (required)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the build to this file")
	resume := flag.Bool("resume", false, "resume the first start's build rather than build everything again")
	flag.Parse()
	if *data == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*data, *profile, *resume); err != nil {
		fmt.Fprintln(os.Stderr, "rollupprof:", err)
		os.Exit(1)
	}
}

func run(data, profile string, resume bool) error {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, data)
	if err != nil {
		return err
	}
	defer s.Close()
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start, cpu0 := time.Now(), cpu()
	last := start
	err = s.RebuildRollups(ctx, resume, func(day time.Time, done, total int) {
		if time.Since(last) > 10*time.Second {
			fmt.Printf("  %s: %d of %d days, %s\n", day.Format(time.DateOnly), done, total, time.Since(start).Round(time.Second))
			last = time.Now()
		}
	})
	fmt.Printf("built in %s wall, %s CPU\n", time.Since(start).Round(time.Millisecond), (cpu() - cpu0).Round(time.Millisecond))
	return err
}

// cpu is the process's user and system time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
