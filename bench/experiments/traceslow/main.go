// Command traceslow reads an execution trace of svc under load and tells
// what its slowest collect requests waited for.
//
// svc must be built with bench/experiments/trace-tasks.patch, which wraps
// every request in a runtime/trace task named after its path and the wait
// for the group commit in a region named "submit". Then, while the load
// generator runs:
//
//	curl -o trace.out 'http://127.0.0.1:18091/debug/pprof/trace?seconds=6'
//	go run ./bench/experiments/traceslow trace.out
//
// It prints the view requests' p50 and p99, and for the slowest 1% against
// the middle 10%: the time in the commit wait, in each goroutine state, and
// overlapping a collection's mark phase; what the group commit's writer and
// applier were doing meanwhile (running, in fsync, waiting for a core...);
// the p99 of the requests that overlap no mark phase; and the fsyncs of the
// group commit's writer that took longer than 2.5 ms.
package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"

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
	views, marks, fsyncs, roles, first := s.views, s.marks, s.fsyncs, s.roles, s.first
	if len(views) < 100 {
		return fmt.Errorf("%d view requests in the trace: was svc built with bench/experiments/trace-tasks.patch, and under load?", len(views))
	}
	for _, v := range views {
		v.gc = overlap(marks, v.start, v.end)
	}
	slices.SortFunc(views, func(a, b *request) int { return cmp.Compare(b.took(), a.took()) }) // slowest first
	n := len(views)
	var marked trace.Time
	for _, m := range marks {
		marked += m.to - m.from
	}
	fmt.Fprintf(out, "%d view requests; %d mark phases, %.0f ms in all\n", n, len(marks), ms(marked))
	fmt.Fprintf(out, "p50 %.2f ms, p99 %.2f ms\n", ms(views[n/2].took()), ms(views[n/100].took()))
	var unmarked []trace.Time // slowest first, as views
	for _, v := range views {
		if v.gc == 0 {
			unmarked = append(unmarked, v.took())
		}
	}
	if len(unmarked) > 0 {
		fmt.Fprintf(out, "p99 of the %d requests that overlap no mark phase: %.2f ms\n", len(unmarked), ms(unmarked[len(unmarked)/100]))
	}
	describe(out, "slowest 1%", views[:n/100], roles)
	describe(out, "middle 10% (p45 to p55)", views[n*45/100:n*55/100], roles)
	fmt.Fprintln(out, "the writer's fsyncs over 2.5 ms (ms from the start of the trace: ms):")
	var slow, total int
	for _, s := range fsyncs {
		total++
		if d := ms(s.to - s.from); d > 2.5 {
			slow++
			fmt.Fprintf(out, "  %8.1f: %.2f\n", ms(s.from-first), d)
		}
	}
	fmt.Fprintf(out, "  %d of %d\n", slow, total)
	return nil
}

func describe(out io.Writer, name string, rs []*request, roles map[string]map[string][]span) {
	sum := map[string]trace.Time{}
	var took, submit, gc trace.Time
	inGC := 0
	for _, r := range rs {
		for k, v := range r.byState {
			sum[k] += v
		}
		took, submit, gc = took+r.took(), submit+r.submit, gc+r.gc
		if r.gc > 0 {
			inGC++
		}
	}
	c := trace.Time(len(rs))
	fmt.Fprintf(out, "%s: %d requests, mean %.2f ms, of which %.2f ms in the group commit (from handing the event over until the handler runs again); %d%% overlap a mark phase (%.2f ms on average)\n",
		name, len(rs), ms(took/c), ms(submit/c), 100*inGC/len(rs), ms(gc/c))
	printStates(out, sum, c)
	for _, role := range []string{"writer", "applier"} {
		fmt.Fprintf(out, "  meanwhile the %s (during their commit waits):\n", role)
		byState := map[string]trace.Time{}
		for state, spans := range roles[role] {
			for _, r := range rs {
				if o := overlap(spans, r.submitStart, r.submitStart+r.submit); o > 0 {
					byState[state] += o
				}
			}
		}
		printStates(out, byState, c)
	}
}

func printStates(out io.Writer, sum map[string]trace.Time, c trace.Time) {
	keys := make([]string, 0, len(sum))
	for k := range sum {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(sum[b], sum[a]) })
	for _, k := range keys {
		fmt.Fprintf(out, "    %-28s %.3f ms\n", k, ms(sum[k]/c))
	}
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
