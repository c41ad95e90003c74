package tracker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/svc-project/svc"
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
// A recount also reloads the prices paid, cleared under the same lock, so
// that no order of the feed is counted in both.
func (t *Tracker) load(ctx context.Context, e *window.Engine, recount bool) error {
	opts := snapshot.Options{Startup: !recount, HaveProducts: !recount && t.haveProducts}
	side := newBeside()
	f := t.cfg.ChangeFeed
	if f == nil {
		if recount {
			t.cat.ForgetPrices()
		}
		opts.Parallel = true
		l := t.loader()
		l.Beside = side.loader(t.cfg.Now())
		if err := l.Rebuild(ctx, t.store, e, opts); err != nil {
			t.failedRecount(recount)
			return err
		}
		t.engine.Store(e)
		t.beside.Store(side)
		return nil
	}
	t.changes.mu.Lock()
	defer t.changes.mu.Unlock()
	if recount {
		t.cat.ForgetPrices()
	}
	// A snapshot is one transaction: it answers one query at a time.
	cur, err := f.ReadSnapshot(ctx, func(r svc.EventReader) error {
		if err := t.loader().Rebuild(ctx, r, e, opts); err != nil {
			return err
		}
		return side.load(ctx, r, t.cfg.Now())
	})
	if err != nil {
		t.failedRecount(recount)
		return err
	}
	t.engine.Store(e)
	t.beside.Store(side)
	t.changes.cursor = cur
	return nil
}

// failedRecount leaves no prices rather than some twice: a recount that
// failed may have loaded part of them, and the feed would add them again.
// The next recount, at the next poll, loads them all.
func (t *Tracker) failedRecount(recount bool) {
	if recount {
		t.cat.ForgetPrices()
	}
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
		e, haveProducts, err := t.snaps.Restore(ctx, t.store, erasure, side.loader(t.cfg.Now()))
		if err != nil {
			return false, fmt.Errorf("restore counts: %w", err)
		}
		t.haveProducts = haveProducts
		if e == nil {
			return false, nil
		}
		t.engine.Store(e)
		t.beside.Store(side)
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
		restored, haveProducts, err := snapshot.New(t.snaps.Path(), log, t.loader()).Restore(ctx, r, erasure, side.loader(t.cfg.Now()))
		if err != nil {
			return fmt.Errorf("restore counts: %w", err)
		}
		if e = restored; e == nil {
			// The refused restore read the carts and purchases already: the replay
			// reads them again, into new ones.
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
	t.engine.Store(e)
	t.beside.Store(side)
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
