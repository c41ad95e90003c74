package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/svc-project/svc"
)

// CancelTx persists a cancellation (svc.CancelTx) but its pending
// units, which each store records in its own way (InsertPending); the
// store's transaction around it takes the engine's locks and rollups.
type CancelTx struct{ tx Querier }

// CancelTx returns the cancellation's writes on tx, a transaction of the
// store's own Querier (placeholders not yet rewritten).
func (s *Store) CancelTx(tx Querier) CancelTx { return CancelTx{bound{tx, s.d}} }

// Answer returns the stored answer to an idempotency key (svc.CancelTx).
func (c CancelTx) Answer(ctx context.Context, k svc.IdempotencyKey, since time.Time) (svc.Answer, bool, error) {
	var a svc.Answer
	err := c.tx.QueryRow(ctx, `SELECT status, event_id, body_hash FROM idempotency_keys
		WHERE brand_id = ? AND scope = ? AND key = ? AND created_at > ?`, k.BrandID, k.Scope, k.Key, Millis(since)).Scan(&a.Status, &a.EventID, &a.BodyHash)
	if NoRows(err) {
		return a, false, nil
	}
	return a, err == nil, err
}

// PutAnswer stores the answer to an idempotency key (svc.CancelTx).
func (c CancelTx) PutAnswer(ctx context.Context, k svc.IdempotencyKey, bodyHash [32]byte, at time.Time, a svc.Answer) error {
	_, err := c.tx.Exec(ctx, `INSERT INTO idempotency_keys (brand_id, scope, key, body_hash, created_at, status, event_id)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (brand_id, scope, key) DO UPDATE SET body_hash = excluded.body_hash,
		created_at = excluded.created_at, status = excluded.status, event_id = excluded.event_id`,
		k.BrandID, k.Scope, k.Key, bodyHash[:], Millis(at), a.Status, a.EventID)
	return err
}

// Orders reads the brand's orders with the id, with their lines
// (svc.CancelTx); the store's transaction keeps them from changing
// meanwhile.
func (c CancelTx) Orders(ctx context.Context, brandID, orderID string) ([]svc.StoredOrder, error) {
	var out []svc.StoredOrder
	err := Each(ctx, c.tx, func(rows Row) error {
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
			o.Time = FromMillis(ts)
			out = append(out, o)
		}
		if line.Valid {
			l.Line, l.ProductID, l.Quantity = int(line.Int64), productID.String, quantity.Int64
			if price.Valid {
				l.UnitPrice = &price.Float64
			}
			last := &out[len(out)-1]
			last.Lines = append(last.Lines, l)
		}
		return nil
	}, `SELECT e.id, e.event_id, e.keyed, e.ts, coalesce(e.currency, ''),
			coalesce((SELECT event_id FROM order_cancels WHERE purchase = e.id ORDER BY id DESC LIMIT 1), ''),
			i.line, coalesce(i.product, 0), p.product_id, i.quantity, i.unit_price
		FROM purchase_events e LEFT JOIN purchase_items i ON i.purchase = e.id LEFT JOIN products p ON p.id = i.product
		WHERE e.brand_id = ? AND e.order_id = ? ORDER BY e.id, i.line`, brandID, orderID)
	return out, err
}

// InsertCancelled stores a keyed order that came cancelled, with no line
// (svc.CancelTx).
func (c CancelTx) InsertCancelled(ctx context.Context, brandID, orderID, eventID string, at time.Time) (bool, error) {
	n, err := c.tx.Exec(ctx, `INSERT INTO purchase_events (event_id, brand_id, order_id, ts, received_at, keyed)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, eventID, brandID, orderID, Millis(at), Millis(at), true)
	return n == 1, err
}

// SetQuantity leaves quantity units on an order's line (svc.CancelTx).
func (c CancelTx) SetQuantity(ctx context.Context, order int64, line int, quantity int64) error {
	_, err := c.tx.Exec(ctx, `UPDATE purchase_items SET cancelled = cancelled + quantity - ?, quantity = ?
		WHERE purchase = ? AND line = ?`, quantity, quantity, order, line)
	return err
}

// InsertCancel stores a cancellation record (svc.CancelTx).
func (c CancelTx) InsertCancel(ctx context.Context, eventID string, r svc.CancelRecord, at time.Time) error {
	_, err := c.tx.Exec(ctx, `INSERT INTO order_cancels
		(event_id, purchase, product, ts, units, orders, currency, price_before, price_after, received_at)
		VALUES (?, ?, ?, ?, ?, ?, nullif(?, ''), ?, ?, ?)`,
		eventID, r.Order, int64(r.Product), Millis(r.Time), r.Units, r.Orders, r.Currency, r.PriceBefore, r.PriceAfter, Millis(at))
	return err
}

// ProductOf returns the product a name belongs to (svc.CancelTx).
func (c CancelTx) ProductOf(ctx context.Context, brandID, name string) (string, bool, error) {
	var id string
	err := c.tx.QueryRow(ctx, productOf, brandID, name, brandID, name).Scan(&id)
	if NoRows(err) {
		return "", false, nil
	}
	return id, err == nil, err
}
