package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/svc-project/svc"
)

var _ svc.OrderSessionStore = (*Store)(nil)

// OrderKey records the key a signed webhook gave for an order
// (svc.OrderSessionStore).
func (s *Store) OrderKey(ctx context.Context, brandID, orderID, key string, now time.Time) error {
	_, err := s.orderSession(ctx, brandID, orderID, key, nil, now)
	return err
}

// LinkOrderSession records an order-received page's session
// (svc.OrderSessionStore).
func (s *Store) LinkOrderSession(ctx context.Context, brandID, orderID, key, sessionID string, now time.Time) (bool, error) {
	return s.orderSession(ctx, brandID, orderID, key, &sessionID, now)
}

// orderSession records the webhook's key (sessionID nil) or the page's
// session, and gives the order the session once both are there. It
// reports whether they are. The upsert locks the row, so a page and a
// webhook of one order at once see each other: the second to write finds
// what the first wrote, and the order it updates was committed before its
// webhook was answered.
func (s *Store) orderSession(ctx context.Context, brandID, orderID, key string, sessionID *string, now time.Time) (linked bool, err error) {
	err = s.inTx(ctx, func(tx Querier) error {
		if _, err := tx.Exec(ctx, "DELETE FROM order_sessions WHERE received_at < ?", Millis(now.Add(-svc.OrderSessionTTL))); err != nil {
			return err
		}
		var session sql.NullString
		err := tx.QueryRow(ctx, `INSERT INTO order_sessions AS o (brand_id, order_id, key_hash, session_id, from_webhook, received_at)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (brand_id, order_id, key_hash) DO UPDATE SET
				session_id = coalesce(o.session_id, excluded.session_id),
				from_webhook = o.from_webhook OR excluded.from_webhook
			RETURNING session_id, from_webhook`,
			brandID, orderID, svc.OrderKeyHash(key), sessionID, sessionID == nil, Millis(now)).Scan(&session, &linked)
		if err != nil || !linked || !session.Valid {
			return err
		}
		_, err = tx.Exec(ctx, "UPDATE purchase_events SET session_id = ? WHERE brand_id = ? AND order_id = ? AND keyed = ? AND session_id IS NULL",
			session.String, brandID, orderID, true)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, sessionOrdersOf, brandID, session.String)
		return err
	})
	return linked, err
}
