package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
)

// CancelOrder takes a cancellation's units out of the brand's orders with
// its order id (svc.CancelOrder), in one transaction of the one writer.
func (s *Store) CancelOrder(ctx context.Context, c *svc.CancelEvent) error {
	return s.inEventTx(ctx, func(tx *sql.Tx) error {
		return sqlstore.CancelOrder(ctx, sqlstore.SQLite.Wrap(sqlQ{tx}), s.cancelTx(tx), s.rollupTx(tx), c)
	})
}

// cancelTx persists a cancellation (svc.CancelTx): its statements in
// internal/sqlstore, the pending units' here.
type cancelTx struct {
	sqlstore.CancelTx
	tx *sql.Tx
}

func (s *Store) cancelTx(tx *sql.Tx) cancelTx { return cancelTx{s.Store.CancelTx(sqlQ{tx}), tx} }

// InsertPending records a refund's units for its order to take out when
// it comes; the writer holds the database, so no order came meanwhile.
func (c cancelTx) InsertPending(ctx context.Context, brandID, orderID, eventID string, items []svc.CancelItem, at time.Time) (bool, error) {
	for _, it := range items {
		if _, err := c.tx.ExecContext(ctx, `INSERT INTO pending_cancels (brand_id, order_id, event_id, product_id, units, received_at)
			VALUES (?, ?, ?, ?, ?, ?)`, brandID, orderID, eventID, it.ProductID, *it.Quantity, millis(at)); err != nil {
			return false, err
		}
	}
	return true, nil
}

// CancelsAfter calls fn for every cancellation record with an id after
// after, of an order at or after since, in id order.
func (r reads) CancelsAfter(ctx context.Context, after int64, since time.Time, fn func(int64, svc.CancelRecord) error) error {
	return eachRowOf(ctx, r.db, func(rows *sql.Rows) error {
		var pos, ts int64
		var c svc.CancelRecord
		var before, afterPrice sql.NullFloat64
		if err := rows.Scan(&pos, &c.Order, &c.OrderEventID, &c.Product, &ts, &c.Units, &c.Orders, &c.Currency, &before, &afterPrice); err != nil {
			return err
		}
		c.Time, c.PriceBefore, c.PriceAfter = fromMillis(ts), nullFloat(before), nullFloat(afterPrice)
		return fn(pos, c)
	}, `SELECT c.id, c.purchase, e.event_id, c.product, c.ts, c.units, c.orders, coalesce(c.currency, ''), c.price_before, c.price_after
		FROM order_cancels c JOIN purchase_events e ON e.id = c.purchase
		WHERE c.id > ? AND c.ts >= ? ORDER BY c.id`, after, millis(since))
}

func nullFloat(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	return &f.Float64
}
