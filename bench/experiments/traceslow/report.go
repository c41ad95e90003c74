package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"golang.org/x/exp/trace"
)

// report writes what the scan found: the percentiles, the slowest 1% and
// the middle 10% of the view requests side by side, and the slow fsyncs.
// It sorts s.views, slowest first.
func (s *scan) report(out io.Writer) {
	for _, v := range s.views {
		v.gc = overlap(s.marks, v.start, v.end)
	}
	slices.SortFunc(s.views, func(a, b *request) int { return cmp.Compare(b.took(), a.took()) }) // slowest first
	n := len(s.views)
	s.writePercentiles(out)
	s.describe(out, "slowest 1%", s.views[:n/100])
	s.describe(out, "middle 10% (p45 to p55)", s.views[n*45/100:n*55/100])
	s.writeSlowFsyncs(out)
}

// writePercentiles writes the counts of requests and mark phases, the p50
// and p99, and the p99 of the requests that overlap no mark phase.
func (s *scan) writePercentiles(out io.Writer) {
	views, n := s.views, len(s.views)
	var marked trace.Time
	for _, m := range s.marks {
		marked += m.to - m.from
	}
	fmt.Fprintf(out, "%d view requests; %d mark phases, %.0f ms in all\n", n, len(s.marks), ms(marked))
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
}

// describe writes the mean time of the requests rs in all, in the group
// commit, in each goroutine state and overlapping a mark phase, then what
// the writer and the applier were doing while they waited for the commit.
func (s *scan) describe(out io.Writer, name string, rs []*request) {
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
		printStates(out, s.meanwhile(role, rs), c)
	}
}

// meanwhile is the time role spent in each state while the requests rs
// waited for the group commit, summed over them.
func (s *scan) meanwhile(role string, rs []*request) map[string]trace.Time {
	byState := map[string]trace.Time{}
	for state, spans := range s.roles[role] {
		for _, r := range rs {
			if o := overlap(spans, r.submitStart, r.submitStart+r.submit); o > 0 {
				byState[state] += o
			}
		}
	}
	return byState
}

// writeSlowFsyncs lists the writer's fsyncs over 2.5 ms, by when they began.
func (s *scan) writeSlowFsyncs(out io.Writer) {
	fmt.Fprintln(out, "the writer's fsyncs over 2.5 ms (ms from the start of the trace: ms):")
	var slow, total int
	for _, f := range s.fsyncs {
		total++
		if d := ms(f.to - f.from); d > 2.5 {
			slow++
			fmt.Fprintf(out, "  %8.1f: %.2f\n", ms(f.from-s.first), d)
		}
	}
	fmt.Fprintf(out, "  %d of %d\n", slow, total)
}

// printStates writes the states of sum, longest first, each with its time
// divided by c.
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
