package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/svc-project/svc/internal/rollup"
	"time"

	"github.com/svc-project/svc"
)

var _ svc.OrderSessionStore = (*Store)(nil)

// OrderKey records the key a signed webhook gave for an order
// (svc.OrderSessionStore).
func (s *Store) OrderKey(ctx context.Context, brandID, orderID, key string, now time.Time) error {
	_, err := s.orderSession(ctx, brandID, orderID, key, "", now)
	return err
}

// LinkOrderSession records an order-received page's session
// (svc.OrderSessionStore).
func (s *Store) LinkOrderSession(ctx context.Context, brandID, orderID, key, sessionID string, now time.Time) (bool, error) {
	return s.orderSession(ctx, brandID, orderID, key, sessionID, now)
}

// orderSession records the webhook's key (sessionID "") or the page's
// session, in the one writer's transaction, and gives the order the
// session once both are there. It reports whether they are.
func (s *Store) orderSession(ctx context.Context, brandID, orderID, key, sessionID string, now time.Time) (linked bool, err error) {
	fromWebhook := sessionID == ""
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "DELETE FROM order_sessions WHERE received_at < ?", millis(now.Add(-svc.OrderSessionTTL))); err != nil {
			return err
		}
		var session sql.NullString
		err := tx.QueryRowContext(ctx, `INSERT INTO order_sessions (brand_id, order_id, key_hash, session_id, from_webhook, received_at)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6)
			ON CONFLICT (brand_id, order_id, key_hash) DO UPDATE SET
				session_id = coalesce(order_sessions.session_id, excluded.session_id),
				from_webhook = order_sessions.from_webhook OR excluded.from_webhook
			RETURNING session_id, from_webhook`,
			brandID, orderID, svc.OrderKeyHash(key), optString(nonEmpty(sessionID)), fromWebhook, millis(now)).Scan(&session, &linked)
		if err != nil || !linked || !session.Valid {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE purchase_events SET session_id = ? WHERE brand_id = ? AND order_id = ? AND keyed = 1 AND session_id IS NULL",
			session.String, brandID, orderID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, fmt.Sprintf(rollup.SessionOrdersOf, "?1", "?2", "?3"), brandID, session.String, time.Now().UnixMilli())
		return err
	})
	return linked, err
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
