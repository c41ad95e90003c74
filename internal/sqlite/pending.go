package sqlite

import (
	"context"
	"database/sql"
	"sync/atomic"

	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlstore"
)

// Rollups behind the commit (docs/decisions.md): a transaction of views
// alone stores their block and leaves their rollups waiting. Keeping them
// at each commit cost a collect 5 times its speed: a batch of 16 views
// read and wrote about 60 rollup rows, 95% of the log pages it wrote
// (bench/RESULTS.md). The next write transaction of any other kind, the
// maintenance loop within checkpointEvery, and any read of the rollups
// apply the waiting views first, all of them in one go, in the order they
// were stored. rollup_views.through is the last view id they count, in
// the same transaction as the rows; a crash leaves the views above it,
// which the store applies when it opens.
//
// A write of anything but views catches up first because its rollups
// lean on the views' (an order needs its session's row, which the
// session's first view makes); so do erasure, retention and a rebuild,
// which would otherwise take out what was never added, or count a view
// twice.

const (
	qRollupThrough    = "SELECT through FROM rollup_views"
	qRollupThroughSet = "UPDATE rollup_views SET through = ?"
	// qRollupThroughNewest moves through to the newest view, which a
	// transaction has stored and counted after catching up.
	qRollupThroughNewest = "UPDATE rollup_views SET through = max(through, (" + qLastViewID + "))"
	// catchUpViews is how many waiting views make a batch of views apply
	// them itself, so that a read or a restart never has many to apply.
	catchUpViews = 16384
)

// pendingRollups is what the store knows of views whose rollups wait. Only
// the writer changes the rollups, one transaction at a time.
type pendingRollups struct {
	// dirty: views above through may be stored. Set true by a
	// transaction of views before it commits, or by another process's
	// write; set false by a catch-up, which holds the writer, and true
	// again if it fails.
	dirty atomic.Bool
	// views is about how many wait, for catchUpViews.
	views atomic.Int64
}

// catchUp applies the rollups of every view stored above through, in p,
// and moves through to the last of them. The caller holds the writer, and
// sets dirty again if the transaction does not commit.
func (s *Store) catchUp(ctx context.Context, p *preparedTx, rt rollup.Tx) error {
	if !s.pending.dirty.Load() {
		return nil
	}
	s.pending.dirty.Store(false)
	s.pending.views.Store(0)
	var through int64
	if err := p.QueryRowContext(ctx, qRollupThrough).Scan(&through); err != nil {
		return err
	}
	d := &rollup.Delta{}
	last := through
	err := sqlstore.EachBlock(ctx, rowsOf{p}, "id > ?", "id", []any{through}, func(b *sqlstore.Block) error {
		for i := range b.Views {
			d.AddView(sqlstore.RollupView(&b.Views[i]), 1)
		}
		last = max(last, b.Last)
		return nil
	})
	if err != nil || last == through {
		return err
	}
	if err := rollup.Apply(ctx, rt, d); err != nil {
		return err
	}
	_, err = p.ExecContext(ctx, qRollupThroughSet, last)
	return err
}

// applyPending applies the waiting views' rollups in a transaction of its
// own, if any may wait: before the rollups are read, and from the
// maintenance loop.
func (s *Store) applyPending(ctx context.Context) error {
	if !s.pending.dirty.Load() {
		return nil
	}
	return s.inTx(ctx, func(*sql.Tx) error { return nil }) // inTx catches up first
}
