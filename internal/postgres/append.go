package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlstore"
	"github.com/svc-project/svc/internal/viewblock"
)

// Append writes a batch of events in one transaction, durable on return.
// The batch goes in a handful of set-based statements whatever its size. If
// one of them fails, the batch is redone write by write under savepoints
// (subtransactions, too costly to use on every write), so that a bad write
// fails alone and the others of the batch stand.
func (s *Store) Append(ctx context.Context, batch []*svc.Write) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	err := s.appendPipelined(ctx, batch)
	for range 3 { // a refund raced the batch's order, or a merge its product (rare): decide again
		if !errors.Is(err, errPendingRaced) && !errors.Is(err, errProductRaced) {
			break
		}
		err = s.appendPipelined(ctx, batch)
	}
	var body bodyError
	if err == nil || !errors.As(err, &body) || !isStatementError(err) || ctx.Err() != nil {
		return unavailable(err)
	}
	err = s.appendTx(ctx, func(tx pgx.Tx, xid *int64) error {
		if xid != nil {
			if err := tx.QueryRow(ctx, "SELECT pg_current_xact_id()::text::bigint").Scan(xid); err != nil {
				return err
			}
		}
		for _, w := range batch {
			err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error { return appendBatch(ctx, sp, []*svc.Write{w}, nil) })
			if err != nil {
				if !isStatementError(err) {
					return err
				}
				w.Result = svc.WriteResult{Err: svc.Internal(err)}
			}
		}
		return nil
	})
	return unavailable(err)
}

// writeTimeout bounds a batch: past it the database is taken for
// unreachable, rather than letting every request wait on a lost network.
const writeTimeout = 10 * time.Second

// unavailable marks an error of the connection, not of a statement, as the
// store being unreachable (503): the client should retry, with its
// Idempotency-Key, as the outcome of a lost commit is unknown.
func unavailable(err error) error {
	var known *svc.Error
	if err == nil || isStatementError(err) || errors.As(err, &known) {
		return err
	}
	return &svc.Error{Code: svc.EUNAVAILABLE, Message: "the database does not answer; retry with the same Idempotency-Key", Err: err}
}

// bodyError is an error before the commit: nothing was stored, and the
// batch may be tried again. After an error of the commit itself, nobody
// knows whether it was stored, so it is not.
type bodyError struct{ error }

func (e bodyError) Unwrap() error { return e.error }

// appendTx runs fn in a transaction, which fn learns the id of when the
// change feed needs it (xid not nil): the feed skips this Store's own
// events, already counted by the node.
func (s *Store) appendTx(ctx context.Context, fn func(tx pgx.Tx, xid *int64) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) // a no-op after the commit
	xid := s.ownXID()
	if err := fn(tx, xid); err != nil {
		return bodyError{err}
	}
	return s.commitOwn(xid, func() error { return tx.Commit(ctx) })
}

// ownXID returns where a transaction notes its id, when the change feed
// needs it to skip this Store's own events; nil otherwise.
func (s *Store) ownXID() *int64 {
	if s.own.active() {
		return new(int64)
	}
	return nil
}

// commitOwn runs commit, with the transaction xid names (if any) known to
// the feed as this Store's own meanwhile.
func (s *Store) commitOwn(xid *int64, commit func() error) error {
	done := func(bool) {}
	if xid != nil {
		done = s.own.begin(*xid)
	}
	err := commit()
	done(err == nil)
	return err
}

// appendPipelined appends the batch in a pipeTx, as appendTx would in a
// pgx.Tx: the batch's transaction in three round trips, not five.
func (s *Store) appendPipelined(ctx context.Context, batch []*svc.Write) error {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	tx := &pipeTx{conn: c.Conn()}
	defer tx.rollback(ctx) // a no-op after the commit
	xid := s.ownXID()
	if err := appendBatch(ctx, tx, batch, xid); err != nil {
		return bodyError{err}
	}
	return s.commitOwn(xid, func() error { return tx.commit(ctx) })
}

type productKey struct{ brand, product string }
type orderKey struct {
	brand, order string
	keyed        bool // keyed and anonymous orders are apart (svc.Decide)
}

// batch is what one Append works out before it writes. svc.Decide decides
// the writes in their order, as if they were stored one after the other,
// with the batch as its lookup: the keys, products and orders read at
// once, and what the writes decided before did to them. The rows then go
// in a few statements.
type batch struct {
	writes []*svc.Write
	info   []writeInfo
	cur    *writeInfo // of the write being decided

	keys     map[svc.IdempotencyKey]*keyState
	keyOrder []svc.IdempotencyKey
	products map[productKey]*productState
	orders   map[orderKey]string     // stored orders: their event ids
	inBatch  map[orderKey]*svc.Write // orders the batch accepts
	// names are the brands' names the batch reads (svc.NameLookup): the
	// products they belong to; newNames are those the batch registers.
	names    map[productKey]string
	newNames []svc.Name
	namedAt  []int64
	// pending are the units refunds of the batch's orders recorded before
	// they came (svc.PendingLookup), by brand and order id.
	pending map[productKey][]svc.CancelItem
	// viewIDs are ids for the batch's views, one each, taken from the
	// sequence with the look-up: those of views not stored are never
	// given (a sequence has gaps anyway).
	viewIDs []int64
	block   []byte
}

type writeInfo struct {
	key      *keyState
	products []*productState // of each line, once accepted
	sameAs   *svc.Write      // a replay or duplicate of an earlier write of the batch
	replay   bool            // sameAs is a replay, not a duplicate order
	purchase int64           // the inserted order's row
}

type keyState struct {
	claimed bool        // this batch holds the key's row
	stored  *svc.Answer // the live row of an earlier request, when not claimed
	first   *svc.Write  // the batch's first write whose answer the key keeps
}

type productState struct {
	svc.Product // as stored, with the batch's changes; Ref 0 until inserted
	// The attributes that changed the product: written with coalesce, so
	// that a node updating the same product meanwhile loses only those.
	set   svc.Product
	write bool // registered or changed: to upsert
	at    int64
}

func newBatch(writes []*svc.Write) *batch {
	return &batch{writes: writes, info: make([]writeInfo, len(writes)), cur: &writeInfo{}, keys: map[svc.IdempotencyKey]*keyState{},
		products: map[productKey]*productState{}, orders: map[orderKey]string{}, inBatch: map[orderKey]*svc.Write{},
		pending: map[productKey][]svc.CancelItem{}, names: map[productKey]string{}}
}

func appendBatch(ctx context.Context, tx pgTx, writes []*svc.Write, xid *int64) error {
	b := newBatch(writes)
	if err := b.lookUp(ctx, tx, xid); err != nil {
		return err
	}
	if err := b.decide(ctx); err != nil {
		return err
	}
	q := &pgx.Batch{}
	b.queueProducts(q)
	inserted := b.queueOrders(q)
	if q.Len() > 0 {
		if err := tx.SendBatch(ctx, q).Close(); err != nil {
			return err
		}
	}
	if err := b.settleOrders(ctx, tx, inserted); err != nil {
		return err
	}
	if err := b.checkPending(ctx, tx); err != nil {
		return err
	}
	b.finish()
	// The events' inserts and the rollups' writes wait for the end: in a
	// pipeTx, for its COMMIT. The rollups read nothing: the viewers wait
	// for a fold (FoldViewers).
	rt := appendRollupTx{rollupTx{tx: tx, queued: &pgx.Batch{}}}
	if err := b.queueRest(rt.queued); err != nil {
		return err
	}
	if err := rollup.Apply(ctx, rt, sqlstore.DeltaOf(writes)); err != nil {
		return err
	}
	if p, ok := tx.(*pipeTx); ok {
		p.commitWith(rt.take())
		return nil
	}
	return rt.flush(ctx)
}

// lookUp claims the batch's idempotency keys and reads the keys, products
// and orders it names, in one round trip. A key is claimed by inserting its
// row (or taking over an expired one): a node sending the same key at the
// same time waits on the row and then finds it taken.
func (b *batch) lookUp(ctx context.Context, tx pgTx, xid *int64) error {
	var kb, ks, kk []string
	var kh [][]byte
	var kc []int64
	var pb, pp, ob, oo []string
	views := 0
	for i, w := range b.writes {
		w.Result = svc.WriteResult{}
		brand, meta := w.Event()
		switch {
		case w.View != nil:
			views++
			pb, pp = append(pb, brand), append(pp, w.View.Product.ProductID)
			for _, a := range w.View.Product.Aliases {
				pb, pp = append(pb, brand), append(pp, a)
			}
		case w.Cart != nil:
			pb, pp = append(pb, brand), append(pp, w.Cart.Product.ProductID)
			for _, a := range w.Cart.Product.Aliases {
				pb, pp = append(pb, brand), append(pp, a)
			}
		default:
			ob, oo = append(ob, brand), append(oo, w.Purchase.Order.OrderID)
			for _, it := range w.Purchase.Order.Items {
				pb, pp = append(pb, brand), append(pp, it.ProductID)
				for _, a := range it.Aliases {
					pb, pp = append(pb, brand), append(pp, a)
				}
			}
		}
		if w.IdempotencyKey == "" {
			continue
		}
		k := w.Key()
		if b.keys[k] == nil {
			b.keys[k] = &keyState{}
			b.keyOrder = append(b.keyOrder, k)
			kb, ks, kk = append(kb, k.BrandID), append(ks, k.Scope), append(kk, k.Key)
			kh, kc = append(kh, w.BodyHash[:]), append(kc, millis(meta.ReceivedAt))
		}
		b.info[i].key = b.keys[k]
	}
	q := &pgx.Batch{}
	if xid != nil {
		q.Queue("SELECT pg_current_xact_id()::text::bigint").QueryRow(func(row pgx.Row) error { return row.Scan(xid) })
	}
	if len(kk) > 0 {
		q.Queue(`INSERT INTO idempotency_keys AS k (brand_id, scope, key, body_hash, created_at, status, event_id)
			SELECT b, s, k, h, c, '', '' FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::bigint[]) AS u(b, s, k, h, c)
			ORDER BY b, s, k
			ON CONFLICT (brand_id, scope, key) DO UPDATE SET body_hash = excluded.body_hash, created_at = excluded.created_at,
				status = '', event_id = ''
			WHERE k.created_at <= excluded.created_at - $6
			RETURNING brand_id, scope, key`, kb, ks, kk, kh, kc, svc.IdempotencyTTL.Milliseconds()).Query(func(rows pgx.Rows) error {
			return scanAll(rows, func() error {
				var k svc.IdempotencyKey
				if err := rows.Scan(&k.BrandID, &k.Scope, &k.Key); err != nil {
					return err
				}
				b.keys[k].claimed = true
				return nil
			})
		})
		q.Queue(`SELECT brand_id, scope, key, status, event_id, body_hash FROM idempotency_keys
			WHERE (brand_id, scope, key) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`, kb, ks, kk).Query(func(rows pgx.Rows) error {
			return scanAll(rows, func() error {
				var k svc.IdempotencyKey
				var a svc.Answer
				if err := rows.Scan(&k.BrandID, &k.Scope, &k.Key, &a.Status, &a.EventID, &a.BodyHash); err != nil {
					return err
				}
				b.keys[k].stored = &a
				return nil
			})
		})
	}
	if views > 0 {
		// Views are stored as one block (queueRest), each with its own id.
		q.Queue("SELECT nextval('view_events_id_seq') FROM generate_series(1, $1)", views).Query(func(rows pgx.Rows) error {
			return scanAll(rows, func() error {
				var id int64
				err := rows.Scan(&id)
				b.viewIDs = append(b.viewIDs, id)
				return err
			})
		})
	}
	b.queueProductReads(q, pb, pp)
	if len(oo) > 0 {
		q.Queue(`SELECT brand_id, order_id, product_id, units FROM pending_cancels
			WHERE (brand_id, order_id) IN (SELECT * FROM unnest($1::text[], $2::text[])) ORDER BY id`, ob, oo).Query(func(rows pgx.Rows) error {
			return scanAll(rows, func() error {
				var k productKey
				it := svc.CancelItem{Quantity: new(int64)}
				if err := rows.Scan(&k.brand, &k.product, &it.ProductID, it.Quantity); err != nil {
					return err
				}
				b.pending[k] = append(b.pending[k], it)
				return nil
			})
		})
		q.Queue(`SELECT brand_id, order_id, keyed, event_id FROM purchase_events
			WHERE (brand_id, order_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, ob, oo).Query(func(rows pgx.Rows) error {
			return scanAll(rows, func() error {
				var k orderKey
				var eventID string
				if err := rows.Scan(&k.brand, &k.order, &k.keyed, &eventID); err != nil {
					return err
				}
				b.orders[k] = eventID
				return nil
			})
		})
	}
	if q.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, q).Close()
}

// queueProductReads reads the products of the brands and ids given, the
// names among the ids, and the products those names belong to.
func (b *batch) queueProductReads(q *pgx.Batch, brands, ids []string) {
	if len(ids) == 0 {
		return
	}
	q.Queue(`SELECT brand_id, name, product_id FROM product_names
		WHERE (brand_id, name) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, brands, ids).Query(func(rows pgx.Rows) error {
		return scanAll(rows, func() error {
			var k productKey
			var owner string
			if err := rows.Scan(&k.brand, &k.product, &owner); err != nil {
				return err
			}
			b.names[k] = owner
			return nil
		})
	})
	q.Queue(qProducts+` WHERE (brand_id, product_id) IN (SELECT * FROM unnest($1::text[], $2::text[])
		UNION SELECT n.brand_id, n.product_id FROM product_names n
			WHERE (n.brand_id, n.name) IN (SELECT * FROM unnest($1::text[], $2::text[])))`, brands, ids).Query(func(rows pgx.Rows) error {
		return scanAll(rows, func() error {
			p := new(productState)
			if err := scanProduct(rows, &p.Product); err != nil {
				return err
			}
			b.products[productKey{p.BrandID, p.ProductID}] = p
			return nil
		})
	})
}

func scanAll(rows pgx.Rows, scan func() error) error {
	for rows.Next() {
		if err := scan(); err != nil {
			return err
		}
	}
	return rows.Err()
}

// decide decides each write in the batch's order with svc.Decide.
func (b *batch) decide(ctx context.Context) error {
	for i, w := range b.writes {
		b.cur = &b.info[i]
		accept, err := svc.Decide(ctx, w, b)
		if err != nil {
			return err
		}
		if accept && w.Purchase != nil {
			b.inBatch[purchaseKey(w.Purchase)] = w
		}
		if w.Remembers() {
			b.cur.key.first = w
		}
	}
	return nil
}

// Answer returns the answer of a key (svc.WriteLookup): of a write of the
// batch, or of an earlier request when the batch could not claim the key.
// The claim has already told a live key from an expired one.
func (b *batch) Answer(_ context.Context, k svc.IdempotencyKey, _ time.Time) (svc.Answer, bool, error) {
	ks := b.keys[k]
	switch {
	case ks.first != nil:
		// Answered again when the batch is settled: the first write may
		// yet turn out a duplicate of another node's order.
		b.cur.sameAs, b.cur.replay = ks.first, true
		return svc.Answer{Status: ks.first.Result.Status, EventID: ks.first.Result.EventID, BodyHash: ks.first.BodyHash[:]}, true, nil
	case ks.claimed:
		return svc.Answer{}, false, nil
	case ks.stored == nil:
		return svc.Answer{}, false, svc.Internal(fmt.Errorf("idempotency key %q: neither claimed nor found", k.Key))
	}
	return *ks.stored, true, nil
}

// Order returns the event id of an order stored or accepted by the batch
// (svc.WriteLookup).
func (b *batch) Order(_ context.Context, brandID, orderID string, keyed bool) (string, bool, error) {
	k := orderKey{brandID, orderID, keyed}
	if eventID, ok := b.orders[k]; ok {
		return eventID, true, nil
	}
	if first := b.inBatch[k]; first != nil {
		b.cur.sameAs = first // its event id is known once the batch is settled
		return first.Result.EventID, true, nil
	}
	return "", false, nil
}

// PendingCancels returns the units refunds of an order recorded before it
// came, as read with the batch (svc.PendingLookup).
func (b *batch) PendingCancels(_ context.Context, brandID, orderID string) ([]svc.CancelItem, error) {
	return b.pending[productKey{brandID, orderID}], nil
}

// errPendingRaced: a refund of an order of the batch was recorded after
// the batch read the refunds; the batch is decided again.
var errPendingRaced = errors.New("postgres: a refund of an order of the batch came meanwhile")

// checkPending reads again, once the batch's orders are inserted, how many
// refunds their orders have recorded. A refund recorded since lookUp
// (another node's CancelOrder that committed meanwhile) fails the batch
// with errPendingRaced, and Append decides it again. A refund recorded
// later cannot be missed: CancelOrder's InsertPending then conflicts
// with this batch's keyed order row, waits for this commit, and takes the
// units out of the stored order.
func (b *batch) checkPending(ctx context.Context, tx pgTx) error {
	var brands, orders []string
	seen := map[productKey]bool{}
	for i, w := range b.writes {
		if !b.inserts(i) || b.info[i].purchase == 0 {
			continue
		}
		k := productKey{w.Purchase.BrandID, w.Purchase.Order.OrderID}
		if !seen[k] {
			seen[k] = true
			brands, orders = append(brands, k.brand), append(orders, k.product)
		}
	}
	if len(orders) == 0 {
		return nil
	}
	raced := false
	err := eachRow(ctx, tx, func(rows pgx.Rows) error {
		var k productKey
		var n int
		if err := rows.Scan(&k.brand, &k.product, &n); err != nil {
			return err
		}
		raced = raced || n != len(b.pending[k])
		return nil
	}, `SELECT brand_id, order_id, count(*) FROM pending_cancels
		WHERE (brand_id, order_id) IN (SELECT * FROM unnest($1::text[], $2::text[])) GROUP BY brand_id, order_id`, brands, orders)
	if err == nil && raced {
		err = errPendingRaced
	}
	return err
}

// Product returns a product as stored or as the batch leaves it
// (svc.ProductLookup), and notes it for the write's lines.
func (b *batch) Product(_ context.Context, brandID, productID string) (svc.Product, bool, error) {
	p := b.products[productKey{brandID, productID}]
	if p == nil {
		return svc.Product{}, false, nil
	}
	b.cur.products = append(b.cur.products, p)
	return p.Product, true, nil
}

// ProductOf returns the product a name belongs to, as read with the batch
// or as the batch leaves it (svc.NameLookup).
func (b *batch) ProductOf(_ context.Context, brandID, name string) (string, bool, error) {
	k := productKey{brandID, name}
	if b.products[k] != nil {
		return name, true, nil
	}
	owner, ok := b.names[k]
	return owner, ok, nil
}

// RegisterName notes a name to insert (svc.NameLookup), and its product
// to write, so that the change feed hands the name on with it.
func (b *batch) RegisterName(_ context.Context, n svc.Name, at time.Time) error {
	b.names[productKey{n.BrandID, n.Name}] = n.ProductID
	b.newNames, b.namedAt = append(b.newNames, n), append(b.namedAt, millis(at))
	if ps := b.products[productKey{n.BrandID, n.ProductID}]; ps != nil && !ps.write {
		ps.write, ps.at = true, millis(at)
	}
	return nil
}

// RegisterProduct notes a product to insert (svc.ProductLookup).
func (b *batch) RegisterProduct(_ context.Context, p svc.Product, at time.Time) error {
	ps := &productState{Product: p, set: p, write: true, at: millis(at)}
	b.products[productKey{p.BrandID, p.ProductID}] = ps
	b.cur.products = append(b.cur.products, ps)
	return nil
}

// UpdateProduct notes the changed attributes of a product to write
// (svc.ProductLookup).
func (b *batch) UpdateProduct(_ context.Context, p, set svc.Product, at time.Time) error {
	ps := b.products[productKey{p.BrandID, p.ProductID}]
	ps.Product, ps.write, ps.at = p, true, millis(at)
	ps.set.SKU, ps.set.Title, ps.set.URL = cmp.Or(set.SKU, ps.set.SKU), cmp.Or(set.Title, ps.set.Title), cmp.Or(set.URL, ps.set.URL)
	ps.set.GTIN, ps.set.MPN, ps.set.Maker = cmp.Or(set.GTIN, ps.set.GTIN), cmp.Or(set.MPN, ps.set.MPN), cmp.Or(set.Maker, ps.set.Maker)
	ps.set.Verified |= set.Verified
	return nil
}

// queueProducts registers new products and updates changed ones in one
// statement. A product another node registered meanwhile is updated
// instead, as if its event had come first.
func (b *batch) queueProducts(q *pgx.Batch) {
	b.queueNames(q)
	var ps []*productState
	for _, p := range b.products {
		if p.write {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return
	}
	// One order for every node: two batches never wait on each other's rows crosswise.
	slices.SortFunc(ps, func(x, y *productState) int {
		return cmp.Or(cmp.Compare(x.BrandID, y.BrandID), cmp.Compare(x.ProductID, y.ProductID))
	})
	cols := make([][]*string, 6)
	var brands, ids []string
	var at []int64
	var verified []int32
	for _, p := range ps {
		brands, ids, at = append(brands, p.BrandID), append(ids, p.ProductID), append(at, p.at)
		verified = append(verified, int32(p.set.Verified))
		cols[0], cols[1], cols[2] = append(cols[0], p.set.SKU), append(cols[1], p.set.Title), append(cols[2], p.set.URL)
		cols[3], cols[4], cols[5] = append(cols[3], p.set.GTIN), append(cols[4], p.set.MPN), append(cols[5], p.set.Maker)
	}
	// An attribute another node verified meanwhile stays, unless this
	// batch verifies it too: a provisional value never overwrites a
	// verified one (svc.Product.Update).
	q.Queue(`INSERT INTO products (brand_id, product_id, sku, title, url, gtin, mpn, maker, verified, created_at, updated_at)
		SELECT b, p, s, t, u, g, m, k, v, a, a
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::int[])
			AS x(b, p, s, t, u, a, g, m, k, v)
		ORDER BY b, p
		ON CONFLICT (brand_id, product_id) DO UPDATE SET `+keepVerified("sku", 1)+`, `+keepVerified("title", 2)+`,
			`+keepVerified("url", 4)+`, `+keepVerified("gtin", 8)+`, `+keepVerified("mpn", 16)+`, `+keepVerified("maker", 32)+`,
			verified = products.verified | excluded.verified,
			updated_at = excluded.updated_at, txid = pg_current_xact_id()
		RETURNING id, brand_id, product_id`, brands, ids, cols[0], cols[1], cols[2], at, cols[3], cols[4], cols[5], verified).Query(func(rows pgx.Rows) error {
		return scanAll(rows, func() error {
			var ref svc.ProductRef
			var k productKey
			if err := rows.Scan(&ref, &k.brand, &k.product); err != nil {
				return err
			}
			b.products[k].Ref = ref
			return nil
		})
	})
}

// queueNames inserts the names the batch registers. A name another node
// registered meanwhile stays that node's: the first claim keeps it.
func (b *batch) queueNames(q *pgx.Batch) {
	if len(b.newNames) == 0 {
		return
	}
	var brands, names, ids []string
	for _, n := range b.newNames {
		brands, names, ids = append(brands, n.BrandID), append(names, n.Name), append(ids, n.ProductID)
	}
	q.Queue(`INSERT INTO product_names (brand_id, name, product_id, created_at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) ORDER BY 1, 2
		ON CONFLICT (brand_id, name) DO NOTHING`, brands, names, ids, b.namedAt)
}

// keepVerified is the upsert of one attribute, bit of svc.Attrs: the
// batch's value, if it gives one, unless the stored one is verified and
// the batch's is not.
func keepVerified(col string, bit int) string {
	return fmt.Sprintf("%[1]s = CASE WHEN products.verified & %[2]d <> 0 AND excluded.verified & %[2]d = 0 THEN products.%[1]s ELSE coalesce(excluded.%[1]s, products.%[1]s) END", col, bit)
}

// qProducts reads whole products, as svc.Product's fields in order
// (scanProduct).
const qProducts = "SELECT id, brand_id, product_id, sku, title, url, gtin, mpn, maker, verified FROM products"

func scanProduct(rows pgx.Rows, p *svc.Product) error {
	var verified int32
	err := rows.Scan(&p.Ref, &p.BrandID, &p.ProductID, &p.SKU, &p.Title, &p.URL, &p.GTIN, &p.MPN, &p.Maker, &verified)
	p.Verified = svc.Attrs(verified)
	return err
}

// queueOrders inserts the accepted orders, and returns where their rows'
// ids will be. An order another node stored meanwhile is not inserted: the
// statement waits for that node's commit, and settleOrders makes the write
// a duplicate of its order.
func (b *batch) queueOrders(q *pgx.Batch) map[orderKey]int64 {
	if len(b.inBatch) == 0 {
		return nil
	}
	var (
		eventIDs, brands, orders []string
		ts, received             []int64
		given                    []*int64
		sessions, currencies     []*string
		totals                   []*float64
		keyed                    []bool
		countries, cities        []*string
	)
	for i, w := range b.writes {
		if !b.inserts(i) {
			continue
		}
		e, m := w.Purchase, &w.Purchase.Meta
		eventIDs, brands, orders = append(eventIDs, m.EventID), append(brands, e.BrandID), append(orders, e.Order.OrderID)
		ts, received, given = append(ts, millis(m.Time)), append(received, millis(m.ReceivedAt)), append(given, optMillis(m.GivenTime))
		sessions, currencies = append(sessions, e.Context.SessionID), append(currencies, e.Order.Currency)
		totals, keyed = append(totals, e.Order.TotalValue), append(keyed, m.Keyed)
		countries, cities = append(countries, e.Context.Country), append(cities, e.Context.City)
	}
	inserted := map[orderKey]int64{}
	q.Queue(`INSERT INTO purchase_events
		(event_id, brand_id, order_id, ts, given_ts, received_at, session_id, currency, total_value, keyed, country, city)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[],
			$7::text[], $8::text[], $9::float8[], $10::bool[], $11::text[], $12::text[]) AS x(e, b, o, t, g, r, s, c, v, k, n, y)
		ORDER BY b, o
		ON CONFLICT (brand_id, order_id, keyed) DO NOTHING
		RETURNING id, brand_id, order_id, keyed`,
		eventIDs, brands, orders, ts, given, received, sessions, currencies, totals, keyed, countries, cities).Query(func(rows pgx.Rows) error {
		return scanAll(rows, func() error {
			var k orderKey
			var id int64
			err := rows.Scan(&id, &k.brand, &k.order, &k.keyed)
			inserted[k] = id
			return err
		})
	})
	return inserted
}

// purchaseKey is the key of an order as the store keeps it apart.
func purchaseKey(e *svc.PurchaseEvent) orderKey {
	return orderKey{e.BrandID, e.Order.OrderID, e.Meta.Keyed}
}

// inserts reports whether the batch inserts write i's order.
func (b *batch) inserts(i int) bool {
	w := b.writes[i]
	return w.Purchase != nil && w.Result.Status == svc.StatusAccepted && b.info[i].sameAs == nil
}

// settleOrders notes the rows of the inserted orders, and turns those that
// another node stored first into duplicates of theirs.
func (b *batch) settleOrders(ctx context.Context, tx pgTx, inserted map[orderKey]int64) error {
	var lostBrands, lostOrders []string
	for i, w := range b.writes {
		if !b.inserts(i) {
			continue
		}
		k := purchaseKey(w.Purchase)
		if id, ok := inserted[k]; ok {
			b.info[i].purchase = id
		} else {
			lostBrands, lostOrders = append(lostBrands, k.brand), append(lostOrders, k.order)
		}
	}
	if len(lostOrders) == 0 {
		return nil
	}
	winners := map[orderKey]string{}
	err := eachRow(ctx, tx, func(rows pgx.Rows) error {
		var k orderKey
		var eventID string
		err := rows.Scan(&k.brand, &k.order, &k.keyed, &eventID)
		winners[k] = eventID
		return err
	}, `SELECT brand_id, order_id, keyed, event_id FROM purchase_events
		WHERE (brand_id, order_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, lostBrands, lostOrders)
	if err != nil {
		return err
	}
	for i, w := range b.writes {
		if !b.inserts(i) || b.info[i].purchase != 0 {
			continue
		}
		eventID, ok := winners[purchaseKey(w.Purchase)]
		if !ok {
			return svc.Internal(fmt.Errorf("order %q: neither inserted nor found", w.Purchase.Order.OrderID))
		}
		w.Result.Status, w.Result.EventID = svc.StatusDuplicate, eventID
		b.info[i].products = nil
	}
	return nil
}

// finish answers the replays and duplicates of the batch's own writes, and
// sets the lines of the accepted ones.
func (b *batch) finish() {
	for i, w := range b.writes {
		in := &b.info[i]
		switch {
		case in.sameAs != nil && in.replay:
			if w.Result.Err == nil {
				w.Result = svc.WriteResult{Status: in.sameAs.Result.Status, EventID: in.sameAs.Result.EventID, Replay: true}
			}
		case in.sameAs != nil:
			w.Result.Status, w.Result.EventID = svc.StatusDuplicate, in.sameAs.Result.EventID
		case w.Result.Err != nil || w.Result.Replay || w.Result.Status != svc.StatusAccepted:
		default:
			refs := make([]svc.ProductRef, len(in.products))
			for j, p := range in.products {
				refs[j] = p.Ref
			}
			w.Result.Lines = w.Lines(refs)
		}
	}
}

// queueRest queues the inserts of the views and the order lines, and the
// settling of the claimed idempotency keys: a key answers its batch's
// first accepted write again; one that no write accepted is let go.
func (b *batch) queueRest(q *pgx.Batch) error {
	var (
		views                       []viewblock.View
		iPurchase, iProduct, iQty   []int64
		iLine                       []int32
		iSKU, iTitle                []*string
		iPrice                      []*float64
		kb, ks, kk, kStatus, kEvent []string
		kHash                       [][]byte
		kCreated                    []int64
		gb, gs, gk                  []string
		carts                       cartColumns
	)
	for i, w := range b.writes {
		in := &b.info[i]
		if w.Result.Status != svc.StatusAccepted || w.Result.Replay {
			continue
		}
		if v := w.View; v != nil {
			views = append(views, sqlstore.BlockView(v, in.products[0].Ref))
			continue
		}
		if c := w.Cart; c != nil {
			carts.add(c, in.products[0].Ref)
			continue
		}
		for j, it := range w.Purchase.Order.Items {
			iPurchase, iLine, iProduct = append(iPurchase, in.purchase), append(iLine, int32(j)), append(iProduct, int64(in.products[j].Ref))
			iSKU, iTitle, iQty, iPrice = append(iSKU, it.SKU), append(iTitle, it.Title), append(iQty, *it.Quantity), append(iPrice, it.UnitPrice)
		}
	}
	for _, k := range b.keyOrder {
		ks0 := b.keys[k]
		switch {
		case !ks0.claimed:
		case ks0.first != nil:
			w := ks0.first
			_, m := w.Event()
			kb, ks, kk = append(kb, k.BrandID), append(ks, k.Scope), append(kk, k.Key)
			kHash, kCreated = append(kHash, w.BodyHash[:]), append(kCreated, millis(m.ReceivedAt))
			kStatus, kEvent = append(kStatus, w.Result.Status), append(kEvent, w.Result.EventID)
		default:
			gb, gs, gk = append(gb, k.BrandID), append(gs, k.Scope), append(gk, k.Key)
		}
	}
	if len(views) > 0 {
		queueProductLocks(q, views)
		if err := b.queueBlock(q, views); err != nil {
			return err
		}
	}
	carts.queue(q)
	if len(iPurchase) > 0 {
		q.Queue(`INSERT INTO purchase_items (purchase, line, product, sku, title, quantity, unit_price)
			SELECT * FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::float8[])`,
			iPurchase, iLine, iProduct, iSKU, iTitle, iQty, iPrice)
	}
	if len(kk) > 0 {
		q.Queue(`UPDATE idempotency_keys k SET body_hash = u.h, created_at = u.c, status = u.s, event_id = u.e
			FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::bigint[], $6::text[], $7::text[]) AS u(b, sc, k, h, c, s, e)
			WHERE k.brand_id = u.b AND k.scope = u.sc AND k.key = u.k`, kb, ks, kk, kHash, kCreated, kStatus, kEvent)
	}
	if len(gk) > 0 {
		q.Queue(`DELETE FROM idempotency_keys WHERE (brand_id, scope, key) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`, gb, gs, gk)
	}
	return nil
}

// errProductRaced: a product of the batch's views was merged away after
// the batch read it; the batch is decided again, and finds the product's
// id a name of the one it was merged into.
var errProductRaced = errors.New("postgres: a product of the batch was merged away meanwhile")

// queueProductLocks queues the lock of the products the views name (FOR
// KEY SHARE, what a row's foreign key took), in id order, until the
// batch commits. A block has no foreign key: a merge of products, which
// locks both products (FOR UPDATE) before it rewrites the blocks and
// deletes the product merged away, must wait for the block to commit and
// then rewrite it, rather than leave it naming a product gone. A product
// already gone fails the batch with errProductRaced.
func queueProductLocks(q *pgx.Batch, views []viewblock.View) {
	refs := make([]int64, 0, len(views))
	for i := range views {
		refs = append(refs, views[i].Product)
	}
	slices.Sort(refs)
	refs = slices.Compact(refs)
	q.Queue("SELECT count(*) FROM (SELECT 1 FROM products WHERE id = ANY($1) ORDER BY id FOR KEY SHARE) l", refs).QueryRow(func(row pgx.Row) error {
		var n int
		if err := row.Scan(&n); err != nil {
			return err
		}
		if n < len(refs) {
			return errProductRaced
		}
		return nil
	})
}

// queueBlock queues the insert of the batch's accepted views as one block
// (docs/decisions.md, Views in blocks), each with an id the look-up took.
// Its txid is the transaction's, which the change feed goes by.
func (b *batch) queueBlock(q *pgx.Batch, views []viewblock.View) error {
	if len(views) > len(b.viewIDs) {
		return fmt.Errorf("postgres: %d views and %d ids", len(views), len(b.viewIDs))
	}
	slices.Sort(b.viewIDs)
	lo, hi := views[0].TS, views[0].TS
	for i := range views {
		views[i].ID = b.viewIDs[i]
		lo, hi = min(lo, views[i].TS), max(hi, views[i].TS)
	}
	b.block = viewblock.Append(b.block[:0], views)
	q.Queue("INSERT INTO view_blocks (id, last, min_ts, max_ts, n, data) VALUES ($1, $2, $3, $4, $5, $6)",
		views[0].ID, views[len(views)-1].ID, lo, hi, len(views), b.block)
	return nil
}
