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
	"strings"

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

type goroutine struct {
	state   trace.GoState
	reason  string
	since   trace.Time
	req     *request
	writer  bool // the group commit's writer (tracker.(*batcher).run)
	applier bool // the group commit's applier (tracker.(*batcher).applyCommitted)
	fsync   bool // in an fsync syscall
}

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

func analyse(in io.Reader, out io.Writer) error {
	r, err := trace.NewReader(in)
	if err != nil {
		return err
	}
	gs := map[trace.GoID]*goroutine{}
	open := map[trace.TaskID]*request{}
	var views []*request
	var marks, fsyncs []span
	// the writer's and the applier's times in each state over the trace
	roles := map[string]map[string][]span{"writer": {}, "applier": {}}
	var markFrom, first trace.Time
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		now := ev.Time()
		if first == 0 {
			first = now
		}
		switch ev.Kind() {
		case trace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != trace.ResourceGoroutine {
				continue
			}
			id := st.Resource.Goroutine()
			from, to := st.Goroutine()
			g := gs[id]
			if g == nil {
				g = &goroutine{since: now}
				gs[id] = g
			}
			if g.req != nil {
				g.req.byState[stateName(from, g.reason)] += now - g.since
			}
			if g.fsync && from == trace.GoSyscall {
				fsyncs = append(fsyncs, span{g.since, now})
			}
			stack := stackText(st.Stack)
			g.writer = g.writer || strings.Contains(stack, "(*batcher).run;")
			g.applier = g.applier || strings.Contains(stack, "(*batcher).applyCommitted;")
			if k := stateName(from, g.reason); g.writer {
				if g.fsync {
					k = "Syscall (fsync)"
				}
				roles["writer"][k] = append(roles["writer"][k], span{g.since, now})
			} else if g.applier {
				roles["applier"][k] = append(roles["applier"][k], span{g.since, now})
			}
			g.fsync = g.writer && to == trace.GoSyscall && strings.Contains(stack, "fsync")
			g.state, g.since, g.reason = to, now, st.Reason
		case trace.EventTaskBegin:
			t := ev.Task()
			if !strings.HasSuffix(t.Type, "/product-view") {
				continue
			}
			req := &request{g: ev.Goroutine(), start: now, byState: map[string]trace.Time{}}
			open[t.ID] = req
			if g := gs[req.g]; g != nil {
				g.req, g.since = req, now
			}
		case trace.EventTaskEnd:
			req := open[ev.Task().ID]
			if req == nil {
				continue
			}
			delete(open, ev.Task().ID)
			req.end = now
			if g := gs[req.g]; g != nil && g.req == req {
				req.byState[g.state.String()] += now - g.since
				g.since, g.req = now, nil
			}
			views = append(views, req)
		case trace.EventRegionBegin, trace.EventRegionEnd:
			g := gs[ev.Goroutine()]
			if ev.Region().Type != "submit" || g == nil || g.req == nil {
				continue
			}
			if ev.Kind() == trace.EventRegionBegin {
				g.req.submitStart = now
			} else if g.req.submitStart != 0 {
				g.req.submit = now - g.req.submitStart
			}
		case trace.EventRangeBegin, trace.EventRangeEnd:
			if ev.Range().Name != "GC concurrent mark phase" {
				continue
			}
			if ev.Kind() == trace.EventRangeBegin {
				markFrom = now
			} else if markFrom != 0 {
				marks = append(marks, span{markFrom, now})
			}
		}
	}
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

func stateName(s trace.GoState, reason string) string {
	if s == trace.GoWaiting {
		return s.String() + " (" + reason + ")"
	}
	return s.String()
}

func overlap(spans []span, from, to trace.Time) trace.Time {
	var o trace.Time
	for _, s := range spans {
		if lo, hi := max(from, s.from), min(to, s.to); hi > lo {
			o += hi - lo
		}
	}
	return o
}

func stackText(s trace.Stack) string {
	var b strings.Builder
	for f := range s.Frames() {
		b.WriteString(f.Func)
		b.WriteByte(';')
	}
	return b.String()
}

func ms(t trace.Time) float64 { return float64(t) / 1e6 }
