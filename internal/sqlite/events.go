package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlstore"
	"github.com/svc-project/svc/internal/viewblock"
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
	var gen uint64
	err := s.inEventTx(withHours(ctx), func(sqlTx *sql.Tx) error {
		if err := s.othersWrote(ctx, sqlTx); err != nil {
			return err
		}
		gen = s.hours.generation()
		fast = s.prepared(sqlTx)
		fast.memo(&s.products)
		fast.hours, fast.hoursStaged = &s.hours, make(map[rollup.Key]*rollup.Row)
		if err := fast.prefetch(ctx, batch); err != nil {
			return err
		}
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
		return rollup.Apply(ctx, rollupTx{fast}, sqlstore.DeltaOf(batch))
	})
	if err == nil {
		appendCommitted()
		s.products.merge(fast.staged)
		s.hours.merge(gen, fast.hoursStaged)
	} else {
		s.hours.clear() // a failed commit may have happened after all
	}
	if !errors.Is(err, errWithSavepoints) {
		return err
	}
	// The slow path resolves products without the cache and may change
	// them: the cache forgets them all rather than go stale (the path is
	// rare).
	defer s.products.clear()
	return s.inEventTx(ctx, func(sqlTx *sql.Tx) error {
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
		return rollup.Apply(ctx, rollupTx{tx}, sqlstore.DeltaOf(batch))
	})
}

// appendCommitted runs between Append's commit and its merges into the
// caches (a test's hook: another write may take the writer there).
var appendCommitted = func() {}

var errWithSavepoints = errors.New("sqlite: a write failed: run the batch with savepoints")

// othersWrote empties the cache of products when another connection (svc
// import, another process) committed since the writer's last transaction:
// it may have changed the products the cache holds. The writer holds the
// database meanwhile, so nothing changes them until it commits. Called
// with productsMu held.
func (s *Store) othersWrote(ctx context.Context, tx *sql.Tx) error {
	var v int64
	if err := tx.StmtContext(ctx, s.stmts[qDataVersion]).QueryRowContext(ctx).Scan(&v); err != nil {
		return err
	}
	if v != s.writerVersion {
		s.products.clear()
		s.hours.clear()
		s.writerVersion = v
	}
	return nil
}

// appendOne decides a write by the rules of svc.Decide, looking up what
// they ask for in tx, and stores what they accept.
func appendOne(ctx context.Context, tx *preparedTx, w *svc.Write) error {
	tx.refs = tx.refs[:0]
	accept, err := svc.Decide(ctx, w, tx)
	if err != nil {
		return err
	}
	if accept {
		switch {
		case w.View != nil:
			err = insertView(ctx, tx, w.View)
		case w.Cart != nil:
			err = insertCart(ctx, tx, w.Cart)
		default:
			err = insertPurchase(ctx, tx, w.Purchase)
		}
		if err != nil {
			return err
		}
		w.Result.Lines = w.Lines(tx.refs)
	}
	if !w.Remembers() {
		return nil
	}
	k := w.Key()
	_, meta := w.Event()
	// An expired row of the same key may still be there until it is deleted.
	_, err = tx.ExecContext(ctx, qIdempotencyPut,
		k.BrandID, k.Scope, k.Key, w.BodyHash[:], millis(meta.ReceivedAt), w.Result.Status, w.Result.EventID)
	return err
}

func insertView(ctx context.Context, tx *preparedTx, v *svc.ViewEvent) error {
	b := sqlstore.BlockView(v, tx.refs[0])
	if tx.queueView(b) {
		return nil
	}
	return tx.writeBlock(ctx, []viewblock.View{b})
}

func insertCart(ctx context.Context, tx *preparedTx, c *svc.CartEvent) error {
	m := &c.Meta
	_, err := tx.ExecContext(ctx, qCartInsert, m.EventID, int64(tx.refs[0]), millis(m.Time), optMillis(m.GivenTime), millis(m.ReceivedAt),
		optString(c.Context.SessionID), optString(c.Context.Country), optString(c.Context.Locale), m.Keyed, c.Units(), m.Arm)
	return err
}

func insertPurchase(ctx context.Context, tx *preparedTx, e *svc.PurchaseEvent) error {
	m := &e.Meta
	var id int64
	err := tx.QueryRowContext(ctx, qPurchaseInsert,
		m.EventID, e.BrandID, e.Order.OrderID, millis(m.Time), optMillis(m.GivenTime), millis(m.ReceivedAt),
		e.Context.SessionID, e.Order.Currency, e.Order.TotalValue, m.Keyed, e.Context.Country, e.Context.City).Scan(&id)
	if err != nil {
		return err
	}
	for i, it := range e.Order.Items {
		if _, err := tx.ExecContext(ctx, qItemInsert,
			id, i, tx.refs[i], it.SKU, it.Title, *it.Quantity, it.UnitPrice); err != nil {
			return err
		}
	}
	return nil
}

// Answer returns the live answer of an idempotency key (svc.WriteLookup).
func (p *preparedTx) Answer(ctx context.Context, k svc.IdempotencyKey, since time.Time) (svc.Answer, bool, error) {
	var a svc.Answer
	err := p.QueryRowContext(ctx, qIdempotencyGet, k.BrandID, k.Scope, k.Key, millis(since)).Scan(&a.Status, &a.EventID, &a.BodyHash)
	ok, err := found(err)
	return a, ok, err
}

// Order returns the event id of a stored order (svc.WriteLookup).
func (p *preparedTx) Order(ctx context.Context, brandID, orderID string, keyed bool) (string, bool, error) {
	var eventID string
	ok, err := found(p.QueryRowContext(ctx, qOrderGet, brandID, orderID, keyed).Scan(&eventID))
	return eventID, ok, err
}

// PendingCancels returns the units refunds of an order took out before it
// came (svc.PendingLookup).
func (p *preparedTx) PendingCancels(ctx context.Context, brandID, orderID string) ([]svc.CancelItem, error) {
	rows, err := p.QueryContext(ctx, qPendingGet, brandID, orderID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []svc.CancelItem
	for rows.Next() {
		var it svc.CancelItem
		it.Quantity = new(int64)
		if err := rows.Scan(&it.ProductID, it.Quantity); err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// Product returns a product as stored (svc.ProductLookup), from the memo
// when it has it, and notes its ref for the write's lines.
func (p *preparedTx) Product(ctx context.Context, brandID, productID string) (svc.Product, bool, error) {
	key := productKey{brandID, productID}
	r, ok := p.lookup(key)
	if !ok && p.absent[key] {
		return svc.Product{BrandID: brandID, ProductID: productID}, false, nil
	}
	if !ok {
		r = svc.Product{BrandID: brandID, ProductID: productID}
		ok, err := found(p.QueryRowContext(ctx, qProductGet, brandID, productID).Scan(&r.Ref, &r.SKU, &r.Title, &r.URL, &r.GTIN, &r.MPN, &r.Maker, &r.Verified))
		if !ok {
			return r, false, err
		}
		p.remember(key, r)
	}
	p.refs = append(p.refs, r.Ref)
	return r, true, nil
}

// RegisterProduct inserts a product (svc.ProductLookup) and notes its ref.
func (p *preparedTx) RegisterProduct(ctx context.Context, r svc.Product, at time.Time) error {
	err := p.QueryRowContext(ctx, qProductInsert,
		r.BrandID, r.ProductID, r.SKU, r.Title, r.URL, r.GTIN, r.MPN, r.Maker, int64(r.Verified), millis(at), millis(at)).Scan(&r.Ref)
	if err != nil {
		return err
	}
	p.remember(productKey{r.BrandID, r.ProductID}, owned(r))
	p.refs = append(p.refs, r.Ref)
	return nil
}

// UpdateProduct writes the changed attributes of a product
// (svc.ProductLookup).
func (p *preparedTx) UpdateProduct(ctx context.Context, r, set svc.Product, at time.Time) error {
	_, err := p.ExecContext(ctx, qProductUpdate, optString(set.SKU), optString(set.Title), optString(set.URL),
		optString(set.GTIN), optString(set.MPN), optString(set.Maker), int64(set.Verified), millis(at), int64(r.Ref))
	if err == nil {
		p.remember(productKey{r.BrandID, r.ProductID}, owned(r))
	}
	return err
}

// found turns a single row's sql.ErrNoRows into false.
func found(err error) (bool, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
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
		pt := s.prepared(tx)
		if err := svc.EnsureProduct(ctx, pt, out, time.Now()); err != nil {
			return err
		}
		out.Ref = pt.refs[len(pt.refs)-1]
		return nil
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
func (r reads) Products(ctx context.Context, fn func(*svc.Product) error) error {
	names, err := sqlstore.SQLite.ProductNamesByKey(ctx, rowsOf{r.db})
	if err != nil {
		return err
	}
	return scanRanges(ctx, r.db, "SELECT min(id), max(id) FROM products WHERE id >= ?",
		sqlstore.SQLite.ProductsNamedApart()+" WHERE id >= ? AND id < ? ORDER BY id",
		0, nil, func(rows *sql.Rows) (*svc.Product, error) {
			var p svc.Product
			err := scanProduct(rows, &p)
			p.Names = names[sqlstore.ProductKey{BrandID: p.BrandID, ProductID: p.ProductID}]
			return &p, err
		}, fn)
}

// Views calls fn for every view at or after since, oldest first.
func (r reads) Views(ctx context.Context, since time.Time, fn func(svc.ViewRecord) error) error {
	return sqlstore.EachViewInTime(ctx, rowsOf{r.db}, millis(since), 1<<62, viewblock.DecodeCounted, nil, func(v *viewblock.View) error {
		return fn(viewRecord(v))
	})
}

// CountedViews is svc.ViewCounter's: Views as a replay counts them.
func (r reads) CountedViews(ctx context.Context, since time.Time, hash func([]byte) uint64, fn func([]svc.CountedView) error) error {
	return sqlstore.EachCountedView(ctx, rowsOf{r.db}, millis(since), 1<<62, true, hash, fn)
}

// Carts calls fn for every add-to-cart at or after since, oldest first.
func (r reads) Carts(ctx context.Context, since time.Time, fn func(svc.CartRecord) error) error {
	return eachRowOf(ctx, r.db, func(rows *sql.Rows) error {
		var c svc.CartRecord
		var ts int64
		if err := rows.Scan(&c.Product, &ts, &c.SessionID); err != nil {
			return err
		}
		c.Time = fromMillis(ts)
		return fn(c)
	}, "SELECT product, ts, coalesce(session_id, '') FROM cart_events WHERE ts >= ? ORDER BY ts, id", millis(since))
}

// PurchaseLines calls fn for each product of every order at or after since,
// oldest first.
func (r reads) PurchaseLines(ctx context.Context, since time.Time, fn func(svc.PurchaseRecord) error) error {
	records := svc.PurchaseRecords{Emit: func(_ int64, r svc.PurchaseRecord) error { return fn(r) }}
	err := scanRangesInto(ctx, r.db, "SELECT min(ts), max(ts) FROM purchase_events WHERE ts >= ?",
		"SELECT "+lineColumns+" WHERE e.ts >= ? AND e.ts < ? ORDER BY e.ts, e.id, i.line",
		millis(since), nil, scanLine, records.Add)
	if err != nil {
		return err
	}
	return records.Flush()
}

// DeleteExpired deletes at most limit events and audit events older than
// before, and idempotency keys older than svc.IdempotencyTTL before now, in
// one short transaction. It returns how many rows it deleted.
//
// When it deletes the newest row of a table (a table nobody wrote to for
// the whole retention, or an event backdated to its edge), SQLite may give
// the next row that row's id, which servers following the change feed
// would take for one they saw (feed.go): the transaction then bumps the
// erasure version too, and they recount.
func (s *Store) DeleteExpired(ctx context.Context, before, now time.Time, limit int) (int64, error) {
	var total int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var newest, left [nTables]int64
		if err := maxIDs(ctx, tx, s.stmts, &newest); err != nil {
			return err
		}
		n, err := sqlstore.DeleteExpired(ctx, sqlstore.SQLite.Wrap(sqlQ{tx}), s.rollupTx(tx), sqlstore.SQLite, before, now, limit)
		if err != nil {
			return err
		}
		total = n
		if err := maxIDs(ctx, tx, s.stmts, &left); err != nil {
			return err
		}
		if left[tViews] < newest[tViews] || left[tOrders] < newest[tOrders] || left[tCarts] < newest[tCarts] { // order_cancels ids are never reused
			return sqlstore.EraseTx{Tx: sqlstore.SQLite.Wrap(sqlQ{tx})}.BumpErasureVersion(ctx)
		}
		return nil
	})
	return total, err
}
