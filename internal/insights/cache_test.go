package insights

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlite"
)

// counted is a real store that counts, and may hold, its reads of the
// brand's rollups.
type counted struct {
	*sqlite.Store
	reads   atomic.Int64
	hold    chan struct{} // when set, a read waits for it or for its context
	started chan struct{}
	ended   chan error
}

// RollupHourCounts is the read each reading starts with.
func (c *counted) RollupHourCounts(ctx context.Context, brandID string, from, to time.Time, fn func(rollup.Row) error) error {
	c.reads.Add(1)
	if c.hold != nil {
		c.started <- struct{}{}
		select {
		case <-c.hold:
		case <-ctx.Done():
			c.ended <- ctx.Err()
			return ctx.Err()
		}
	}
	return c.Store.RollupHourCounts(ctx, brandID, from, to, fn)
}

func openCounted(t *testing.T) *counted {
	t.Helper()
	s, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.CreateBrand(context.Background(), &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	return &counted{Store: s, started: make(chan struct{}, 8), ended: make(chan error, 8)}
}

func TestCache(t *testing.T) {
	t.Parallel()
	s := openCounted(t)
	clock := now
	c := &Cache{Store: s, Now: func() time.Time { return clock }, TTL: time.Minute}
	for range 3 {
		if _, err := c.Brand(context.Background(), "br_1"); err != nil {
			t.Fatal(err)
		}
	}
	clock = clock.Add(time.Minute)
	c.Brand(context.Background(), "br_1")
	c.Forget("br_1")
	c.Brand(context.Background(), "br_1")
	if n := s.reads.Load(); n != 3 {
		t.Errorf("%d reads of the store, want 3 (first, after the TTL, after Forget)", n)
	}
}

// Two requests for a brand at once share one reading of the store.
func TestCacheSharesOneReading(t *testing.T) {
	t.Parallel()
	s := openCounted(t)
	s.hold = make(chan struct{})
	c := &Cache{Store: s, Now: func() time.Time { return now }}
	var wg sync.WaitGroup
	got := make([]*Figures, 2)
	wg.Add(1)
	go func() { defer wg.Done(); got[0], _ = c.Brand(context.Background(), "br_1") }()
	<-s.started // the first reading is under way
	wg.Add(1)
	go func() { defer wg.Done(); got[1], _ = c.Brand(context.Background(), "br_1") }()
	// The second waits for the first's reading rather than starting one.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.mu.Lock()
		waiting := 0
		if cl := c.calls["br_1"]; cl != nil {
			waiting = cl.waiting
		}
		c.mu.Unlock()
		if waiting == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(s.hold)
	wg.Wait()
	if n := s.reads.Load(); n != 1 || got[0] == nil || got[0] != got[1] {
		t.Errorf("%d readings for two requests at once, figures %p and %p; want one, shared", n, got[0], got[1])
	}
	// Each holds them until it releases them: their buffers are not
	// another reading's meanwhile.
	c.mu.Lock()
	holds := got[0].holds
	c.mu.Unlock()
	if holds != 2 {
		t.Errorf("the shared figures have %d holds, want 2", holds)
	}
}

// When every request waiting for a reading has gone, the reading stops.
func TestCacheStopsWhenClientsLeave(t *testing.T) {
	t.Parallel()
	s := openCounted(t)
	s.hold = make(chan struct{})
	c := &Cache{Store: s, Now: func() time.Time { return now }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := c.Brand(ctx, "br_1"); done <- err }()
	<-s.started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the request that left: %v", err)
	}
	select {
	case err := <-s.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the store's read ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the store's read went on after its only client left")
	}
	// The next request starts a reading of its own.
	close(s.hold)
	if _, err := c.Brand(context.Background(), "br_1"); err != nil {
		t.Fatal(err)
	}
}

// Figures past their TTL but within Stale are answered at once, while
// one reading in the background replaces them.
func TestCacheAnswersStaleWhileReading(t *testing.T) {
	t.Parallel()
	s := openCounted(t)
	var mu sync.Mutex
	clock := now
	c := &Cache{Store: s, Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }, TTL: time.Minute, Stale: time.Minute}
	first, err := c.Brand(context.Background(), "br_1")
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	clock = clock.Add(90 * time.Second)
	mu.Unlock()
	s.hold = make(chan struct{})
	got, err := c.Brand(context.Background(), "br_1")
	if err != nil || got != first {
		t.Fatalf("stale figures: %v, %v; want the first, at once", got, err)
	}
	<-s.started // the background reading
	close(s.hold)
	deadline := time.Now().Add(5 * time.Second)
	for {
		f, err := c.Brand(context.Background(), "br_1")
		if err != nil {
			t.Fatal(err)
		}
		if f != first {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background reading never replaced the stale figures")
		}
		time.Sleep(time.Millisecond)
	}
	if n := s.reads.Load(); n != 2 {
		t.Errorf("%d readings, want 2", n)
	}
	// Past TTL and Stale, a request waits for a reading of its own.
	mu.Lock()
	clock = clock.Add(3 * time.Minute)
	mu.Unlock()
	if f, err := c.Brand(context.Background(), "br_1"); err != nil || !f.At.Equal(now.Add(90*time.Second+3*time.Minute)) {
		t.Errorf("expired figures: %v, %v", f, err)
	}
}
