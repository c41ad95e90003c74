package snapshot

import (
	"math"
	"runtime/debug"
	"testing"
)

// A start paces the collector and limits the runtime's memory to the heap
// kept and some room, and hands back the operator's settings after; an
// operator's own limit is kept throughout.
func TestStartPacing(t *testing.T) {
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		t.Skipf("GOMEMLIMIT is set (%d)", limit)
	}
	percent := debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)

	restore := startPacing()
	if got := debug.SetGCPercent(-1); got != startGCPercent {
		t.Errorf("GOGC during a start is %d, want %d", got, startGCPercent)
	}
	debug.SetGCPercent(startGCPercent)
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 || limit < startLimitSlack {
		t.Errorf("memory limit during a start: %d", limit)
	}
	t.Logf("memory limit during a start: %d MiB", limit>>20)
	restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit after a start: %d, want none", got)
	}
	if got := debug.SetGCPercent(percent); got != percent {
		t.Errorf("GOGC after a start is %d, want %d", got, percent)
	}

	const operator = 1 << 40
	debug.SetMemoryLimit(operator)
	defer debug.SetMemoryLimit(math.MaxInt64)
	restore = startPacing()
	if got := debug.SetMemoryLimit(-1); got != operator {
		t.Errorf("the operator's limit became %d during a start", got)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != operator {
		t.Errorf("the operator's limit became %d after a start", got)
	}
}
