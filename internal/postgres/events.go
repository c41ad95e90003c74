package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// EnsureProduct registers a product if it does not exist and returns it.
// Returns ENOTFOUND if the brand does not exist.
func (s *Store) EnsureProduct(ctx context.Context, p *svc.Product) (*svc.Product, error) {
	out := *p
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, "SELECT 1 FROM brands WHERE id = $1", p.BrandID).Scan(&one); errors.Is(err, pgx.ErrNoRows) {
			return svc.Errorf(svc.ENOTFOUND, "brand %q not found", p.BrandID)
		} else if err != nil {
			return err
		}
		// Given attributes that differ are updated, as an event's would be;
		// the WHERE keeps an unchanged product's row (and txid) as it is.
		now := millis(time.Now())
		err := tx.QueryRow(ctx, `INSERT INTO products (brand_id, product_id, sku, title, url, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $6)
			ON CONFLICT (brand_id, product_id) DO UPDATE SET sku = coalesce(excluded.sku, products.sku),
				title = coalesce(excluded.title, products.title), url = coalesce(excluded.url, products.url),
				updated_at = excluded.updated_at, txid = pg_current_xact_id()
			WHERE excluded.sku IS NOT NULL AND excluded.sku IS DISTINCT FROM products.sku
				OR excluded.title IS NOT NULL AND excluded.title IS DISTINCT FROM products.title
				OR excluded.url IS NOT NULL AND excluded.url IS DISTINCT FROM products.url
			RETURNING id`, p.BrandID, p.ProductID, p.SKU, p.Title, p.URL, now).Scan(&out.Ref)
		if errors.Is(err, pgx.ErrNoRows) { // exists, unchanged
			err = tx.QueryRow(ctx, "SELECT id FROM products WHERE brand_id = $1 AND product_id = $2", p.BrandID, p.ProductID).Scan(&out.Ref)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Products calls fn for every product.
func (s *Store) Products(ctx context.Context, fn func(*svc.Product) error) error {
	return products(ctx, s.pool, fn)
}

func products(ctx context.Context, q querier, fn func(*svc.Product) error) error {
	return eachRow(ctx, q, func(rows pgx.Rows) error {
		var p svc.Product
		if err := rows.Scan(&p.Ref, &p.BrandID, &p.ProductID, &p.SKU, &p.Title, &p.URL); err != nil {
			return err
		}
		return fn(&p)
	}, "SELECT id, brand_id, product_id, sku, title, url FROM products ORDER BY id")
}

// Views calls fn for every view at or after since, oldest first.
func (s *Store) Views(ctx context.Context, since time.Time, fn func(svc.ViewRecord) error) error {
	return views(ctx, s.pool, since, fn)
}

func views(ctx context.Context, q querier, since time.Time, fn func(svc.ViewRecord) error) error {
	return eachRow(ctx, q, func(rows pgx.Rows) error {
		var r svc.ViewRecord
		var ts int64
		if err := rows.Scan(&r.Product, &ts, &r.SessionID); err != nil {
			return err
		}
		r.Time = fromMillis(ts)
		return fn(r)
	}, "SELECT product, ts, coalesce(session_id, '') FROM view_events WHERE ts >= $1 ORDER BY ts", millis(since))
}

// PurchaseLines calls fn for each product of every order at or after since,
// oldest first.
func (s *Store) PurchaseLines(ctx context.Context, since time.Time, fn func(svc.PurchaseRecord) error) error {
	return purchaseLineRecords(ctx, s.pool, since, fn)
}

func purchaseLineRecords(ctx context.Context, q querier, since time.Time, fn func(svc.PurchaseRecord) error) error {
	return eachRow(ctx, q, func(rows pgx.Rows) error {
		var r svc.PurchaseRecord
		var ts int64
		if err := rows.Scan(&r.Product, &ts, &r.Units, &r.Currency, &r.UnitPrice); err != nil {
			return err
		}
		r.Time = fromMillis(ts)
		return fn(r)
	}, `SELECT i.product, e.ts, sum(i.quantity)::bigint, coalesce(e.currency, ''),
			CASE WHEN count(i.unit_price) = count(*) THEN sum(i.quantity * i.unit_price) / sum(i.quantity) END
		FROM purchase_events e JOIN purchase_items i ON i.purchase = e.id
		WHERE e.ts >= $1 GROUP BY e.id, i.product ORDER BY e.ts`, millis(since))
}

// DeleteExpired deletes at most limit events older than before, and
// idempotency keys older than svc.IdempotencyTTL before now, in one short
// transaction. Rows another node is deleting are skipped, not waited for.
// It returns how many rows it deleted.
func (s *Store) DeleteExpired(ctx context.Context, before, now time.Time, limit int) (int64, error) {
	var total int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		for _, q := range []struct {
			sql string
			arg int64
		}{
			{"DELETE FROM view_events WHERE id IN (SELECT id FROM view_events WHERE ts < $1 ORDER BY ts LIMIT $2 FOR UPDATE SKIP LOCKED)", millis(before)},
			{"DELETE FROM purchase_events WHERE id IN (SELECT id FROM purchase_events WHERE ts < $1 ORDER BY ts LIMIT $2 FOR UPDATE SKIP LOCKED)", millis(before)},
			{`DELETE FROM idempotency_keys WHERE (brand_id, scope, key) IN (SELECT brand_id, scope, key FROM idempotency_keys
				WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`, millis(now.Add(-svc.IdempotencyTTL))},
		} {
			tag, err := tx.Exec(ctx, q.sql, q.arg, limit)
			if err != nil {
				return err
			}
			total += tag.RowsAffected()
		}
		return nil
	})
	return total, err
}
