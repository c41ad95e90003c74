package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
	"github.com/svc-project/svc/internal/viewblock"
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
		// The batch's lookup and upsert, with the rules of svc.EnsureProduct.
		b := newBatch(nil)
		q := &pgx.Batch{}
		b.queueProductReads(q, []string{p.BrandID}, []string{p.ProductID})
		if err := tx.SendBatch(ctx, q).Close(); err != nil {
			return err
		}
		if err := svc.EnsureProduct(ctx, b, out, time.Now()); err != nil {
			return err
		}
		q = &pgx.Batch{}
		if b.queueProducts(q); q.Len() > 0 {
			if err := tx.SendBatch(ctx, q).Close(); err != nil {
				return err
			}
		}
		out.Ref = b.cur.products[0].Ref
		return nil
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
	names, err := sqlstore.PostgreSQL.ProductNamesByKey(ctx, sqlstore.PostgreSQL.Wrap(pgQ{q}))
	if err != nil {
		return err
	}
	return eachRow(ctx, q, func(rows pgx.Rows) error {
		var p svc.Product
		if err := sqlstore.ScanNamedProduct(rows, &p); err != nil {
			return err
		}
		p.Names = names[sqlstore.ProductKey{BrandID: p.BrandID, ProductID: p.ProductID}]
		return fn(&p)
	}, sqlstore.PostgreSQL.ProductsNamedApart()+" ORDER BY id")
}

// Views calls fn for every view at or after since, oldest first.
func (s *Store) Views(ctx context.Context, since time.Time, fn func(svc.ViewRecord) error) error {
	return views(ctx, s.pool, since, fn)
}

func views(ctx context.Context, q querier, since time.Time, fn func(svc.ViewRecord) error) error {
	return sqlstore.EachViewInTime(ctx, sqlstore.PostgreSQL.Wrap(pgQ{q}), millis(since), 1<<62, viewblock.DecodeCounted, nil, func(v *viewblock.View) error {
		return fn(svc.ViewRecord{Product: svc.ProductRef(v.Product), Time: fromMillis(v.TS), SessionID: v.Session})
	})
}

// CountedViews is svc.ViewCounter's: Views as a replay counts them.
func (s *Store) CountedViews(ctx context.Context, since time.Time, hash func([]byte) uint64, fn func([]svc.CountedView) error) error {
	return countedViews(ctx, s.pool, since, hash, fn)
}

func countedViews(ctx context.Context, q querier, since time.Time, hash func([]byte) uint64, fn func([]svc.CountedView) error) error {
	return sqlstore.EachCountedView(ctx, sqlstore.PostgreSQL.Wrap(pgQ{q}), millis(since), 1<<62, false, hash, fn)
}

// Carts calls fn for every add-to-cart at or after since, oldest first.
func (s *Store) Carts(ctx context.Context, since time.Time, fn func(svc.CartRecord) error) error {
	return carts(ctx, s.pool, since, fn)
}

func carts(ctx context.Context, q querier, since time.Time, fn func(svc.CartRecord) error) error {
	return eachRow(ctx, q, func(rows pgx.Rows) error {
		var r svc.CartRecord
		var ts int64
		if err := rows.Scan(&r.Product, &ts, &r.SessionID); err != nil {
			return err
		}
		r.Time = fromMillis(ts)
		return fn(r)
	}, "SELECT product, ts, coalesce(session_id, '') FROM cart_events WHERE ts >= $1 ORDER BY ts, id", millis(since))
}

// PurchaseLines calls fn for each product of every order at or after since,
// oldest first.
func (s *Store) PurchaseLines(ctx context.Context, since time.Time, fn func(svc.PurchaseRecord) error) error {
	return purchaseLineRecords(ctx, s.pool, since, fn)
}

func purchaseLineRecords(ctx context.Context, q querier, since time.Time, fn func(svc.PurchaseRecord) error) error {
	records := svc.PurchaseRecords{Emit: func(_ int64, r svc.PurchaseRecord) error { return fn(r) }}
	err := eachRow(ctx, q, func(rows pgx.Rows) error {
		var l svc.OrderLine
		var ts int64
		var price pgtype.Float8
		if err := rows.Scan(&l.Order, &l.Product, &ts, &l.Quantity, &l.Currency, &price); err != nil {
			return err
		}
		l.Time, l.UnitPrice, l.Priced = fromMillis(ts), price.Float64, price.Valid
		return records.Add(l)
	}, `SELECT e.id, i.product, e.ts, i.quantity, coalesce(e.currency, ''), i.unit_price
		FROM purchase_events e JOIN purchase_items i ON i.purchase = e.id AND i.quantity > 0
		WHERE e.ts >= $1 ORDER BY e.ts, e.id, i.line`, millis(since))
	if err != nil {
		return err
	}
	return records.Flush()
}

// DeleteExpired deletes at most limit events and audit events older than
// before, and idempotency keys older than svc.IdempotencyTTL before now, in one short
// transaction. Rows another node is deleting are skipped, not waited for.
// It returns how many rows it deleted.
func (s *Store) DeleteExpired(ctx context.Context, before, now time.Time, limit int) (int64, error) {
	var total int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		n, err := sqlstore.DeleteExpired(ctx, sqlstore.PostgreSQL.Wrap(pgQ{tx}), rollupTx{tx: tx}, sqlstore.PostgreSQL, before, now, limit)
		total = n
		return err
	})
	return total, err
}
