package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
)

// CancelOrder takes a cancellation's units out of the brand's orders with
// its order id (svc.CancelOrder), in one transaction. The change feed
// hands what it took out to the other nodes; this node counts it itself.
func (s *Store) CancelOrder(ctx context.Context, c *svc.CancelEvent) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return unavailable(s.appendTx(ctx, func(tx pgx.Tx, xid *int64) error {
		// One cancellation of an order at a time, across nodes: the
		// second reads what the first left, and its idempotency key's
		// answer if it is a repeat.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1 || E'\\x1f' || $2, 0))", c.BrandID, c.OrderID); err != nil {
			return err
		}
		if xid != nil {
			if err := tx.QueryRow(ctx, "SELECT pg_current_xact_id()::text::bigint").Scan(xid); err != nil {
				return err
			}
		}
		// The order leaves the rollups as it stood and comes back as it stands.
		d := &rollup.Delta{}
		const cond = "e.brand_id = $1 AND e.order_id = $2"
		if err := countEvents(ctx, tx, d, -1, "", cond, c.BrandID, c.OrderID); err != nil {
			return err
		}
		if err := svc.CancelOrder(ctx, cancelTx{tx}, c); err != nil {
			return err
		}
		if err := countEvents(ctx, tx, d, 1, "", cond, c.BrandID, c.OrderID); err != nil {
			return err
		}
		return rollup.Apply(ctx, rollupTx{tx}, d)
	}))
}

// cancelTx persists a cancellation (svc.CancelTx).
type cancelTx struct{ tx pgx.Tx }

func (c cancelTx) Answer(ctx context.Context, k svc.IdempotencyKey, since time.Time) (svc.Answer, bool, error) {
	var a svc.Answer
	err := c.tx.QueryRow(ctx, `SELECT status, event_id, body_hash FROM idempotency_keys
		WHERE brand_id = $1 AND scope = $2 AND key = $3 AND created_at > $4`, k.BrandID, k.Scope, k.Key, millis(since)).Scan(&a.Status, &a.EventID, &a.BodyHash)
	if err == pgx.ErrNoRows {
		return a, false, nil
	}
	return a, err == nil, err
}

func (c cancelTx) PutAnswer(ctx context.Context, k svc.IdempotencyKey, bodyHash [32]byte, at time.Time, a svc.Answer) error {
	_, err := c.tx.Exec(ctx, `INSERT INTO idempotency_keys (brand_id, scope, key, body_hash, created_at, status, event_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (brand_id, scope, key) DO UPDATE SET body_hash = excluded.body_hash,
		created_at = excluded.created_at, status = excluded.status, event_id = excluded.event_id`,
		k.BrandID, k.Scope, k.Key, bodyHash[:], millis(at), a.Status, a.EventID)
	return err
}

func (c cancelTx) Orders(ctx context.Context, brandID, orderID string) ([]svc.StoredOrder, error) {
	var out []svc.StoredOrder
	err := eachRow(ctx, c.tx, func(rows pgx.Rows) error {
		var o svc.StoredOrder
		var ts int64
		var line pgtype.Int4
		var l svc.StoredLine
		var productID pgtype.Text
		var quantity pgtype.Int8
		var price pgtype.Float8
		if err := rows.Scan(&o.ID, &o.EventID, &o.Keyed, &ts, &o.Currency, &o.LastCancel, &line, &l.Product, &productID, &quantity, &price); err != nil {
			return err
		}
		if n := len(out); n == 0 || out[n-1].ID != o.ID {
			o.Time = fromMillis(ts)
			out = append(out, o)
		}
		if line.Valid {
			l.Line, l.ProductID, l.Quantity = int(line.Int32), productID.String, quantity.Int64
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
		WHERE e.brand_id = $1 AND e.order_id = $2 ORDER BY e.id, i.line`, brandID, orderID)
	return out, err
}

func (c cancelTx) InsertCancelled(ctx context.Context, brandID, orderID, eventID string, at time.Time) (bool, error) {
	tag, err := c.tx.Exec(ctx, `INSERT INTO purchase_events (event_id, brand_id, order_id, ts, received_at, keyed)
		VALUES ($1, $2, $3, $4, $4, true) ON CONFLICT DO NOTHING`, eventID, brandID, orderID, millis(at))
	return tag.RowsAffected() == 1, err
}

// InsertPending records a refund's units for its order to take out when
// it comes. It first claims the keyed order's id with a row it deletes
// again: a batch inserting that order meanwhile makes it wait for the
// batch's commit and report false (the order is then stored, and the
// refund takes its units out of it); a batch inserting it later waits for
// this commit and then reads the units (see checkPending).
func (c cancelTx) InsertPending(ctx context.Context, brandID, orderID, eventID string, items []svc.CancelItem, at time.Time) (bool, error) {
	var id int64
	err := c.tx.QueryRow(ctx, `INSERT INTO purchase_events (event_id, brand_id, order_id, ts, received_at, keyed)
		VALUES ($1, $2, $3, $4, $4, true) ON CONFLICT DO NOTHING RETURNING id`, eventID, brandID, orderID, millis(at)).Scan(&id)
	switch {
	case err == pgx.ErrNoRows:
		return false, nil
	case err != nil:
		return false, err
	}
	if _, err := c.tx.Exec(ctx, "DELETE FROM purchase_events WHERE id = $1", id); err != nil {
		return false, err
	}
	products, units := make([]string, len(items)), make([]int64, len(items))
	for i, it := range items {
		products[i], units[i] = it.ProductID, *it.Quantity
	}
	_, err = c.tx.Exec(ctx, `INSERT INTO pending_cancels (brand_id, order_id, event_id, product_id, units, received_at)
		SELECT $1, $2, $3, p, u, $4 FROM unnest($5::text[], $6::bigint[]) WITH ORDINALITY AS x(p, u, n) ORDER BY n`,
		brandID, orderID, eventID, millis(at), products, units)
	return err == nil, err
}

func (c cancelTx) SetQuantity(ctx context.Context, order int64, line int, quantity int64) error {
	_, err := c.tx.Exec(ctx, `UPDATE purchase_items SET cancelled = cancelled + quantity - $1, quantity = $1
		WHERE purchase = $2 AND line = $3`, quantity, order, line)
	return err
}

func (c cancelTx) InsertCancel(ctx context.Context, eventID string, r svc.CancelRecord, at time.Time) error {
	_, err := c.tx.Exec(ctx, `INSERT INTO order_cancels
		(event_id, purchase, product, ts, units, orders, currency, price_before, price_after, received_at)
		VALUES ($1, $2, $3, $4, $5, $6, nullif($7, ''), $8, $9, $10)`,
		eventID, r.Order, int64(r.Product), millis(r.Time), r.Units, r.Orders, r.Currency, r.PriceBefore, r.PriceAfter, millis(at))
	return err
}

func optFloat(f pgtype.Float8) *float64 {
	if !f.Valid {
		return nil
	}
	return &f.Float64
}
