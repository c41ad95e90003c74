package svc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// OrderSessionStore ties a shop platform's orders to the shoppers'
// sessions when the order's webhook carries none (WooCommerce's), so that
// the holdout experiment and the conversion count them in their session's
// arm (docs/integrations.md, Sessions). The order-received page says in
// which session it was seen, with the order's key as proof; the signed
// webhook says which key is the order's. Neither alone links anything:
// a stranger who knows an order's id but not its key links nothing, and
// one who knows both can at most move that one order to another session.
type OrderSessionStore interface {
	// OrderKey records the key the brand's signed webhook gave for the
	// order. When a page came first with the same key, the brand's keyed
	// order of that id, if stored and without a session, takes the page's
	// session.
	OrderKey(ctx context.Context, brandID, orderID, key string, now time.Time) error
	// LinkOrderSession records that the order's page was seen in the
	// session, with the key. It reports true when the webhook gave that
	// key: the brand's keyed order of that id, if stored and without a
	// session, then takes it (and one stored later takes it when its
	// webhook comes). Otherwise the link waits for the webhook, up to
	// OrderSessionTTL. The first session linked with the right key stays.
	LinkOrderSession(ctx context.Context, brandID, orderID, key, sessionID string, now time.Time) (linked bool, err error)
}

// OrderSessionTTL is how long the stores keep an order's key and a link
// waiting for it: the page and the webhooks of an order come within
// minutes, an order paid later by bank transfer within days.
const OrderSessionTTL = 7 * 24 * time.Hour

// OrderKeyHash is what the stores keep of an order's key: its SHA-256, in
// hex. The key lets whoever holds it see the order's page in the shop, so
// svc keeps nothing that would.
func OrderKeyHash(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

// OrderSessionLink is the body of POST /api/collect/order-session: the
// order-received page's order and key, and its session.
type OrderSessionLink struct {
	BrandID   string
	OrderID   string
	OrderKey  string
	SessionID string
}

// Validate returns every bad field of the link, or nil.
func (l *OrderSessionLink) Validate() []FieldError {
	var fe fieldErrors
	fe.id("BrandID", l.BrandID, true)
	fe.id("OrderID", l.OrderID, true)
	fe.id("OrderKey", l.OrderKey, true)
	fe.id("SessionID", l.SessionID, true)
	return fe
}
