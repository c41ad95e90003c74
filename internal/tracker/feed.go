package tracker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/prices"
	"github.com/svc-project/svc/internal/snapshot"
	"github.com/svc-project/svc/internal/window"
)

// feedPoll is how often a server looks for what other nodes or processes
// committed: well inside the second in which their events must show.
const feedPoll = 200 * time.Millisecond

// feedState follows the store's change feed, when it has one.
type feedState struct {
	mu      sync.Mutex // one poll or load at a time, so that none counts an event twice
	cursor  svc.FeedCursor
	failing bool // the last poll failed: logged once, not every poll
}

// load rebuilds the counts from the store into the engine e and makes it
// the one counts are read from. From a shared store it reads one snapshot,
// and the feed goes on from that snapshot, with e swapped in under the same
// lock: no event committed meanwhile is missed or counted twice. A recount
// must come through here.
//
// The prices paid are loaded too, into a history of their own that is
// swapped in with the engine: a recount's readers never see them half
// loaded, and one that fails leaves them as they were, with the counts.
func (t *Tracker) load(ctx context.Context, e *window.Engine, recount bool) error {
	opts := snapshot.Options{Startup: !recount, HaveProducts: !recount && t.haveProducts}
	side, paid := newBeside(), prices.New()
	l := t.loader()
	l.Price = func(r svc.PurchaseRecord) { paid.Learn(r, t.cfg.Now()) }
	f := t.cfg.ChangeFeed
	if f == nil {
		opts.Parallel = true
		l.Beside = side.loader(t.cfg.Now())
		if err := l.Rebuild(ctx, t.store, e, opts); err != nil {
			return err
		}
		t.swapIn(e, side, paid)
		return nil
	}
	t.changes.mu.Lock()
	defer t.changes.mu.Unlock()
	// A snapshot is one transaction: it answers one query at a time.
	cur, err := f.ReadSnapshot(ctx, func(r svc.EventReader) error {
		if err := l.Rebuild(ctx, r, e, opts); err != nil {
			return err
		}
		return side.load(ctx, r, t.cfg.Now())
	})
	if err != nil {
		return err
	}
	t.swapIn(e, side, paid)
	t.changes.cursor = cur
	return nil
}

// swapIn makes a loaded engine, what came beside it and the prices paid
// the ones read and fed; paid is nil when the load filled the catalog's.
func (t *Tracker) swapIn(e *window.Engine, side *beside, paid *prices.History) {
	if paid != nil {
		t.cat.SetPriceHistory(paid)
	}
	t.engine.Store(e)
	t.beside.Store(side)
}

// restore loads the counts from the snapshot file and the events committed
// after it, and reports whether it did. With a change feed, it reads them
// in one snapshot of the feed, which the feed then goes on from, and, if
// the file is refused, rebuilds from that same snapshot: nothing that other
// processes commit meanwhile is missed or counted twice.
func (t *Tracker) restore(ctx context.Context, erasure int64) (bool, error) {
	f := t.cfg.ChangeFeed
	if f == nil {
		side := newBeside()
		e, haveProducts, err := t.snaps.Restore(ctx, t.store, erasure, side.cartsLoader(t.cfg.Now()), kept{t, side})
		if err != nil {
			return false, fmt.Errorf("restore counts: %w", err)
		}
		t.haveProducts = haveProducts
		if e == nil {
			return false, nil
		}
		t.swapIn(e, side, nil) // the restore filled the catalog's prices
		return true, nil
	}
	t.changes.mu.Lock()
	defer t.changes.mu.Unlock()
	var e *window.Engine
	var side *beside
	cur, err := f.ReadSnapshot(ctx, func(r svc.EventReader) error {
		log, ok := r.(svc.EventLog)
		if !ok {
			return errors.New("restore counts: the change feed's snapshot is no event log")
		}
		side = newBeside()
		restored, haveProducts, err := snapshot.New(t.snaps.Path(), log, t.loader()).Restore(ctx, r, erasure, side.cartsLoader(t.cfg.Now()), kept{t, side})
		if err != nil {
			return fmt.Errorf("restore counts: %w", err)
		}
		if e = restored; e == nil {
			// The refused restore read the carts already: the replay reads
			// them again, into new ones.
			e, side = snapshot.NewEngine(), newBeside()
			l := t.loader()
			l.Beside = side.loader(t.cfg.Now())
			opts := snapshot.Options{Startup: true, HaveProducts: haveProducts}
			if err := l.Rebuild(ctx, r, e, opts); err != nil {
				return fmt.Errorf("rebuild counts: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	t.swapIn(e, side, nil) // the restore filled the catalog's prices
	t.changes.cursor = cur
	return true, nil
}

// catchUpForCut holds the feed and counts what other processes committed,
// for the cut of a saved shard, with the commit path held: the counts then
// hold every event up to the feed's read, which the store's LogPosition
// then names. It reports whether the poll succeeded; the feed stays held
// until the cut's Unlock either way.
func (t *Tracker) catchUpForCut() bool {
	t.changes.mu.Lock()
	t.pollChangesLocked(context.Background())
	return !t.changes.failing
}

// followChanges starts polling the feed, if the store has one.
func (t *Tracker) followChanges(ctx context.Context) {
	if t.cfg.ChangeFeed != nil {
		t.every(ctx, feedPoll, t.pollChanges)
	}
}

// pollChanges counts what other nodes committed since the last poll. When
// the store does not answer, the cursor stays: the next poll that succeeds
// brings everything since.
func (t *Tracker) pollChanges(ctx context.Context) {
	t.changes.mu.Lock()
	defer t.changes.mu.Unlock()
	t.pollChangesLocked(ctx)
}

// pollChangesLocked is pollChanges with the feed's lock held.
func (t *Tracker) pollChangesLocked(ctx context.Context) {
	c := &t.changes
	ch, err := t.cfg.ChangeFeed.Changes(ctx, c.cursor)
	if err != nil {
		if ctx.Err() == nil && !c.failing {
			t.cfg.Logger.Warn("follow other nodes' events: counts lag until the store answers", "err", err)
			c.failing = true
		}
		return
	}
	if c.failing {
		t.cfg.Logger.Info("following other nodes' events again")
		c.failing = false
	}
	c.cursor = ch.Cursor
	t.applyChanges(ch)
}

// applyChanges feeds other nodes' products and events through the path of
// this node's own commits.
func (t *Tracker) applyChanges(ch *svc.Changes) {
	for _, p := range ch.Products {
		t.learnProduct(p, false)
	}
	t.apply(ch.Writes)
	t.applyCancels(ch.Cancels)
}
