package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlstore"
)

// shared returns the queries both stores share (internal/sqlstore), on the
// pool.
func (s *Store) shared() *sqlstore.Store {
	st := sqlstore.New(sqlstore.PostgreSQL, pgQ{s.pool}, pgQ{s.pool}, func(ctx context.Context, fn func(sqlstore.Querier) error) error {
		return s.inTx(ctx, func(tx pgx.Tx) error { return fn(pgQ{tx}) })
	}, s.rollupsTx)
	st.FoldBeforeReads(s.FoldViewers)
	return st
}

// rollupsTx runs fn in a transaction with its rollups.
func (s *Store) rollupsTx(ctx context.Context, fn func(sqlstore.Querier, rollup.Tx) error) error {
	return s.inTx(ctx, func(tx pgx.Tx) error { return fn(pgQ{tx}, rollupTx{tx: tx}) })
}

// pgQ is the pool or a transaction as sqlstore runs it.
type pgQ struct{ q querier }

func (q pgQ) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (q pgQ) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return q.q.QueryRow(ctx, query, args...)
}

func (q pgQ) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return q.q.Query(ctx, query, args...)
}
