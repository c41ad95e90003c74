package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlstore"
)

// ExportEvents calls fn for every stored event of the brand: views, then
// orders, each oldest first.
func (s *Store) ExportEvents(ctx context.Context, brandID string, fn func(svc.ExportedEvent) error) error {
	if _, err := s.Brand(ctx, brandID); err != nil {
		return err
	}
	return sqlstore.ExportBrand(brandID, "?", fn, func(q string, row func(func(...any) error) error) error {
		return s.eachRow(ctx, func(rows *sql.Rows) error { return row(rows.Scan) }, q, brandID)
	})
}

// ForgetSession deletes every view, order and add-to-cart of the brand that carries the
// session id (svc.ForgetSession).
func (s *Store) ForgetSession(ctx context.Context, brandID, sessionID string) (n int64, err error) {
	if _, err := s.Brand(ctx, brandID); err != nil {
		return 0, err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		// What the session's events added to the rollups goes with them.
		d := &rollup.Delta{}
		if err := countEvents(ctx, tx, d, -1, "v.session_id = ?1 AND p.brand_id = ?2", "c.session_id = ?1 AND p.brand_id = ?2",
			"e.session_id = ?1 AND e.brand_id = ?2", sessionID, brandID); err != nil {
			return err
		}
		if n, err = svc.ForgetSession(ctx, eraseTx{tx}, brandID, sessionID); err != nil {
			return err
		}
		for _, q := range []string{"DELETE FROM rollup_sessions WHERE brand_id = ? AND session_id = ?", "DELETE FROM widget_sessions WHERE brand_id = ? AND session_id = ?"} {
			if _, err := tx.ExecContext(ctx, q, brandID, sessionID); err != nil {
				return err
			}
		}
		// The session's links of orders (svc.OrderSessionStore) go too.
		if _, err := tx.ExecContext(ctx, "DELETE FROM order_sessions WHERE brand_id = ? AND session_id = ?", brandID, sessionID); err != nil {
			return err
		}
		return rollup.Apply(ctx, s.rollupTx(tx), d)
	})
	return n, err
}

// eraseTx persists an erasure (svc.EraseTx).
type eraseTx struct{ tx *sql.Tx }

func (e eraseTx) DeleteSession(ctx context.Context, brandID, sessionID string) (int64, error) {
	var total int64
	for _, q := range []string{
		"DELETE FROM view_events WHERE session_id = ? AND product IN (SELECT id FROM products WHERE brand_id = ?)",
		"DELETE FROM purchase_events WHERE session_id = ? AND brand_id = ?", // lines go by cascade
		"DELETE FROM cart_events WHERE session_id = ? AND product IN (SELECT id FROM products WHERE brand_id = ?)",
	} {
		res, err := e.tx.ExecContext(ctx, q, sessionID, brandID)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

func (e eraseTx) BumpErasureVersion(ctx context.Context) error {
	_, err := e.tx.ExecContext(ctx, "UPDATE erasure_version SET version = version + 1")
	return err
}

// ErasureVersion returns a number that changes whenever events are erased.
func (s *Store) ErasureVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.r.QueryRowContext(ctx, "SELECT version FROM erasure_version").Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}
