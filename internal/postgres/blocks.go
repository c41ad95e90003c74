package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc/internal/sqlstore"
	"github.com/svc-project/svc/internal/viewblock"
)

// Views are kept in blocks, a row of view_blocks per commit group
// (internal/sqlstore/viewblocks.go, docs/decisions.md): Append encodes a
// transaction's views as one block, and readers decode them.

// moveSizes are the views of a block and of a transaction of
// moveViewRows (tests make them small).
var moveSizes = struct{ block, batch int }{4096, 65536}

// moveLock is the advisory lock that one node at a time holds while it
// moves rows into blocks ("svcVBlks" in ASCII: any number but goose's).
const moveLock = 0x7376_6356_426c_6b73

// moveViewRows moves the rows of view_events, which versions before
// view_blocks wrote, into blocks, a batch of blocks a transaction that
// deletes the rows it moved: a start that stops resumes with the rows
// left. It logs its progress. Nodes starting together move one after the
// other, under an advisory lock: the others then find no row left.
//
// A block holds rows of one transaction only, and keeps it as its txid:
// whatever cursor a node follows the feed from, each view is new to it
// exactly when its row would have been, and in any snapshot a
// transaction's views are rows or blocks, never both.
func (s *Store) moveViewRows(ctx context.Context) error {
	var some bool
	if err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM view_events)").Scan(&some); err != nil || !some {
		return err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(moveLock)); err != nil {
		return fmt.Errorf("postgres: moving views into blocks: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(moveLock)) //nolint:errcheck // the session's end frees it too
	var left int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM view_events").Scan(&left); err != nil || left == 0 {
		return err
	}
	err = sqlstore.MoveViewRows(left, func() (n int, err error) {
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			n, err = moveBatch(ctx, tx)
			return err
		})
		return n, err
	})
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// moveBatch moves the oldest rows of view_events, at most a batch, into
// blocks of one transaction's rows each, and returns how many it moved.
//
// The rows are locked as they are read (FOR UPDATE), so that an erasure
// or a merge of products, which lock or change them, cannot delete or
// change them between the read and the delete: it waits for the batch's
// commit and then finds its blocks, or the batch waits for it and reads
// the rows as it left them (a deleted row is skipped). They are locked in
// a subquery, so that the product joined is that of the row as locked.
func moveBatch(ctx context.Context, tx pgx.Tx) (int, error) {
	var views []viewblock.View
	var txids []string
	rows, err := tx.Query(ctx, "SELECT "+sqlstore.MovedViewColumns+`, v.txid::text
		FROM (SELECT * FROM view_events ORDER BY id LIMIT $1 FOR UPDATE) v LEFT JOIN products p ON p.id = v.product
		ORDER BY v.id`, moveSizes.batch)
	if err != nil {
		return 0, err
	}
	err = scanAll(rows, func() error {
		var txid string
		v, err := sqlstore.ScanMovedView(rows, &txid)
		views, txids = append(views, v), append(txids, txid)
		return err
	})
	if err != nil || len(views) == 0 {
		return 0, err
	}
	q := &pgx.Batch{}
	ids := make([]int64, len(views))
	for i := range views {
		ids[i] = views[i].ID
	}
	for i := 0; i < len(views); {
		// A block: the rows that follow of one transaction, at most a block's.
		j := i + 1
		for j < len(views) && j-i < moveSizes.block && txids[j] == txids[i] {
			j++
		}
		b := views[i:j]
		lo, hi := b[0].TS, b[0].TS
		for k := range b {
			lo, hi = min(lo, b[k].TS), max(hi, b[k].TS)
		}
		q.Queue("INSERT INTO view_blocks (id, last, min_ts, max_ts, n, data, txid) VALUES ($1, $2, $3, $4, $5, $6, $7::xid8)",
			b[0].ID, b[len(b)-1].ID, lo, hi, len(b), viewblock.Append(nil, b), txids[i])
		i = j
	}
	q.Queue("DELETE FROM view_events WHERE id = ANY($1)", ids)
	if err := tx.SendBatch(ctx, q).Close(); err != nil {
		return 0, err
	}
	return len(views), nil
}
