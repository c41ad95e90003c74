// Command traceslow reads an execution trace of svc under load and tells
// what its slowest collect requests waited for.
//
// svc must be built with bench/experiments/trace-tasks.patch, which wraps
// every request in a runtime/trace task named after its path and the wait
// for the group commit in a region named "submit". Then, while the load
// generator runs:
//
//	curl -o trace.out 'http://127.0.0.1:18091/debug/pprof/trace?seconds=6'
//	go build -C bench -o /tmp/traceslow ./experiments/traceslow && /tmp/traceslow trace.out
//
// It prints the view requests' p50 and p99, and for the slowest 1% against
// the middle 10%: the time in the commit wait, in each goroutine state, and
// overlapping a collection's mark phase; what the group commit's writer and
// applier were doing meanwhile (running, in fsync, waiting for a core...);
// the p99 of the requests that overlap no mark phase; and the fsyncs of the
// group commit's writer that took longer than 2.5 ms.
package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/exp/trace"
)

// request is one traced view request.
type request struct {
	g           trace.GoID
	start, end  trace.Time
	byState     map[string]trace.Time // the goroutine's states while the task ran
	submitStart trace.Time
	submit      trace.Time // waiting for the group commit
	gc          trace.Time // overlapping a mark phase
}

func (r *request) took() trace.Time { return r.end - r.start }

type span struct{ from, to trace.Time }

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: traceslow trace.out")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err == nil {
		defer f.Close()
		err = analyse(f, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "traceslow:", err)
		os.Exit(1)
	}
}

// analyse reads the trace from in and writes to out what the slowest view
// requests waited for.
func analyse(in io.Reader, out io.Writer) error {
	s, err := scanTrace(in)
	if err != nil {
		return err
	}
	if len(s.views) < 100 {
		return fmt.Errorf("%d view requests in the trace: was svc built with bench/experiments/trace-tasks.patch, and under load?", len(s.views))
	}
	s.report(out)
	return nil
}

// overlap is the time between from and to that spans cover.
func overlap(spans []span, from, to trace.Time) trace.Time {
	var o trace.Time
	for _, s := range spans {
		if lo, hi := max(from, s.from), min(to, s.to); hi > lo {
			o += hi - lo
		}
	}
	return o
}

func ms(t trace.Time) float64 { return float64(t) / 1e6 }
