// Package poll reloads what other processes may change in the store
// (brands and keys, signing keys) at a fixed interval, in the background.
package poll

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Every calls refresh every interval until the returned stop is called;
// stop waits for a refresh under way. A failed refresh is logged as a
// warning naming what, and the old state stays until the next one works.
func Every(interval time.Duration, log *slog.Logger, what string, refresh func(context.Context) error) (stop func()) {
	bg, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-bg.Done():
				return
			case <-tick.C:
				if err := refresh(bg); err != nil && bg.Err() == nil {
					log.Warn(what, "err", err)
				}
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}
