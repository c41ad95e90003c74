package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// ExportEvents calls fn for every stored event of the brand: views, then
// orders, each oldest first. Both are read in one snapshot.
func (s *Store) ExportEvents(ctx context.Context, brandID string, fn func(svc.ExportedEvent) error) error {
	if _, err := s.Brand(ctx, brandID); err != nil {
		return err
	}
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		err := eachRow(ctx, tx, func(rows pgx.Rows) error {
			v := new(svc.ViewEvent)
			var ts, received int64
			var given *int64
			if err := rows.Scan(&v.Meta.EventID, &v.Product.ProductID, &v.Product.SKU, &v.Product.Title, &v.Product.URL,
				&ts, &given, &received, &v.Context.SessionID, &v.Context.Country, &v.Context.Locale, &v.Meta.Keyed); err != nil {
				return err
			}
			v.BrandID = brandID
			v.Context.Timestamp = stampMeta(&v.Meta, ts, given, received)
			return fn(svc.ExportedEvent{View: v})
		}, `SELECT v.event_id, p.product_id, p.sku, p.title, p.url, v.ts, v.given_ts, v.received_at,
				v.session_id, v.country, v.locale, v.keyed
			FROM view_events v JOIN products p ON p.id = v.product
			WHERE p.brand_id = $1 ORDER BY v.ts, v.id`, brandID)
		if err != nil {
			return err
		}
		// One row per order line; lines of an order are consecutive.
		orders := svc.OrderLines{Emit: fn}
		err = eachRow(ctx, tx, func(rows pgx.Rows) error {
			var id, ts, received int64
			var given *int64
			e := new(svc.PurchaseEvent)
			var it svc.PurchaseItem
			if err := rows.Scan(&id, &e.Meta.EventID, &e.Order.OrderID, &ts, &given, &received, &e.Context.SessionID,
				&e.Order.Currency, &e.Order.TotalValue, &e.Meta.Keyed,
				&it.ProductID, &it.SKU, &it.Title, &it.Quantity, &it.UnitPrice); err != nil {
				return err
			}
			e.BrandID = brandID
			e.Context.Timestamp = stampMeta(&e.Meta, ts, given, received)
			return orders.Add(id, e, it)
		}, `SELECT e.id, e.event_id, e.order_id, e.ts, e.given_ts, e.received_at, e.session_id,
				e.currency, e.total_value, e.keyed,
				p.product_id, i.sku, i.title, i.quantity, i.unit_price
			FROM purchase_events e
			JOIN purchase_items i ON i.purchase = e.id
			JOIN products p ON p.id = i.product
			WHERE e.brand_id = $1 ORDER BY e.ts, e.id, i.line`, brandID)
		if err != nil {
			return err
		}
		return orders.Flush()
	})
}

// stampMeta fills the times of an exported event and returns its timestamp
// as it counts.
func stampMeta(m *svc.EventMeta, ts int64, given *int64, received int64) *string {
	m.Time, m.ReceivedAt = fromMillis(ts), fromMillis(received)
	if given != nil {
		g := fromMillis(*given)
		m.GivenTime = &g
	}
	out := m.Time.Format(time.RFC3339Nano)
	return &out
}

// ForgetSession deletes every view and order of the brand that carries the
// session id, and bumps the erasure version if it deleted anything.
func (s *Store) ForgetSession(ctx context.Context, brandID, sessionID string) (int64, error) {
	if _, err := s.Brand(ctx, brandID); err != nil {
		return 0, err
	}
	var total int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		total = 0
		for _, q := range []string{
			"DELETE FROM view_events WHERE session_id = $1 AND product IN (SELECT id FROM products WHERE brand_id = $2)",
			"DELETE FROM purchase_events WHERE session_id = $1 AND brand_id = $2", // lines go by cascade
		} {
			tag, err := tx.Exec(ctx, q, sessionID, brandID)
			if err != nil {
				return err
			}
			total += tag.RowsAffected()
		}
		if total == 0 {
			return nil
		}
		_, err := tx.Exec(ctx, "UPDATE erasure_version SET version = version + 1")
		return err
	})
	return total, err
}

// ErasureVersion returns a number that changes whenever events are erased.
func (s *Store) ErasureVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.pool.QueryRow(ctx, "SELECT version FROM erasure_version").Scan(&v)
	return v, err
}
