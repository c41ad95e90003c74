package snapshot

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// startLimitSlack is what a start's memory limit allows over the heap kept
// and an eighth of it: the runtime's own memory (spans, GC metadata,
// stacks) and a heap goal overshot while a collection marks.
const startLimitSlack = 96 << 20

// startPacing paces the collector for a start (startGCPercent), and keeps
// the runtime's memory under a limit that follows the heap kept: an eighth
// over it, plus startLimitSlack. The collector's goal alone let the heap
// reach a quarter over what it kept, 1,300 MiB for 1,080 kept late in a
// start from the snapshot, and the pages a collection freed stayed
// resident until the background scavenger got to them: peak RSS 1,456 to
// 1,565 MiB. Under a limit the collector runs a little sooner once the
// heap is large, and the scavenger returns pages as the limit nears: at a
// fixed 1,300 MiB the peak was 1,340 to 1,380 MiB, with no more CPU. The
// limit follows the heap, so that a larger store never makes the
// collector run without end; below 768 MiB kept the collector's goal is
// the lower. An operator's own limit (GOMEMLIMIT) is left as it is. The
// returned func restores the operator's settings.
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
		debug.SetMemoryLimit(kept + kept/8 + startLimitSlack)
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
