package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
)

// CancelOrder takes a cancellation's units out of the brand's orders with
// its order id (svc.CancelOrder), in one transaction of the one writer.
func (s *Store) CancelOrder(ctx context.Context, c *svc.CancelEvent) error {
	return s.inEventTx(ctx, func(tx *sql.Tx) error {
		// The order leaves the rollups as it stood and comes back as it stands.
		d := &rollup.Delta{}
		const cond = "e.brand_id = ?1 AND e.order_id = ?2"
		if err := countEvents(ctx, tx, d, -1, "", cond, c.BrandID, c.OrderID); err != nil {
			return err
		}
		if err := svc.CancelOrder(ctx, cancelTx{tx}, c); err != nil {
			return err
		}
		if err := countEvents(ctx, tx, d, 1, "", cond, c.BrandID, c.OrderID); err != nil {
			return err
		}
		return rollup.Apply(ctx, s.rollupTx(tx), d)
	})
}

// cancelTx persists a cancellation (svc.CancelTx).
type cancelTx struct{ tx *sql.Tx }

func (c cancelTx) Answer(ctx context.Context, k svc.IdempotencyKey, since time.Time) (svc.Answer, bool, error) {
	var a svc.Answer
	ok, err := found(c.tx.QueryRowContext(ctx, qIdempotencyGet, k.BrandID, k.Scope, k.Key, millis(since)).Scan(&a.Status, &a.EventID, &a.BodyHash))
	return a, ok, err
}

func (c cancelTx) PutAnswer(ctx context.Context, k svc.IdempotencyKey, bodyHash [32]byte, at time.Time, a svc.Answer) error {
	_, err := c.tx.ExecContext(ctx, qIdempotencyPut, k.BrandID, k.Scope, k.Key, bodyHash[:], millis(at), a.Status, a.EventID)
	return err
}

// Orders reads the orders with their lines; the writer's transaction
// holds the database, so nothing changes them meanwhile.
func (c cancelTx) Orders(ctx context.Context, brandID, orderID string) ([]svc.StoredOrder, error) {
	var out []svc.StoredOrder
	err := eachRowOf(ctx, c.tx, func(rows *sql.Rows) error {
		var o svc.StoredOrder
		var ts int64
		var line sql.NullInt64
		var l svc.StoredLine
		var productID sql.NullString
		var quantity sql.NullInt64
		var price sql.NullFloat64
		if err := rows.Scan(&o.ID, &o.EventID, &o.Keyed, &ts, &o.Currency, &o.LastCancel, &line, &l.Product, &productID, &quantity, &price); err != nil {
			return err
		}
		if n := len(out); n == 0 || out[n-1].ID != o.ID {
			o.Time = fromMillis(ts)
			out = append(out, o)
		}
		if line.Valid {
			l.Line, l.ProductID, l.Quantity = int(line.Int64), productID.String, quantity.Int64
			if price.Valid {
				l.UnitPrice = &price.Float64
			}
			o := &out[len(out)-1]
			o.Lines = append(o.Lines, l)
		}
		return nil
	}, `SELECT e.id, e.event_id, e.keyed, e.ts, coalesce(e.currency, ''),
			coalesce((SELECT event_id FROM order_cancels WHERE purchase = e.id ORDER BY id DESC LIMIT 1), ''),
			i.line, coalesce(i.product, 0), p.product_id, i.quantity, i.unit_price
		FROM purchase_events e LEFT JOIN purchase_items i ON i.purchase = e.id LEFT JOIN products p ON p.id = i.product
		WHERE e.brand_id = ? AND e.order_id = ? ORDER BY e.id, i.line`, brandID, orderID)
	return out, err
}

func (c cancelTx) InsertCancelled(ctx context.Context, brandID, orderID, eventID string, at time.Time) (bool, error) {
	res, err := c.tx.ExecContext(ctx, `INSERT INTO purchase_events (event_id, brand_id, order_id, ts, received_at, keyed)
		VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT DO NOTHING`, eventID, brandID, orderID, millis(at), millis(at))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

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

func (c cancelTx) SetQuantity(ctx context.Context, order int64, line int, quantity int64) error {
	_, err := c.tx.ExecContext(ctx, `UPDATE purchase_items SET cancelled = cancelled + quantity - ?1, quantity = ?1
		WHERE purchase = ?2 AND line = ?3`, quantity, order, line)
	return err
}

func (c cancelTx) InsertCancel(ctx context.Context, eventID string, r svc.CancelRecord, at time.Time) error {
	_, err := c.tx.ExecContext(ctx, `INSERT INTO order_cancels
		(event_id, purchase, product, ts, units, orders, currency, price_before, price_after, received_at)
		VALUES (?, ?, ?, ?, ?, ?, nullif(?, ''), ?, ?, ?)`,
		eventID, r.Order, int64(r.Product), millis(r.Time), r.Units, r.Orders, r.Currency, r.PriceBefore, r.PriceAfter, millis(at))
	return err
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
