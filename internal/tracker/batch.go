package tracker

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/metrics"
)

// batcher is the group commit: handlers hand it writes and wait; one
// goroutine takes whatever has queued up and appends it in one transaction
// (one fsync); a second applies committed batches to the counts and wakes
// their handlers, in commit order, while the first already writes the
// next batch. Under load batches grow by themselves; alone, a write waits
// for nobody.
//
// The slices of large batch requests (CollectBatch) queue apart, and a
// commit takes at most one of them, after the other writes waiting: a
// write waits for the commit in flight and its own, never behind the
// slices of other requests.
type batcher struct {
	store    svc.EventStore
	apply    func([]*svc.Write) // called after a successful commit, before anyone is woken
	maxBatch int
	metrics  *metrics.Metrics

	// commit is held while a batch is appended and handed to the applier;
	// with lockCommitted (erasure.go), a recount sees every committed event
	// exactly once: in the store, and applied to the engine it replaces.
	commit    sync.Mutex
	unapplied sync.WaitGroup // batches handed to the applier and not yet applied
	mu        sync.RWMutex   // guards closed against sends on a closed channel
	closed    bool
	in        chan *job
	slices    chan *job // slices of large batches
	committed chan committed
	done      chan struct{}
	// failing counts the commits that failed in a row; 0 after one
	// succeeds. Readiness reads it (Tracker.Ready).
	failing atomic.Int64
}

// committed is a batch whose transaction has ended, with its outcome.
type committed struct {
	jobs   []*job
	writes []*svc.Write
	err    error
}

// job is one request's writes: one event, or a batch request's events,
// which are committed together, never split over two commits.
type job struct {
	ws   []*svc.Write
	err  error
	done chan struct{}
}

func newBatcher(store svc.EventStore, maxBatch int, apply func([]*svc.Write), m *metrics.Metrics) *batcher {
	b := &batcher{store: store, apply: apply, maxBatch: maxBatch, metrics: m,
		in: make(chan *job, maxBatch), slices: make(chan *job, 64), committed: make(chan committed, 1), done: make(chan struct{})}
	go b.run()
	go b.applyCommitted()
	return b
}

// submit queues w and waits until it is durable (or failed). It does not
// give up when ctx ends: a write that may already be committed is waited for.
func (b *batcher) submit(ws ...*svc.Write) error { return b.queue(b.in, ws) }

// submitSlice is submit for a slice of a large batch (see batcher).
func (b *batcher) submitSlice(ws []*svc.Write) error { return b.queue(b.slices, ws) }

func (b *batcher) queue(to chan *job, ws []*svc.Write) error {
	j := &job{ws: ws, done: make(chan struct{})}
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return svc.Errorf(svc.EUNAVAILABLE, "the service is shutting down")
	}
	to <- j
	b.mu.RUnlock()
	<-j.done
	return j.err
}

func (b *batcher) run() {
	defer close(b.committed)
	in, slices := b.in, b.slices // nil once closed and drained
	for in != nil || slices != nil {
		var batch []*job
		n, sliced := 0, false
		select {
		case j, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			batch, n = append(batch, j), lines(j.ws)
		case j, ok := <-slices:
			if !ok {
				slices = nil
				continue
			}
			batch, n, sliced = append(batch, j), lines(j.ws), true
		}
	drain: // the other writes waiting, up to maxBatch lines
		for n < b.maxBatch && in != nil {
			select {
			case j, ok := <-in:
				if !ok {
					in = nil
					break drain
				}
				batch = append(batch, j)
				n += lines(j.ws)
			default:
				break drain
			}
		}
		if !sliced && slices != nil { // and one slice, whatever the load: slices go on
			select {
			case j, ok := <-slices:
				if !ok {
					slices = nil
				} else {
					batch = append(batch, j)
				}
			default:
			}
		}
		var writes []*svc.Write
		for _, j := range batch {
			writes = append(writes, j.ws...)
		}
		// Not a request's context: a batch holds many requests, and one
		// client hanging up must not undo the others.
		b.commit.Lock()
		start := time.Now()
		err := b.store.Append(context.Background(), writes)
		b.metrics.Batch(len(writes), time.Since(start).Seconds())
		b.unapplied.Add(1)
		b.committed <- committed{batch, writes, err}
		b.commit.Unlock()
	}
}

// lines is what ws weigh in a commit: an order its lines, a view or a cart
// one. A commit takes jobs up to maxBatch lines, so that orders of 500
// lines from many requests make no commit of 500,000 lines that every
// write behind it waits for.
func lines(ws []*svc.Write) int {
	n := 0
	for _, w := range ws {
		if w.Purchase != nil {
			n += len(w.Purchase.Order.Items)
		} else {
			n++
		}
	}
	return n
}

// applyCommitted applies each committed batch and wakes its handlers.
func (b *batcher) applyCommitted() {
	defer close(b.done)
	for c := range b.committed {
		err := c.err
		if err == nil {
			b.failing.Store(0)
			b.apply(c.writes)
		} else {
			// Nothing of the batch is stored: the store cannot write (a full
			// disk, a read-only or unreachable database). The client may
			// retry, here or on another node, which readiness steers it to.
			b.failing.Add(1)
			if svc.ErrorCode(err) != svc.EUNAVAILABLE {
				err = &svc.Error{Code: svc.EUNAVAILABLE, Message: "the store cannot write; retry later with the same Idempotency-Key", Err: err}
			}
		}
		b.unapplied.Done()
		for _, j := range c.jobs {
			j.err = err
			close(j.done)
		}
	}
}

// lockCommitted holds the commit path and returns once every batch
// committed before is applied: the store and the counts agree until
// unlockCommitted.
func (b *batcher) lockCommitted() {
	b.commit.Lock()
	b.unapplied.Wait()
}

func (b *batcher) unlockCommitted() { b.commit.Unlock() }

// close stops taking writes, commits every queued one and returns when done.
func (b *batcher) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.in)
		close(b.slices)
	}
	b.mu.Unlock()
	<-b.done
}
