package sqlite

import "github.com/svc-project/svc/internal/sqlstore"

// The SQL of the write path, prepared once when the store opens (see
// prepared.go).
const (
	qSavepoint      = "SAVEPOINT write"
	qRollbackTo     = "ROLLBACK TO write"
	qRelease        = "RELEASE write"
	qIdempotencyGet = `SELECT status, event_id, body_hash FROM idempotency_keys
		WHERE brand_id = ? AND scope = ? AND key = ? AND created_at > ?`
	qIdempotencyPut = `INSERT INTO idempotency_keys (brand_id, scope, key, body_hash, created_at, status, event_id)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (brand_id, scope, key) DO UPDATE SET body_hash = excluded.body_hash,
		created_at = excluded.created_at, status = excluded.status, event_id = excluded.event_id`
	qOrderGet       = "SELECT event_id FROM purchase_events WHERE brand_id = ? AND order_id = ? AND keyed = ?"
	qPendingGet     = "SELECT product_id, units FROM pending_cancels WHERE brand_id = ? AND order_id = ? ORDER BY id"
	qPurchaseInsert = `INSERT INTO purchase_events
		(event_id, brand_id, order_id, ts, given_ts, received_at, session_id, currency, total_value, keyed, country, city)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`
	qItemInsert = `INSERT INTO purchase_items
		(purchase, line, product, sku, title, quantity, unit_price) VALUES (?, ?, ?, ?, ?, ?, ?)`
	qCartInsert = `INSERT INTO cart_events
		(event_id, product, ts, given_ts, received_at, session_id, country, locale, keyed, quantity, arm)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qProductGet    = "SELECT id, sku, title, url, gtin, mpn, maker, verified FROM products WHERE brand_id = ? AND product_id = ?"
	qProductInsert = `INSERT INTO products (brand_id, product_id, sku, title, url, gtin, mpn, maker, verified, created_at, updated_at, changed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ` + nextChange + `) RETURNING id`
	qProductsIn = `SELECT id, product_id, sku, title, url, gtin, mpn, maker, verified FROM products
		WHERE brand_id = ? AND product_id IN (SELECT value FROM json_each(?))`
	qProductUpdate = `UPDATE products SET sku = coalesce(?, sku), title = coalesce(?, title),
		url = coalesce(?, url), gtin = coalesce(?, gtin), mpn = coalesce(?, mpn),
		maker = coalesce(?, maker), verified = verified | ?, updated_at = ?, changed = ` + nextChange + ` WHERE id = ?`
	// qProductOf finds the product a name belongs to (svc.NameLookup).
	qProductOf = `SELECT product_id FROM products WHERE brand_id = ?1 AND product_id = ?2
		UNION ALL SELECT product_id FROM product_names WHERE brand_id = ?1 AND name = ?2 LIMIT 1`
	qNamesIn = `SELECT name, product_id FROM product_names
		WHERE brand_id = ? AND name IN (SELECT value FROM json_each(?))`
	qNameInsert   = "INSERT INTO product_names (brand_id, name, product_id, created_at) VALUES (?, ?, ?, ?)"
	qProductTouch = "UPDATE products SET changed = " + nextChange + " WHERE brand_id = ? AND product_id = ?"
	// nextChange numbers a product's write for the change feed (feed.go):
	// one more than any before, which the index on changed finds at once.
	nextChange = sqlstore.NextChange
)

var writeQueries = append([]string{qSavepoint, qRollbackTo, qRelease, qIdempotencyGet, qIdempotencyPut, qOrderGet, qPendingGet, qPurchaseInsert, qItemInsert, qCartInsert, qProductGet, qProductInsert, qProductUpdate, qProductOf, qNameInsert, qProductTouch, qMaxIDs, qDataVersion, qLastViewID, qBlockPut}, rollupQueries...)
