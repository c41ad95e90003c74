package main

import (
	"io"
	"strings"

	"golang.org/x/exp/trace"
)

// A scan is what one pass over a trace found: the view requests with the
// time each spent in each state, the GC mark phases, the group commit
// writer's fsyncs, and the writer's and the applier's states over time.
type scan struct {
	views         []*request // in the order they ended
	marks, fsyncs []span
	// the writer's and the applier's times in each state over the trace
	roles map[string]map[string][]span
	first trace.Time // the trace's first event

	gs       map[trace.GoID]*goroutine
	open     map[trace.TaskID]*request // view requests begun, not yet ended
	markFrom trace.Time                // the start of the open mark phase
}

type goroutine struct {
	state   trace.GoState
	reason  string
	since   trace.Time
	req     *request
	writer  bool // the group commit's writer (tracker.(*batcher).run)
	applier bool // the group commit's applier (tracker.(*batcher).applyCommitted)
	fsync   bool // in an fsync syscall
}

// scanTrace reads the trace in to its end.
func scanTrace(in io.Reader) (*scan, error) {
	r, err := trace.NewReader(in)
	if err != nil {
		return nil, err
	}
	s := &scan{
		roles: map[string]map[string][]span{"writer": {}, "applier": {}},
		gs:    map[trace.GoID]*goroutine{},
		open:  map[trace.TaskID]*request{},
	}
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return nil, err
		}
		s.event(ev)
	}
}

// event takes in one event of the trace.
func (s *scan) event(ev trace.Event) {
	now := ev.Time()
	if s.first == 0 {
		s.first = now
	}
	switch ev.Kind() {
	case trace.EventStateTransition:
		s.transition(ev.StateTransition(), now)
	case trace.EventTaskBegin:
		s.taskBegin(ev, now)
	case trace.EventTaskEnd:
		s.taskEnd(ev, now)
	case trace.EventRegionBegin, trace.EventRegionEnd:
		s.submitRegion(ev, now)
	case trace.EventRangeBegin, trace.EventRangeEnd:
		s.markPhase(ev, now)
	}
}

// transition ends a goroutine's stay in a state: it counts the time to the
// goroutine's view request, or to the writer's or the applier's states,
// or as an fsync, and tells the writer and the applier by their stacks.
func (s *scan) transition(st trace.StateTransition, now trace.Time) {
	if st.Resource.Kind != trace.ResourceGoroutine {
		return
	}
	id := st.Resource.Goroutine()
	from, to := st.Goroutine()
	g := s.gs[id]
	if g == nil {
		g = &goroutine{since: now}
		s.gs[id] = g
	}
	if g.req != nil {
		g.req.byState[stateName(from, g.reason)] += now - g.since
	}
	if g.fsync && from == trace.GoSyscall {
		s.fsyncs = append(s.fsyncs, span{g.since, now})
	}
	stack := stackText(st.Stack)
	g.writer = g.writer || strings.Contains(stack, "(*batcher).run;")
	g.applier = g.applier || strings.Contains(stack, "(*batcher).applyCommitted;")
	if k := stateName(from, g.reason); g.writer {
		if g.fsync {
			k = "Syscall (fsync)"
		}
		s.roles["writer"][k] = append(s.roles["writer"][k], span{g.since, now})
	} else if g.applier {
		s.roles["applier"][k] = append(s.roles["applier"][k], span{g.since, now})
	}
	g.fsync = g.writer && to == trace.GoSyscall && strings.Contains(stack, "fsync")
	g.state, g.since, g.reason = to, now, st.Reason
}

// taskBegin opens a view request; other tasks are not counted.
func (s *scan) taskBegin(ev trace.Event, now trace.Time) {
	t := ev.Task()
	if !strings.HasSuffix(t.Type, "/product-view") {
		return
	}
	req := &request{g: ev.Goroutine(), start: now, byState: map[string]trace.Time{}}
	s.open[t.ID] = req
	if g := s.gs[req.g]; g != nil {
		g.req, g.since = req, now
	}
}

// taskEnd closes a view request, counting its goroutine's last state.
func (s *scan) taskEnd(ev trace.Event, now trace.Time) {
	req := s.open[ev.Task().ID]
	if req == nil {
		return
	}
	delete(s.open, ev.Task().ID)
	req.end = now
	if g := s.gs[req.g]; g != nil && g.req == req {
		req.byState[g.state.String()] += now - g.since
		g.since, g.req = now, nil
	}
	s.views = append(s.views, req)
}

// submitRegion times a view request's wait for the group commit.
func (s *scan) submitRegion(ev trace.Event, now trace.Time) {
	g := s.gs[ev.Goroutine()]
	if ev.Region().Type != "submit" || g == nil || g.req == nil {
		return
	}
	if ev.Kind() == trace.EventRegionBegin {
		g.req.submitStart = now
	} else if g.req.submitStart != 0 {
		g.req.submit = now - g.req.submitStart
	}
}

// markPhase keeps the GC's concurrent mark phases.
func (s *scan) markPhase(ev trace.Event, now trace.Time) {
	if ev.Range().Name != "GC concurrent mark phase" {
		return
	}
	if ev.Kind() == trace.EventRangeBegin {
		s.markFrom = now
	} else if s.markFrom != 0 {
		s.marks = append(s.marks, span{s.markFrom, now})
	}
}

func stateName(s trace.GoState, reason string) string {
	if s == trace.GoWaiting {
		return s.String() + " (" + reason + ")"
	}
	return s.String()
}

func stackText(s trace.Stack) string {
	var b strings.Builder
	for f := range s.Frames() {
		b.WriteString(f.Func)
		b.WriteByte(';')
	}
	return b.String()
}
