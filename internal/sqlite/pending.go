package sqlite

import (
	"context"
	"database/sql"
	"sync/atomic"

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
	var from, to [3]int64 // views, carts, orders
	if err := p.QueryRowContext(ctx, qRollupThrough).Scan(&from[0], &from[1], &from[2]); err != nil {
		return err
	}
	if err := p.QueryRowContext(ctx, qNewestEvents).Scan(&to[0], &to[1], &to[2]); err != nil {
		return err
	}
	if to[0] <= from[0] && to[1] == from[1] && to[2] == from[2] {
		return nil
	}
	d := &rollup.Delta{}
	err := sqlstore.EachBlock(ctx, rowsOf{p}, "id > ?", "id", []any{from[0]}, func(b *sqlstore.Block) error {
		for i := range b.Views {
			d.AddView(sqlstore.RollupView(&b.Views[i]), 1)
		}
		return nil
	})
	if err != nil {
		return err
	}
	q := sqlstore.SQLite.Wrap(sqlQ{p.tx})
	if from[1] < to[1] {
		if err := sqlstore.CountEvents(ctx, q, d, 1, "c.id > ? AND c.id <= ?", "", from[1], to[1]); err != nil {
			return err
		}
	}
	if from[2] < to[2] {
		if err := sqlstore.CountEvents(ctx, q, d, 1, "", "e.id > ? AND e.id <= ?", from[2], to[2]); err != nil {
			return err
		}
	}
	if err := rollup.Apply(ctx, rt, d); err != nil {
		return err
	}
	_, err = p.ExecContext(ctx, qRollupThroughSet, max(from[0], to[0]), to[1], to[2])
	return err
}

// applyPending applies the waiting events' rollups in a transaction of
// its own, if any may wait: before the rollups are read, and from the
// maintenance loop.
func (s *Store) applyPending(ctx context.Context) error {
	if !s.pending.dirty.Load() {
		return nil
	}
	return s.inTx(ctx, func(*sql.Tx) error { return nil }) // inTx catches up first
}
