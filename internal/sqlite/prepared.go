package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/viewblock"
)

// The statements of the write path are prepared once, when the store opens,
// on the writer connection: parsing SQL cost more than running it (a third
// of the group commit's CPU in profiles under load). They must be prepared
// before any transaction, as the writer pool has one connection.
type stmtCache map[string]*sql.Stmt

func prepareAll(ctx context.Context, db *sql.DB, queries []string) (stmtCache, error) {
	c := make(stmtCache, len(queries))
	for _, q := range queries {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			return nil, errors.Join(err, c.close())
		}
		c[q] = st
	}
	return c, nil
}

func (c stmtCache) close() error {
	var errs []error
	for _, st := range c {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// preparedTx runs the queries of one write transaction through the
// prepared statements, each bound to the transaction once; a query not
// prepared runs as it is.
type preparedTx struct {
	tx    *sql.Tx
	cache stmtCache
	bound map[string]*sql.Stmt

	products *productCache // see products.go; nil: no memo
	staged   map[productKey]svc.Product
	absent   map[productKey]bool // not stored, as prefetch found; until registered
	// names are the names among the absent ones, as prefetch found, and
	// those the transaction registers: their products.
	names map[productKey]string
	refs  []svc.ProductRef // of the products of the write being decided

	// views holds the views to write as one block at flushViews, when the
	// transaction defers them (see deferViews); nil: a block each.
	views []viewblock.View
	block []byte // the encoding buffer

	// hours is the writer's cache of hour rows, in Append's fast path
	// (hours.go); hoursStaged what the transaction read and wrote of them.
	hours       *hourCache
	hoursStaged map[rollup.Key]*rollup.Row
}

// queueView queues a view when the transaction defers its views, and
// reports whether it did.
func (p *preparedTx) queueView(v viewblock.View) bool {
	if p.views == nil {
		return false
	}
	p.views = append(p.views, v)
	return true
}

// deferViews makes the transaction queue its views for flushViews.
func (p *preparedTx) deferViews(n int) { p.views = make([]viewblock.View, 0, n) }

// flushViews writes the queued views as one block.
func (p *preparedTx) flushViews(ctx context.Context) error {
	err := p.writeBlock(ctx, p.views)
	p.views = p.views[:0]
	return err
}

func (s *Store) prepared(tx *sql.Tx) *preparedTx {
	return &preparedTx{tx: tx, cache: s.stmts, bound: make(map[string]*sql.Stmt, len(s.stmts))}
}

func (p *preparedTx) stmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := p.bound[query]; ok {
		return st
	}
	st := p.cache[query]
	if st == nil {
		return nil
	}
	st = p.tx.StmtContext(ctx, st)
	p.bound[query] = st
	return st
}

func (p *preparedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.tx.QueryRowContext(ctx, query, args...)
}

func (p *preparedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return p.tx.QueryContext(ctx, query, args...)
}

func (p *preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return p.tx.ExecContext(ctx, query, args...)
}
