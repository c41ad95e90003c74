package sqlstore

import (
	"context"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/viewblock"
)

// ForgetSession deletes every view, order and add-to-cart of the brand
// that carries the session id (svc.ForgetSession), in a transaction of the
// store's RollupTx.
func (s *Store) ForgetSession(ctx context.Context, brandID, sessionID string) (n int64, err error) {
	if _, err := s.Brand(ctx, brandID); err != nil {
		return 0, err
	}
	err = s.rollupTx(ctx, func(tx Querier, rt rollup.Tx) error {
		// What the session's events added to the rollups goes with them.
		d := &rollup.Delta{}
		et := EraseTx{Tx: tx, Views: func(ctx context.Context, brandID, sessionID string) (int64, error) {
			// The session's rows not yet moved into blocks go too, with
			// what they added to the rollups (the version before counted
			// its rows as they were written). First: their locks wait
			// for a move batch that holds them (postgres.moveBatch), whose
			// blocks the rewrite below then reads.
			rows, err := s.d.dropViewRows(ctx, tx, d, "v.session_id = ? AND p.brand_id = ?", sessionID, brandID)
			if err != nil {
				return 0, err
			}
			n, err := s.d.RewriteBlocks(ctx, tx, "true", nil, DropViews(d, func(v *viewblock.View) bool {
				return v.HasSession && v.Session == sessionID && v.Brand == brandID
			}))
			return n + rows, err
		}}
		if err := CountEvents(ctx, tx, d, -1, "c.session_id = ? AND p.brand_id = ?",
			"e.session_id = ? AND e.brand_id = ?", sessionID, brandID); err != nil {
			return err
		}
		if n, err = svc.ForgetSession(ctx, et, brandID, sessionID); err != nil {
			return err
		}
		for _, q := range []string{"DELETE FROM rollup_sessions WHERE brand_id = ? AND session_id = ?", "DELETE FROM widget_sessions WHERE brand_id = ? AND session_id = ?",
			// The session's links of orders (svc.OrderSessionStore) go too.
			"DELETE FROM order_sessions WHERE brand_id = ? AND session_id = ?"} {
			if _, err := tx.Exec(ctx, q, brandID, sessionID); err != nil {
				return err
			}
		}
		return rollup.Apply(ctx, rt, d)
	})
	return n, err
}

// EraseTx persists an erasure (svc.EraseTx) in Tx, a transaction of a
// Store's (placeholders rewritten).
type EraseTx struct {
	Tx Querier
	// Views deletes the session's views where they are kept in blocks,
	// every block read as no index has sessions, and the rows of
	// view_events not yet moved into blocks; nil: only the rows.
	Views func(ctx context.Context, brandID, sessionID string) (int64, error)
}

// DeleteSession deletes the brand's events with the session id (svc.EraseTx).
func (e EraseTx) DeleteSession(ctx context.Context, brandID, sessionID string) (int64, error) {
	var total int64
	queries := []string{
		"DELETE FROM view_events WHERE session_id = ? AND product IN (SELECT id FROM products WHERE brand_id = ?)",
		"DELETE FROM purchase_events WHERE session_id = ? AND brand_id = ?", // lines go by cascade
		"DELETE FROM cart_events WHERE session_id = ? AND product IN (SELECT id FROM products WHERE brand_id = ?)",
	}
	if e.Views != nil {
		n, err := e.Views(ctx, brandID, sessionID)
		if err != nil {
			return 0, err
		}
		total, queries = n, queries[1:]
	}
	for _, q := range queries {
		n, err := e.Tx.Exec(ctx, q, sessionID, brandID)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// BumpErasureVersion changes the erasure version (svc.EraseTx).
func (e EraseTx) BumpErasureVersion(ctx context.Context) error {
	_, err := e.Tx.Exec(ctx, "UPDATE erasure_version SET version = version + 1")
	return err
}

// ErasureVersion returns a number that changes whenever events are erased.
func (s *Store) ErasureVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.r.QueryRow(ctx, "SELECT version FROM erasure_version").Scan(&v)
	if NoRows(err) {
		return 0, nil
	}
	return v, err
}

// dropViewRows deletes the rows of view_events (v, joined to its product
// p) that the condition selects, rows of the version before not yet moved
// into blocks, and adds them to delta with sign -1. It returns how many
// it deleted. The rows are locked as they are read (PostgreSQL): a move
// batch holding them is waited for, and they are then gone, moved.
func (d *Dialect) dropViewRows(ctx context.Context, tx Querier, delta *rollup.Delta, cond string, args ...any) (int64, error) {
	lock := ""
	if d.forUpdate != "" {
		lock = d.forUpdate + " OF v"
	}
	ids, err := Collect(ctx, tx, func(r Row) (int64, error) {
		v, err := ScanMovedView(r)
		delta.AddView(RollupView(&v), -1)
		return v.ID, err
	}, "SELECT "+MovedViewColumns+" FROM view_events v JOIN products p ON p.id = v.product WHERE "+cond+" ORDER BY v.id"+lock, args...)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return tx.Exec(ctx, "DELETE FROM view_events WHERE "+d.InList("id"), d.Int64s(ids))
}
