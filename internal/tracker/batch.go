package tracker

import (
	"context"
	"sync"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/metrics"
)

// batcher is the group commit: handlers hand it writes and wait; one
// goroutine takes whatever has queued up, appends it in one transaction
// (one fsync), applies it to the counts and wakes the handlers. Under load
// batches grow by themselves; alone, a write waits for nobody.
type batcher struct {
	store    svc.EventStore
	apply    func([]*svc.Write) // called after a successful commit, before anyone is woken
	maxBatch int
	metrics  *metrics.Metrics

	// commit is held from a batch's append to its apply, so that a recount
	// (erasure.go) sees every committed event exactly once.
	commit sync.Mutex
	mu     sync.RWMutex // guards closed against sends on a closed channel
	closed bool
	in     chan *job
	done   chan struct{}
}

type job struct {
	w    *svc.Write
	err  error
	done chan struct{}
}

func newBatcher(store svc.EventStore, maxBatch int, apply func([]*svc.Write), m *metrics.Metrics) *batcher {
	b := &batcher{store: store, apply: apply, maxBatch: maxBatch, metrics: m, in: make(chan *job, maxBatch), done: make(chan struct{})}
	go b.run()
	return b
}

// submit queues w and waits until it is durable (or failed). It does not
// give up when ctx ends: a write that may already be committed is waited for.
func (b *batcher) submit(w *svc.Write) error {
	j := &job{w: w, done: make(chan struct{})}
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return svc.Errorf(svc.EUNAVAILABLE, "the service is shutting down")
	}
	b.in <- j
	b.mu.RUnlock()
	<-j.done
	return j.err
}

func (b *batcher) run() {
	defer close(b.done)
	batch := make([]*job, 0, b.maxBatch)
	writes := make([]*svc.Write, 0, b.maxBatch)
	for j := range b.in {
		batch = append(batch[:0], j)
	drain:
		for len(batch) < b.maxBatch {
			select {
			case j, ok := <-b.in:
				if !ok {
					break drain
				}
				batch = append(batch, j)
			default:
				break drain
			}
		}
		writes = writes[:0]
		for _, j := range batch {
			writes = append(writes, j.w)
		}
		// Not a request's context: a batch holds many requests, and one
		// client hanging up must not undo the others.
		b.commit.Lock()
		start := time.Now()
		err := b.store.Append(context.Background(), writes)
		b.metrics.Batch(len(writes), time.Since(start).Seconds())
		if err == nil {
			b.apply(writes)
		} else if svc.ErrorCode(err) != svc.EUNAVAILABLE { // an unreachable store says so
			err = svc.Internal(err)
		}
		b.commit.Unlock()
		for _, j := range batch {
			j.err = err
			close(j.done)
		}
	}
}

// close stops taking writes, commits every queued one and returns when done.
func (b *batcher) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.in)
	}
	b.mu.Unlock()
	<-b.done
}
