package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/svc-project/svc"
)

// Append writes a batch of events in one transaction, durable on return.
// A write that fails alone is rolled back and reported in its Result, and
// the others of the batch stand.
//
// Batches almost never hold such a write, so a batch first runs without
// savepoints, which cost two statements a write in the group commit, the
// one part of collecting that cannot use both cores. If a write fails, that
// attempt is rolled back whole and the batch runs again with a savepoint
// around each write.
func (s *Store) Append(ctx context.Context, batch []*svc.Write) error {
	s.productsMu.Lock() // the transaction and the merge of what it resolved are one step
	defer s.productsMu.Unlock()
	var fast *preparedTx
	err := s.inTx(ctx, func(sqlTx *sql.Tx) error {
		fast = s.prepared(sqlTx)
		fast.memo(&s.products)
		fast.deferViews(len(batch))
		for _, w := range batch {
			w.Result = svc.WriteResult{}
			if err := appendOne(ctx, fast, w); err != nil {
				return errWithSavepoints
			}
		}
		if err := fast.flushViews(ctx); err != nil {
			return errWithSavepoints
		}
		return nil
	})
	if err == nil {
		s.products.merge(fast.staged)
	}
	if !errors.Is(err, errWithSavepoints) {
		return err
	}
	// The slow path resolves products without the cache and may change
	// them: the cache forgets them all rather than go stale (the path is
	// rare).
	defer s.products.clear()
	return s.inTx(ctx, func(sqlTx *sql.Tx) error {
		tx := s.prepared(sqlTx)
		for _, w := range batch {
			w.Result = svc.WriteResult{}
			if _, err := tx.ExecContext(ctx, qSavepoint); err != nil {
				return err
			}
			if err := appendOne(ctx, tx, w); err != nil {
				if _, rerr := tx.ExecContext(ctx, qRollbackTo); rerr != nil {
					return errors.Join(err, rerr)
				}
				w.Result = svc.WriteResult{Err: svc.Internal(err)}
			}
			if _, err := tx.ExecContext(ctx, qRelease); err != nil {
				return err
			}
		}
		return nil
	})
}

var errWithSavepoints = errors.New("sqlite: a write failed: run the batch with savepoints")

// idempotencyScope keeps one endpoint's or one kind of sender's keys from
// answering for another: an anonymous view cannot claim a keyed purchase's key.
func idempotencyScope(w *svc.Write, keyed bool) string {
	scope := "purchase"
	if w.View != nil {
		scope = "view"
	}
	if keyed {
		return scope + ":keyed"
	}
	return scope + ":anonymous"
}

func appendOne(ctx context.Context, tx querier, w *svc.Write) error {
	var brandID string
	var meta *svc.EventMeta
	if w.View != nil {
		brandID, meta = w.View.BrandID, &w.View.Meta
	} else {
		brandID, meta = w.Purchase.BrandID, &w.Purchase.Meta
	}
	scope := idempotencyScope(w, meta.Keyed)
	if w.IdempotencyKey != "" {
		var status, eventID string
		var hash []byte
		err := tx.QueryRowContext(ctx, qIdempotencyGet,
			brandID, scope, w.IdempotencyKey, millis(meta.ReceivedAt.Add(-svc.IdempotencyTTL))).Scan(&status, &eventID, &hash)
		switch {
		case err == nil && !bytes.Equal(hash, w.BodyHash[:]):
			w.Result.Err = svc.Errorf(svc.ECONFLICT, "Idempotency-Key %q was used with another body in the last %s", w.IdempotencyKey, svc.IdempotencyTTL)
			return nil
		case err == nil:
			w.Result = svc.WriteResult{Status: status, EventID: eventID, Replay: true}
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	var err error
	if w.View != nil {
		err = appendView(ctx, tx, w)
	} else {
		err = appendPurchase(ctx, tx, w)
	}
	if err != nil || w.Result.Err != nil || w.IdempotencyKey == "" {
		return err
	}
	// An expired row of the same key may still be there until it is deleted.
	_, err = tx.ExecContext(ctx, qIdempotencyPut,
		brandID, scope, w.IdempotencyKey, w.BodyHash[:], millis(meta.ReceivedAt), w.Result.Status, w.Result.EventID)
	return err
}

func appendView(ctx context.Context, tx querier, w *svc.Write) error {
	v := w.View
	p := &svc.Product{BrandID: v.BrandID, ProductID: v.Product.ProductID, SKU: v.Product.SKU, Title: v.Product.Title, URL: v.Product.URL}
	ok, err := resolveProduct(ctx, tx, p, w.MayRegister, v.Meta.ReceivedAt)
	if err != nil || !ok {
		w.Result.Err = notFound(p)
		return err
	}
	m := &v.Meta
	// Plain values: database/sql converts named types and pointers by
	// reflection.
	args := [viewColumns]any{m.EventID, int64(p.Ref), millis(m.Time), optMillis(m.GivenTime), millis(m.ReceivedAt),
		optString(v.Context.SessionID), optString(v.Context.Country), optString(v.Context.Locale), m.Keyed}
	if q, ok := tx.(viewQueue); !ok || !q.queueView(args[:]) {
		if _, err := tx.ExecContext(ctx, qViewInsert, args[:]...); err != nil {
			return err
		}
	}
	w.Result.Status, w.Result.EventID = svc.StatusAccepted, m.EventID
	w.Result.Lines = []svc.Line{{Product: p.Ref, ProductID: p.ProductID, Units: 1}}
	return nil
}

func appendPurchase(ctx context.Context, tx querier, w *svc.Write) error {
	e, m := w.Purchase, &w.Purchase.Meta
	var first string
	err := tx.QueryRowContext(ctx, qOrderGet,
		e.BrandID, e.Order.OrderID).Scan(&first)
	switch {
	case err == nil:
		w.Result.Status, w.Result.EventID = svc.StatusDuplicate, first
		return nil
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	// Resolve every line before writing the order. Without MayRegister
	// resolving writes nothing, so an order refused for one unknown product
	// leaves no trace.
	refs := make([]svc.ProductRef, len(e.Order.Items))
	for i, it := range e.Order.Items {
		p := &svc.Product{BrandID: e.BrandID, ProductID: it.ProductID, SKU: it.SKU, Title: it.Title}
		ok, err := resolveProduct(ctx, tx, p, w.MayRegister, m.ReceivedAt)
		if err != nil || !ok {
			w.Result.Err = notFound(p)
			return err
		}
		refs[i] = p.Ref
	}
	var id int64
	err = tx.QueryRowContext(ctx, qPurchaseInsert,
		m.EventID, e.BrandID, e.Order.OrderID, millis(m.Time), optMillis(m.GivenTime), millis(m.ReceivedAt),
		e.Context.SessionID, e.Order.Currency, e.Order.TotalValue, m.Keyed).Scan(&id)
	if err != nil {
		return err
	}
	for i, it := range e.Order.Items {
		if _, err := tx.ExecContext(ctx, qItemInsert,
			id, i, refs[i], it.SKU, it.Title, *it.Quantity, it.UnitPrice); err != nil {
			return err
		}
	}
	w.Result.Status, w.Result.EventID = svc.StatusAccepted, m.EventID
	w.Result.Lines = svc.LinesOf(e, refs)
	return nil
}

// resolveProduct finds p by brand and product id and sets p.Ref. With
// register set, a product that does not exist is inserted, and attributes
// that are given and differ from the stored ones are updated; without it,
// nothing is written, and a missing product is reported as false.
func resolveProduct(ctx context.Context, q querier, p *svc.Product, register bool, now time.Time) (bool, error) {
	memo, _ := q.(productMemo)
	key := productKey{p.BrandID, p.ProductID}
	var row productRow
	found := false
	if memo != nil {
		row, found = memo.lookup(key)
	}
	if !found {
		err := q.QueryRowContext(ctx, qProductGet,
			p.BrandID, p.ProductID).Scan(&row.ref, &row.sku, &row.title, &row.url)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if !register {
				return false, nil
			}
			err = q.QueryRowContext(ctx, qProductInsert,
				p.BrandID, p.ProductID, p.SKU, p.Title, p.URL, millis(now), millis(now)).Scan(&p.Ref)
			if err == nil && memo != nil {
				memo.remember(key, productRow{p.Ref, given(p.SKU, row.sku), given(p.Title, row.title), given(p.URL, row.url)})
			}
			return err == nil, err
		case err != nil:
			return false, err
		}
	}
	p.Ref = row.ref
	if register && (changed(p.SKU, row.sku) || changed(p.Title, row.title) || changed(p.URL, row.url)) {
		if _, err := q.ExecContext(ctx, qProductUpdate, optString(p.SKU), optString(p.Title), optString(p.URL), millis(now), int64(p.Ref)); err != nil {
			return false, err
		}
		row = productRow{row.ref, given(p.SKU, row.sku), given(p.Title, row.title), given(p.URL, row.url)}
	} else if found {
		return true, nil // remembered as it is
	}
	if memo != nil {
		memo.remember(key, row)
	}
	return true, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func changed(given *string, stored sql.NullString) bool {
	return given != nil && (!stored.Valid || stored.String != *given)
}

func notFound(p *svc.Product) error {
	return svc.Errorf(svc.ENOTFOUND, "product %q of brand %q not found, and the brand's catalog is closed to anonymous events", p.ProductID, p.BrandID)
}

func optString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func optMillis(t *time.Time) any {
	if t == nil {
		return nil
	}
	return millis(*t)
}

// EnsureProduct registers a product if it does not exist and returns it.
// Returns ENOTFOUND if the brand does not exist.
func (s *Store) EnsureProduct(ctx context.Context, p *svc.Product) (*svc.Product, error) {
	out := *p
	s.productsMu.Lock()
	defer s.productsMu.Unlock()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, "SELECT 1 FROM brands WHERE id = ?", p.BrandID).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return svc.Errorf(svc.ENOTFOUND, "brand %q not found", p.BrandID)
		} else if err != nil {
			return err
		}
		_, err := resolveProduct(ctx, tx, &out, true, time.Now())
		return err
	})
	// Written outside the writer's memo: what it remembers may be stale.
	s.products.forget(productKey{p.BrandID, p.ProductID})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Products calls fn for every product, in id order. The rows are decoded
// on several connections while fn runs: at start, fn (the catalog) and the
// decoding are the two halves of loading a million products.
func (s *Store) Products(ctx context.Context, fn func(*svc.Product) error) error {
	return scanRanges(ctx, s.r, "SELECT min(id), max(id) FROM products WHERE id >= ?",
		"SELECT id, brand_id, product_id, sku, title, url FROM products WHERE id >= ? AND id < ? ORDER BY id",
		0, nil, func(rows *sql.Rows) (*svc.Product, error) {
			var p svc.Product
			err := rows.Scan(&p.Ref, &p.BrandID, &p.ProductID, &p.SKU, &p.Title, &p.URL)
			return &p, err
		}, fn)
}

// Views calls fn for every view at or after since, oldest first.
func (s *Store) Views(ctx context.Context, since time.Time, fn func(svc.ViewRecord) error) error {
	return scanRanges(ctx, s.r, "SELECT min(ts), max(ts) FROM view_events WHERE ts >= ?",
		"SELECT product, ts, coalesce(session_id, '') FROM view_events WHERE ts >= ? AND ts < ? ORDER BY ts",
		millis(since), nil, func(rows *sql.Rows) (svc.ViewRecord, error) {
			var r svc.ViewRecord
			var ts int64
			err := rows.Scan(&r.Product, &ts, &r.SessionID)
			r.Time = fromMillis(ts)
			return r, err
		}, fn)
}

// PurchaseLines calls fn for each product of every order at or after since,
// oldest first.
func (s *Store) PurchaseLines(ctx context.Context, since time.Time, fn func(svc.PurchaseRecord) error) error {
	sums := lineSums{fn: func(_ int64, r svc.PurchaseRecord) error { return fn(r) }}
	err := scanRanges(ctx, s.r, "SELECT min(ts), max(ts) FROM purchase_events WHERE ts >= ?",
		"SELECT "+lineColumns+" WHERE e.ts >= ? AND e.ts < ? ORDER BY e.ts, e.id, i.line",
		millis(since), nil, scanLine, sums.add)
	if err != nil {
		return err
	}
	return sums.flush()
}

// DeleteExpired deletes at most limit events older than before, and
// idempotency keys older than svc.IdempotencyTTL before now, in one short
// transaction. It returns how many rows it deleted.
func (s *Store) DeleteExpired(ctx context.Context, before, now time.Time, limit int) (int64, error) {
	var total int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, q := range []struct {
			sql string
			arg int64
		}{
			{"DELETE FROM view_events WHERE id IN (SELECT id FROM view_events WHERE ts < ? ORDER BY ts LIMIT ?)", millis(before)},
			{"DELETE FROM purchase_events WHERE id IN (SELECT id FROM purchase_events WHERE ts < ? ORDER BY ts LIMIT ?)", millis(before)},
			{"DELETE FROM idempotency_keys WHERE (brand_id, key) IN (SELECT brand_id, key FROM idempotency_keys WHERE created_at < ? LIMIT ?)", millis(now.Add(-svc.IdempotencyTTL))},
		} {
			res, err := tx.ExecContext(ctx, q.sql, q.arg, limit)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			total += n
		}
		return nil
	})
	return total, err
}
