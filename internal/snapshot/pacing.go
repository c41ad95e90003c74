package snapshot

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// startLimitSlack is what a start's memory limit allows over the heap goal
// of startGCPercent: the runtime's own memory (spans, GC metadata, stacks)
// and a goal overshot while a collection marks.
const startLimitSlack = 96 << 20

// startPacing paces the collector for a start (startGCPercent), and keeps
// the runtime's memory under a limit that follows the heap kept: the
// collector's goal, a quarter over it, plus startLimitSlack. The goal
// alone bounds the heap, not what the process holds: the pages a
// collection freed stayed resident until the background scavenger, at
// about 1% of a core, got to them, and a full replay of 20 million views
// peaked at 1,571 to 1,579 MiB of RSS. Near the limit the scavenger
// returns them: 1,511 MiB, and 1,471 to 1,477 from the snapshot, with the
// same CPU. A limit an eighth over the heap kept peaked 100 MiB lower
// but made the collector run more: 6.5 CPU-s more of a replay. The limit
// follows the heap, so that a larger store never makes the collector run
// without end, and an operator's own limit (GOMEMLIMIT) is left as it
// is. The returned func restores the operator's settings.
func startPacing() (restore func()) {
	percent := debug.SetGCPercent(startGCPercent)
	limit := debug.SetMemoryLimit(-1)
	if limit != math.MaxInt64 {
		return func() { debug.SetGCPercent(percent) }
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	follow := func() {
		metrics.Read(live)
		kept := int64(live[0].Value.Uint64())
		debug.SetMemoryLimit(kept + kept*startGCPercent/100 + startLimitSlack)
	}
	follow()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond) // the heap kept changes once a collection
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				follow()
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}
