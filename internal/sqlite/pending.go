package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"time"

	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlstore"
)

// Rollups behind the commit (docs/decisions.md, Dashboard rollups): a
// group commit of events stores them and leaves their rollups waiting.
// Keeping them at each commit cost a collect 5 times its speed: a batch of
// 16 views read and wrote about 60 rollup rows, 95% of the log pages it
// wrote (bench/RESULTS.md). Any other write transaction, the maintenance
// loop within checkpointEvery, any read of the rollups, and a group commit
// once catchUpEvents wait, first apply every waiting event, in one Delta:
// a session's row, which its first view makes, is written before the
// orders and carts that add to it. rollup_through holds the last view,
// add-to-cart and order id the rollups count, moved in the transaction
// that applies them; a crash leaves the events above, which the store
// applies when it opens.
//
// Erasure, retention, a cancellation and a build catch up first because
// they take out what events added, or count them again: they would
// otherwise take out what was never added, or count an event twice.

const (
	qRollupThrough    = "SELECT views, carts, orders FROM rollup_through"
	qRollupThroughSet = "UPDATE rollup_through SET views = ?, carts = ?, orders = ?"
	qNewestEvents     = "SELECT (" + qLastViewID + "), coalesce((SELECT max(id) FROM cart_events), 0), coalesce((SELECT max(id) FROM purchase_events), 0)"
	// qRollupThroughKept moves the ids of carts and orders back to the
	// newest kept, after a transaction that caught up deleted some:
	// SQLite gives the next row the id after the newest, which must be
	// one the rollups wait for. (Views take their ids after the rollups',
	// qViewIDsAfter.)
	qRollupThroughKept = `UPDATE rollup_through SET carts = coalesce((SELECT max(id) FROM cart_events), 0),
		orders = coalesce((SELECT max(id) FROM purchase_events), 0)`
	// catchUpEvents is how many waiting events make a group commit apply
	// them itself, so that a read or a restart never has many to apply.
	catchUpEvents = 16384
	// catchUpStep is about how many events a step of the maintenance
	// loop applies: about 10 ms of the writer (bench/RESULTS.md).
	catchUpStep = 128
	// catchUpEvery is how often the maintenance loop applies them.
	catchUpEvery = 100 * time.Millisecond
)

// pendingRollups is what the store knows of events whose rollups wait.
// Only the writer changes the rollups, one transaction at a time.
type pendingRollups struct {
	// dirty: events above rollup_through may be stored. Set true by a
	// group commit before it commits, or by another process's write; set
	// false by a catch-up, which holds the writer, and true again if its
	// transaction does not commit.
	dirty atomic.Bool
	// events is about how many wait, for catchUpEvents.
	events atomic.Int64
}

// wait notes n events stored in the writer's transaction, whose rollups
// wait.
func (p *pendingRollups) wait(n int) {
	p.dirty.Store(true)
	p.events.Add(int64(n))
}

// catchUp applies the rollups of every event stored above rollup_through,
// in p, and moves it to the newest. The caller holds the writer, and sets
// dirty again if the transaction does not commit.
func (s *Store) catchUp(ctx context.Context, p *preparedTx, rt rollup.Tx) error {
	if !s.pending.dirty.Load() {
		return nil
	}
	s.pending.dirty.Store(false)
	s.pending.events.Store(0)
	_, err := s.applyWaiting(ctx, p, rt, 0)
	return err
}

// applyWaiting applies the rollups of the events above rollup_through, at
// most about limit of them (0: all), and moves it past them. It reports
// whether none waited. A step of limit applies views first, then the
// carts and orders once no view waits: an order's session has its row
// before the order is counted, as in one delta of all.
func (s *Store) applyWaiting(ctx context.Context, p *preparedTx, rt rollup.Tx, limit int64) (none bool, err error) {
	var from, to [3]int64 // views, carts, orders
	if err := p.QueryRowContext(ctx, qRollupThrough).Scan(&from[0], &from[1], &from[2]); err != nil {
		return false, err
	}
	if err := p.QueryRowContext(ctx, qNewestEvents).Scan(&to[0], &to[1], &to[2]); err != nil {
		return false, err
	}
	if to[0] <= from[0] && to[1] == from[1] && to[2] == from[2] {
		return true, nil
	}
	through := [3]int64{max(from[0], to[0]), to[1], to[2]}
	d := &rollup.Delta{}
	var views int64
	err = sqlstore.EachBlock(ctx, rowsOf{p}, "id > ?", "id", []any{from[0]}, func(b *sqlstore.Block) error {
		if limit > 0 && views >= limit {
			return errStep
		}
		for i := range b.Views {
			d.AddView(sqlstore.RollupView(&b.Views[i]), 1)
		}
		views += int64(len(b.Views))
		through[0] = b.Last
		return nil
	})
	if err != nil && !errors.Is(err, errStep) {
		return false, err
	}
	switch {
	case limit == 0:
	case views > 0: // the carts and orders after every view
		through[1], through[2] = from[1], from[2]
	default:
		through[1], through[2] = min(to[1], from[1]+limit), min(to[2], from[2]+limit)
	}
	q := sqlstore.SQLite.Wrap(sqlQ{p.tx})
	if from[1] < through[1] {
		if err := sqlstore.CountEvents(ctx, q, d, 1, "c.id > ? AND c.id <= ?", "", from[1], through[1]); err != nil {
			return false, err
		}
	}
	if from[2] < through[2] {
		if err := sqlstore.CountEvents(ctx, q, d, 1, "", "e.id > ? AND e.id <= ?", from[2], through[2]); err != nil {
			return false, err
		}
	}
	if err := rollup.Apply(ctx, rt, d); err != nil {
		return false, err
	}
	_, err = p.ExecContext(ctx, qRollupThroughSet, through[0], through[1], through[2])
	return false, err
}

var errStep = errors.New("sqlite: a step of the rollups' catch-up is full")

// applyInSteps applies the waiting events' rollups in transactions of
// about catchUpStep events each, from the maintenance loop: a group
// commit waits for one step, never for all that waited.
func (s *Store) applyInSteps(ctx context.Context) error {
	for s.pending.dirty.Load() {
		var none bool
		err := s.inTx(inSteps(ctx), func(tx *sql.Tx) error {
			p := s.prepared(tx)
			var err error
			if none, err = s.applyWaiting(ctx, p, rollupTx{p}, catchUpStep); none {
				// Only the writer adds events, and this holds it: none
				// waits until the next group commit (inTx sets dirty
				// again if this does not commit).
				s.pending.dirty.Store(false)
				s.pending.events.Store(0)
			}
			return err
		})
		if err != nil || none {
			return err
		}
	}
	return nil
}

type stepsKey struct{}

// inSteps marks a transaction of applyInSteps, which inTx does not catch
// up all at once.
func inSteps(ctx context.Context) context.Context { return context.WithValue(ctx, stepsKey{}, true) }

func isStep(ctx context.Context) bool { return ctx.Value(stepsKey{}) != nil }

// applyPending applies the waiting events' rollups in a transaction of
// its own, if any may wait: before the rollups are read, and from the
// maintenance loop.
func (s *Store) applyPending(ctx context.Context) error {
	if !s.pending.dirty.Load() {
		return nil
	}
	return s.inTx(ctx, func(*sql.Tx) error { return nil }) // inTx catches up first
}
