package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgTx is what a batch's statements need of a transaction: a pgx.Tx, a
// savepoint in one, or a pipeTx.
type pgTx interface {
	querier
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// pipeTx is a transaction whose BEGIN goes with its first statements and
// whose COMMIT goes with its last writes (commitWith). The group commit
// waits for each round trip of its transaction in turn, and on a loaded
// machine each is a wake-up of the server and of the committer: pgx's own
// Begin and Commit are two more of them (docs/decisions.md, One set of
// SQL for both stores).
type pipeTx struct {
	conn  *pgx.Conn
	begun bool
	last  *pgx.Batch // writes sent with the COMMIT
}

var errNotCommitted = errors.New("postgres: the transaction ended without its commit")

// withBegin returns the statements of q, after a BEGIN if the transaction
// has not begun.
func (t *pipeTx) withBegin(q *pgx.Batch) *pgx.Batch {
	if t.begun {
		return q
	}
	t.begun = true
	return &pgx.Batch{QueuedQueries: append([]*pgx.QueuedQuery{{SQL: "begin"}}, q.QueuedQueries...)}
}

func (t *pipeTx) begin(ctx context.Context) error {
	if t.begun {
		return nil
	}
	t.begun = true
	_, err := t.conn.Exec(ctx, "begin")
	return err
}

// SendBatch sends q, with the BEGIN if it is the transaction's first.
func (t *pipeTx) SendBatch(ctx context.Context, q *pgx.Batch) pgx.BatchResults {
	return t.conn.SendBatch(ctx, t.withBegin(q))
}

func (t *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := t.begin(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.conn.Exec(ctx, sql, args...)
}

func (t *pipeTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := t.begin(ctx); err != nil {
		return nil, err
	}
	return t.conn.Query(ctx, sql, args...)
}

func (t *pipeTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := t.begin(ctx); err != nil {
		return errRow{err}
	}
	return t.conn.QueryRow(ctx, sql, args...)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// commitWith keeps q, the transaction's last writes, to go with its COMMIT.
func (t *pipeTx) commitWith(q *pgx.Batch) { t.last = q }

// commit sends the last writes and the COMMIT in one round trip. A
// statement of the writes that failed is a bodyError: the server skips what
// follows it, the COMMIT too, and nothing was stored. Any other error
// leaves the outcome unknown, as an error of a lone COMMIT does.
func (t *pipeTx) commit(ctx context.Context) error {
	if !t.begun && (t.last == nil || t.last.Len() == 0) {
		return nil // nothing to send, and no transaction to end
	}
	if t.last != nil && slices.ContainsFunc(t.last.QueuedQueries, func(q *pgx.QueuedQuery) bool { return q.Fn != nil }) {
		// A callback's error stops the reading of the results, the
		// COMMIT's too, after the server ran them all: what has one goes
		// in a round trip of its own, before the COMMIT is sent.
		err := t.SendBatch(ctx, t.last).Close()
		if t.last = nil; err != nil {
			return bodyError{err}
		}
	}
	q := t.last
	if q == nil {
		q = &pgx.Batch{}
	}
	q = t.withBegin(q)
	reached := false
	var tag pgconn.CommandTag
	q.QueuedQueries = append(q.QueuedQueries, &pgx.QueuedQuery{SQL: "commit", Fn: func(br pgx.BatchResults) (err error) {
		reached = true
		tag, err = br.Exec()
		return err
	}})
	err := t.conn.SendBatch(ctx, q).Close()
	switch {
	case err != nil && !reached && isStatementError(err):
		return bodyError{err}
	case err != nil:
		return err
	case tag.String() != "COMMIT": // an aborted transaction answers a COMMIT with ROLLBACK
		return fmt.Errorf("%w: %s", errNotCommitted, tag)
	}
	return nil
}

// rollback ends a transaction that was not committed, so that its
// connection goes back to the pool idle (the pool closes it otherwise).
func (t *pipeTx) rollback(ctx context.Context) {
	if t.begun && t.conn.PgConn().TxStatus() != 'I' {
		_, _ = t.conn.Exec(ctx, "rollback") // if it fails, the pool closes the connection
	}
}
