package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
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
		return sqlstore.CancelOrder(ctx, sqlstore.PostgreSQL.Wrap(pgQ{tx}), s.cancelTx(tx), rollupTx{tx: tx}, c)
	}))
}

// cancelTx persists a cancellation (svc.CancelTx): its statements in
// internal/sqlstore, the pending units' here.
type cancelTx struct {
	sqlstore.CancelTx
	tx pgx.Tx
}

func (s *Store) cancelTx(tx pgx.Tx) cancelTx { return cancelTx{s.Store.CancelTx(pgQ{tx}), tx} }

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
