package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/svc-project/svc/internal/sqlstore"
	"github.com/svc-project/svc/internal/viewblock"
)

// Views are kept in blocks, a row of view_blocks per commit group
// (internal/sqlstore/viewblocks.go, docs/decisions.md): the writer
// encodes a transaction's views as one block, and readers decode them.

const (
	// qLastViewID is the largest view id given: the end of the newest
	// block's range, which a rewrite keeps.
	qLastViewID = "SELECT coalesce((SELECT last FROM view_blocks ORDER BY id DESC LIMIT 1), 0)"
	qBlockPut   = "INSERT INTO view_blocks (id, last, min_ts, max_ts, n, data) VALUES (?, ?, ?, ?, ?, ?)"
)

// writeBlock stores views, ids not yet given, as a new block after the
// newest: each gets the next id.
func (p *preparedTx) writeBlock(ctx context.Context, views []viewblock.View) error {
	if len(views) == 0 {
		return nil
	}
	var last int64
	if err := p.QueryRowContext(ctx, qLastViewID).Scan(&last); err != nil {
		return err
	}
	lo, hi := views[0].TS, views[0].TS
	for i := range views {
		views[i].ID = last + 1 + int64(i)
		lo, hi = min(lo, views[i].TS), max(hi, views[i].TS)
	}
	p.block = viewblock.Append(p.block[:0], views)
	_, err := p.ExecContext(ctx, qBlockPut, last+1, last+int64(len(views)), lo, hi, len(views), p.block)
	return err
}

// moveSizes are the views of a block and of a transaction of
// moveViewRows (tests make them small).
var moveSizes = struct{ block, batch int }{4096, 65536}

// moveViewRows moves the rows of view_events, which versions before
// view_blocks wrote, into blocks of views in id order, a batch of blocks
// a transaction: a start that stops resumes with the rows
// left. It logs its progress.
func (s *Store) moveViewRows(ctx context.Context) error {
	var left int64
	if err := s.w.QueryRowContext(ctx, "SELECT count(*) FROM view_events").Scan(&left); err != nil || left == 0 {
		return err
	}
	err := sqlstore.MoveViewRows(left, func() (n int, err error) {
		err = s.inTx(ctx, func(tx *sql.Tx) error {
			var views []viewblock.View
			err := eachRowOf(ctx, tx, func(rows *sql.Rows) error {
				v, err := sqlstore.ScanMovedView(rows)
				views = append(views, v)
				return err
			}, "SELECT "+sqlstore.MovedViewColumns+" FROM view_events v LEFT JOIN products p ON p.id = v.product ORDER BY v.id LIMIT ?", moveSizes.batch)
			if err != nil || len(views) == 0 {
				return err
			}
			// Rows at or below the newest block's range were written after
			// views went into blocks (a version before, run on this file
			// again): they take the ids after it, as the writer would give,
			// rather than replace the blocks of their ids.
			moved := views[len(views)-1].ID
			var last int64
			if err := tx.QueryRowContext(ctx, qLastViewID).Scan(&last); err != nil {
				return err
			}
			if views[0].ID <= last {
				for i := range views {
					views[i].ID = last + 1 + int64(i)
				}
			}
			q := sqlstore.SQLite.Wrap(sqlQ{tx})
			var buf []byte
			for rest := views; len(rest) > 0; {
				b := rest[:min(len(rest), moveSizes.block)]
				if buf, err = sqlstore.PutBlock(ctx, q, b[0].ID, b[len(b)-1].ID, b, buf); err != nil {
					return err
				}
				rest = rest[len(b):]
			}
			n = len(views)
			_, err = tx.ExecContext(ctx, "DELETE FROM view_events WHERE id <= ?", moved)
			return err
		})
		return n, err
	})
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	return nil
}
