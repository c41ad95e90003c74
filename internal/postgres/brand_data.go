package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlstore"
)

// ExportEvents calls fn for every stored event of the brand: views, then
// orders, each oldest first. Both are read in one snapshot.
func (s *Store) ExportEvents(ctx context.Context, brandID string, fn func(svc.ExportedEvent) error) error {
	if _, err := s.Brand(ctx, brandID); err != nil {
		return err
	}
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return sqlstore.ExportBrand(brandID, "$1", fn, func(q string, row func(func(...any) error) error) error {
			return eachRow(ctx, tx, func(rows pgx.Rows) error { return row(rows.Scan) }, q, brandID)
		})
	})
}

// ForgetSession deletes every view and order of the brand that carries the
// session id (svc.ForgetSession).
func (s *Store) ForgetSession(ctx context.Context, brandID, sessionID string) (n int64, err error) {
	if _, err := s.Brand(ctx, brandID); err != nil {
		return 0, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		// What the session's events added to the rollups goes with them.
		d := &rollup.Delta{}
		if err := countEvents(ctx, tx, d, -1, "v.session_id = $1 AND p.brand_id = $2", "c.session_id = $1 AND p.brand_id = $2",
			"e.session_id = $1 AND e.brand_id = $2", sessionID, brandID); err != nil {
			return err
		}
		if n, err = svc.ForgetSession(ctx, eraseTx{tx}, brandID, sessionID); err != nil {
			return err
		}
		for _, q := range []string{"DELETE FROM rollup_sessions WHERE brand_id = $1 AND session_id = $2", "DELETE FROM widget_sessions WHERE brand_id = $1 AND session_id = $2"} {
			if _, err := tx.Exec(ctx, q, brandID, sessionID); err != nil {
				return err
			}
		}
		// The session's links of orders (svc.OrderSessionStore) go too.
		if _, err := tx.Exec(ctx, "DELETE FROM order_sessions WHERE brand_id = $1 AND session_id = $2", brandID, sessionID); err != nil {
			return err
		}
		return rollup.Apply(ctx, rollupTx{tx}, d)
	})
	return n, err
}

// eraseTx persists an erasure (svc.EraseTx).
type eraseTx struct{ tx pgx.Tx }

func (e eraseTx) DeleteSession(ctx context.Context, brandID, sessionID string) (int64, error) {
	views, err := e.tx.Exec(ctx, "DELETE FROM view_events WHERE session_id = $1 AND product IN (SELECT id FROM products WHERE brand_id = $2)", sessionID, brandID)
	if err != nil {
		return 0, err
	}
	// An order's lines go with it, by cascade.
	orders, err := e.tx.Exec(ctx, "DELETE FROM purchase_events WHERE session_id = $1 AND brand_id = $2", sessionID, brandID)
	if err != nil {
		return 0, err
	}
	carts, err := e.tx.Exec(ctx, "DELETE FROM cart_events WHERE session_id = $1 AND product IN (SELECT id FROM products WHERE brand_id = $2)", sessionID, brandID)
	return views.RowsAffected() + orders.RowsAffected() + carts.RowsAffected(), err
}

func (e eraseTx) BumpErasureVersion(ctx context.Context) error {
	_, err := e.tx.Exec(ctx, "UPDATE erasure_version SET version = version + 1")
	return err
}

// ErasureVersion returns a number that changes whenever events are erased.
func (s *Store) ErasureVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.pool.QueryRow(ctx, "SELECT version FROM erasure_version").Scan(&v)
	return v, err
}
