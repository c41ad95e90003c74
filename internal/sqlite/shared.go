package sqlite

import (
	"context"
	"database/sql"

	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlstore"
)

// shared returns the queries both stores share (internal/sqlstore), on the
// read pool and the writer.
func (s *Store) shared() *sqlstore.Store {
	return sqlstore.New(sqlstore.SQLite, sqlQ{s.r}, sqlQ{s.w}, s.sharedTx, s.sharedRollupTx)
}

// sharedTx runs fn in a write transaction of the writer.
func (s *Store) sharedTx(ctx context.Context, fn func(sqlstore.Querier) error) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return fn(sqlQ{tx}) })
}

// sharedRollupTx runs fn in a transaction that writes events, with its
// rollups: the feed leaves out what it wrote (inEventTx).
func (s *Store) sharedRollupTx(ctx context.Context, fn func(sqlstore.Querier, rollup.Tx) error) error {
	return s.inEventTx(ctx, func(tx *sql.Tx) error { return fn(sqlQ{tx}, s.rollupTx(tx)) })
}

// sqlQ is a pool or a transaction of database/sql as sqlstore runs it.
type sqlQ struct {
	q interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
		QueryRowContext(context.Context, string, ...any) *sql.Row
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}
}

func (q sqlQ) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q sqlQ) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return q.q.QueryRowContext(ctx, query, args...)
}

func (q sqlQ) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return rowsOf{q.q}.Query(ctx, query, args...)
}

// rowsQueryer is what runs a query of database/sql.
type rowsQueryer interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// rowsOf runs the queries of db for sqlstore.Each.
type rowsOf struct{ db rowsQueryer }

func (r rowsOf) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := r.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

// sqlRows closes as pgx.Rows do: the error comes from Err.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }
