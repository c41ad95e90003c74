package postgres

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// Append writes a batch of events in one transaction, durable on return.
// The batch goes in a handful of set-based statements whatever its size. If
// one of them fails, the batch is redone write by write under savepoints
// (subtransactions, too costly to use on every write), so that a bad write
// fails alone and the others of the batch stand.
func (s *Store) Append(ctx context.Context, batch []*svc.Write) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	err := s.appendTx(ctx, func(tx pgx.Tx, xid *int64) error { return appendBatch(ctx, tx, batch, xid) })
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
	var xid *int64
	if s.own.active() {
		xid = new(int64)
	}
	if err := fn(tx, xid); err != nil {
		return bodyError{err}
	}
	done := func(bool) {}
	if xid != nil {
		done = s.own.begin(*xid)
	}
	err = tx.Commit(ctx)
	done(err == nil)
	return err
}

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

type idemKey struct{ brand, scope, key string }
type productKey struct{ brand, product string }
type orderKey struct{ brand, order string }

// batch is what one Append works out before it writes. The writes are
// decided in their order, as the embedded store does one after the other;
// the rows then go in a few statements.
type batch struct {
	writes []*svc.Write
	info   []writeInfo

	keys     map[idemKey]*keyState
	keyOrder []idemKey
	products map[productKey]*productState
	orders   map[orderKey]string     // stored orders: their event ids
	inBatch  map[orderKey]*svc.Write // orders the batch accepts
}

type writeInfo struct {
	brand    string
	meta     *svc.EventMeta
	key      *keyState
	products []*productState // of each line, once accepted
	sameAs   *svc.Write      // a replay or duplicate of an earlier write of the batch
	replay   bool            // sameAs is a replay, not a duplicate order
	purchase int64           // the inserted order's row
}

type keyState struct {
	claimed bool       // this batch holds the key's row
	stored  *storedKey // the live row of an earlier request, when not claimed
	first   *svc.Write // the batch's first accepted write with the key
	created int64
}

type storedKey struct {
	status, eventID string
	hash            []byte
}

type productState struct {
	key             productKey
	ref             svc.ProductRef // 0 until known
	sku, title, url *string        // as stored, with the batch's changes
	// Given attributes that changed the product: written with coalesce, so
	// that a node updating the same product meanwhile loses only those.
	setSKU, setTitle, setURL *string
	write                    bool // registered or changed: to upsert
	at                       int64
}

func appendBatch(ctx context.Context, tx pgx.Tx, writes []*svc.Write, xid *int64) error {
	b := &batch{writes: writes, info: make([]writeInfo, len(writes)), keys: map[idemKey]*keyState{},
		products: map[productKey]*productState{}, orders: map[orderKey]string{}, inBatch: map[orderKey]*svc.Write{}}
	if err := b.lookUp(ctx, tx, xid); err != nil {
		return err
	}
	if err := b.decide(); err != nil {
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
	b.finish()
	return b.insertRest(ctx, tx)
}

// lookUp claims the batch's idempotency keys and reads the keys, products
// and orders it names, in one round trip. A key is claimed by inserting its
// row (or taking over an expired one): a node sending the same key at the
// same time waits on the row and then finds it taken.
func (b *batch) lookUp(ctx context.Context, tx pgx.Tx, xid *int64) error {
	var kb, ks, kk []string
	var kh [][]byte
	var kc []int64
	var pb, pp, ob, oo []string
	for i, w := range b.writes {
		w.Result = svc.WriteResult{}
		in := &b.info[i]
		if w.View != nil {
			in.brand, in.meta = w.View.BrandID, &w.View.Meta
			pb, pp = append(pb, in.brand), append(pp, w.View.Product.ProductID)
		} else {
			in.brand, in.meta = w.Purchase.BrandID, &w.Purchase.Meta
			ob, oo = append(ob, in.brand), append(oo, w.Purchase.Order.OrderID)
			for _, it := range w.Purchase.Order.Items {
				pb, pp = append(pb, in.brand), append(pp, it.ProductID)
			}
		}
		if w.IdempotencyKey == "" {
			continue
		}
		k := idemKey{in.brand, idempotencyScope(w, in.meta.Keyed), w.IdempotencyKey}
		if b.keys[k] == nil {
			b.keys[k] = &keyState{created: millis(in.meta.ReceivedAt)}
			b.keyOrder = append(b.keyOrder, k)
			kb, ks, kk = append(kb, k.brand), append(ks, k.scope), append(kk, k.key)
			kh, kc = append(kh, w.BodyHash[:]), append(kc, millis(in.meta.ReceivedAt))
		}
		in.key = b.keys[k]
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
				var k idemKey
				if err := rows.Scan(&k.brand, &k.scope, &k.key); err != nil {
					return err
				}
				b.keys[k].claimed = true
				return nil
			})
		})
		q.Queue(`SELECT brand_id, scope, key, status, event_id, body_hash FROM idempotency_keys
			WHERE (brand_id, scope, key) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`, kb, ks, kk).Query(func(rows pgx.Rows) error {
			return scanAll(rows, func() error {
				var k idemKey
				var sk storedKey
				if err := rows.Scan(&k.brand, &k.scope, &k.key, &sk.status, &sk.eventID, &sk.hash); err != nil {
					return err
				}
				b.keys[k].stored = &sk
				return nil
			})
		})
	}
	if len(pp) > 0 {
		q.Queue(`SELECT id, brand_id, product_id, sku, title, url FROM products
			WHERE (brand_id, product_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, pb, pp).Query(func(rows pgx.Rows) error {
			return scanAll(rows, func() error {
				p := new(productState)
				if err := rows.Scan(&p.ref, &p.key.brand, &p.key.product, &p.sku, &p.title, &p.url); err != nil {
					return err
				}
				b.products[p.key] = p
				return nil
			})
		})
	}
	if len(oo) > 0 {
		q.Queue(`SELECT brand_id, order_id, event_id FROM purchase_events
			WHERE (brand_id, order_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, ob, oo).Query(func(rows pgx.Rows) error {
			return scanAll(rows, func() error {
				var k orderKey
				var eventID string
				if err := rows.Scan(&k.brand, &k.order, &eventID); err != nil {
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

func scanAll(rows pgx.Rows, scan func() error) error {
	for rows.Next() {
		if err := scan(); err != nil {
			return err
		}
	}
	return rows.Err()
}

// decide answers each write in the batch's order, as if they were stored
// one after the other.
func (b *batch) decide() error {
	for i, w := range b.writes {
		in := &b.info[i]
		if ks := in.key; ks != nil {
			switch {
			case ks.first != nil:
				in.sameAs, in.replay = ks.first, true
				if !bytes.Equal(ks.first.BodyHash[:], w.BodyHash[:]) {
					w.Result.Err = reused(w)
				}
				continue
			case !ks.claimed && ks.stored == nil:
				return svc.Internal(fmt.Errorf("idempotency key %q: neither claimed nor found", w.IdempotencyKey))
			case !ks.claimed:
				if !bytes.Equal(ks.stored.hash, w.BodyHash[:]) {
					w.Result.Err = reused(w)
				} else {
					w.Result = svc.WriteResult{Status: ks.stored.status, EventID: ks.stored.eventID, Replay: true}
				}
				continue
			}
		}
		if w.View != nil {
			b.decideView(w, in)
		} else {
			b.decidePurchase(w, in)
		}
		if w.Result.Err == nil && in.key != nil {
			in.key.first = w
		}
	}
	return nil
}

func reused(w *svc.Write) error {
	return svc.Errorf(svc.ECONFLICT, "Idempotency-Key %q was used with another body in the last %s", w.IdempotencyKey, svc.IdempotencyTTL)
}

func (b *batch) decideView(w *svc.Write, in *writeInfo) {
	v := w.View
	p := b.resolve(productKey{v.BrandID, v.Product.ProductID}, v.Product.SKU, v.Product.Title, v.Product.URL, w.MayRegister, in.meta)
	if p == nil {
		w.Result.Err = notFound(v.BrandID, v.Product.ProductID)
		return
	}
	in.products = []*productState{p}
	w.Result.Status, w.Result.EventID = svc.StatusAccepted, in.meta.EventID
}

func (b *batch) decidePurchase(w *svc.Write, in *writeInfo) {
	e := w.Purchase
	ok := orderKey{e.BrandID, e.Order.OrderID}
	if first, seen := b.orders[ok]; seen {
		w.Result.Status, w.Result.EventID = svc.StatusDuplicate, first
		return
	}
	if first := b.inBatch[ok]; first != nil {
		in.sameAs = first
		return
	}
	// Without MayRegister nothing is written, so an order refused for one
	// unknown product leaves no trace; with it, nothing is refused.
	if !w.MayRegister {
		for _, it := range e.Order.Items {
			if b.products[productKey{e.BrandID, it.ProductID}] == nil {
				w.Result.Err = notFound(e.BrandID, it.ProductID)
				return
			}
		}
	}
	for _, it := range e.Order.Items {
		in.products = append(in.products, b.resolve(productKey{e.BrandID, it.ProductID}, it.SKU, it.Title, nil, w.MayRegister, in.meta))
	}
	b.inBatch[ok] = w
	w.Result.Status, w.Result.EventID = svc.StatusAccepted, in.meta.EventID
}

// resolve finds a product. With register set, a product that does not exist
// is registered, and attributes that are given and differ from the stored
// ones are updated; without it, nothing changes, and a missing product is nil.
func (b *batch) resolve(k productKey, sku, title, url *string, register bool, m *svc.EventMeta) *productState {
	p := b.products[k]
	if p == nil {
		if !register {
			return nil
		}
		p = &productState{key: k, write: true, at: millis(m.ReceivedAt)}
		b.products[k] = p
	}
	if !register {
		return p
	}
	for _, a := range []struct{ given, stored, set **string }{{&sku, &p.sku, &p.setSKU}, {&title, &p.title, &p.setTitle}, {&url, &p.url, &p.setURL}} {
		if g := *a.given; g != nil && (*a.stored == nil || **a.stored != *g) {
			*a.stored, *a.set = g, g
			p.write, p.at = true, millis(m.ReceivedAt)
		}
	}
	return p
}

func notFound(brandID, productID string) error {
	return svc.Errorf(svc.ENOTFOUND, "product %q of brand %q not found, and the brand's catalog is closed to anonymous events", productID, brandID)
}

// queueProducts registers new products and updates changed ones in one
// statement. A product another node registered meanwhile is updated
// instead, as if its event had come first.
func (b *batch) queueProducts(q *pgx.Batch) {
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
		return cmp.Or(cmp.Compare(x.key.brand, y.key.brand), cmp.Compare(x.key.product, y.key.product))
	})
	cols := make([][]*string, 3)
	var brands, ids []string
	var at []int64
	for _, p := range ps {
		brands, ids, at = append(brands, p.key.brand), append(ids, p.key.product), append(at, p.at)
		cols[0], cols[1], cols[2] = append(cols[0], p.setSKU), append(cols[1], p.setTitle), append(cols[2], p.setURL)
	}
	q.Queue(`INSERT INTO products (brand_id, product_id, sku, title, url, created_at, updated_at)
		SELECT b, p, s, t, u, a, a FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]) AS x(b, p, s, t, u, a)
		ORDER BY b, p
		ON CONFLICT (brand_id, product_id) DO UPDATE SET sku = coalesce(excluded.sku, products.sku),
			title = coalesce(excluded.title, products.title), url = coalesce(excluded.url, products.url),
			updated_at = excluded.updated_at, txid = pg_current_xact_id()
		RETURNING id, brand_id, product_id`, brands, ids, cols[0], cols[1], cols[2], at).Query(func(rows pgx.Rows) error {
		return scanAll(rows, func() error {
			var ref svc.ProductRef
			var k productKey
			if err := rows.Scan(&ref, &k.brand, &k.product); err != nil {
				return err
			}
			b.products[k].ref = ref
			return nil
		})
	})
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
	)
	for i, w := range b.writes {
		if !b.inserts(i) {
			continue
		}
		e, m := w.Purchase, b.info[i].meta
		eventIDs, brands, orders = append(eventIDs, m.EventID), append(brands, e.BrandID), append(orders, e.Order.OrderID)
		ts, received, given = append(ts, millis(m.Time)), append(received, millis(m.ReceivedAt)), append(given, optMillis(m.GivenTime))
		sessions, currencies = append(sessions, e.Context.SessionID), append(currencies, e.Order.Currency)
		totals, keyed = append(totals, e.Order.TotalValue), append(keyed, m.Keyed)
	}
	inserted := map[orderKey]int64{}
	q.Queue(`INSERT INTO purchase_events
		(event_id, brand_id, order_id, ts, given_ts, received_at, session_id, currency, total_value, keyed)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[],
			$7::text[], $8::text[], $9::float8[], $10::bool[]) AS x(e, b, o, t, g, r, s, c, v, k)
		ORDER BY b, o
		ON CONFLICT (brand_id, order_id) DO NOTHING
		RETURNING id, brand_id, order_id`,
		eventIDs, brands, orders, ts, given, received, sessions, currencies, totals, keyed).Query(func(rows pgx.Rows) error {
		return scanAll(rows, func() error {
			var k orderKey
			var id int64
			err := rows.Scan(&id, &k.brand, &k.order)
			inserted[k] = id
			return err
		})
	})
	return inserted
}

// inserts reports whether the batch inserts write i's order.
func (b *batch) inserts(i int) bool {
	w := b.writes[i]
	return w.Purchase != nil && w.Result.Status == svc.StatusAccepted && b.info[i].sameAs == nil
}

// settleOrders notes the rows of the inserted orders, and turns those that
// another node stored first into duplicates of theirs.
func (b *batch) settleOrders(ctx context.Context, tx pgx.Tx, inserted map[orderKey]int64) error {
	var lostBrands, lostOrders []string
	for i, w := range b.writes {
		if !b.inserts(i) {
			continue
		}
		k := orderKey{w.Purchase.BrandID, w.Purchase.Order.OrderID}
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
		err := rows.Scan(&k.brand, &k.order, &eventID)
		winners[k] = eventID
		return err
	}, `SELECT brand_id, order_id, event_id FROM purchase_events
		WHERE (brand_id, order_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, lostBrands, lostOrders)
	if err != nil {
		return err
	}
	for i, w := range b.writes {
		if !b.inserts(i) || b.info[i].purchase != 0 {
			continue
		}
		eventID, ok := winners[orderKey{w.Purchase.BrandID, w.Purchase.Order.OrderID}]
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
		case w.View != nil:
			w.Result.Lines = []svc.Line{{Product: in.products[0].ref, ProductID: w.View.Product.ProductID, Units: 1}}
		default:
			refs := make([]svc.ProductRef, len(in.products))
			for j, p := range in.products {
				refs[j] = p.ref
			}
			w.Result.Lines = svc.LinesOf(w.Purchase, refs)
		}
	}
}

// insertRest inserts the views and the order lines, and settles the claimed
// idempotency keys, in one round trip: a key answers its batch's first
// accepted write again; one that no write accepted is let go.
func (b *batch) insertRest(ctx context.Context, tx pgx.Tx) error {
	q := &pgx.Batch{}
	var (
		vEvent                      []string
		vProduct, vTS, vReceived    []int64
		vGiven                      []*int64
		vSession, vCountry, vLocale []*string
		vKeyed                      []bool
		iPurchase, iProduct, iQty   []int64
		iLine                       []int32
		iSKU, iTitle                []*string
		iPrice                      []*float64
		kb, ks, kk, kStatus, kEvent []string
		kHash                       [][]byte
		kCreated                    []int64
		gb, gs, gk                  []string
	)
	for i, w := range b.writes {
		in := &b.info[i]
		if w.Result.Status != svc.StatusAccepted || w.Result.Replay {
			continue
		}
		if v := w.View; v != nil {
			m := in.meta
			vEvent, vProduct, vTS = append(vEvent, m.EventID), append(vProduct, int64(in.products[0].ref)), append(vTS, millis(m.Time))
			vGiven, vReceived = append(vGiven, optMillis(m.GivenTime)), append(vReceived, millis(m.ReceivedAt))
			vSession, vCountry, vLocale = append(vSession, v.Context.SessionID), append(vCountry, v.Context.Country), append(vLocale, v.Context.Locale)
			vKeyed = append(vKeyed, m.Keyed)
			continue
		}
		for j, it := range w.Purchase.Order.Items {
			iPurchase, iLine, iProduct = append(iPurchase, in.purchase), append(iLine, int32(j)), append(iProduct, int64(in.products[j].ref))
			iSKU, iTitle, iQty, iPrice = append(iSKU, it.SKU), append(iTitle, it.Title), append(iQty, *it.Quantity), append(iPrice, it.UnitPrice)
		}
	}
	for _, k := range b.keyOrder {
		ks0 := b.keys[k]
		switch {
		case !ks0.claimed:
		case ks0.first != nil:
			w := ks0.first
			m := b.metaOf(w)
			kb, ks, kk = append(kb, k.brand), append(ks, k.scope), append(kk, k.key)
			kHash, kCreated = append(kHash, w.BodyHash[:]), append(kCreated, millis(m.ReceivedAt))
			kStatus, kEvent = append(kStatus, w.Result.Status), append(kEvent, w.Result.EventID)
		default:
			gb, gs, gk = append(gb, k.brand), append(gs, k.scope), append(gk, k.key)
		}
	}
	if len(vEvent) > 0 {
		q.Queue(`INSERT INTO view_events (event_id, product, ts, given_ts, received_at, session_id, country, locale, keyed)
			SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::bool[])`,
			vEvent, vProduct, vTS, vGiven, vReceived, vSession, vCountry, vLocale, vKeyed)
	}
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
	if q.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, q).Close()
}

func (b *batch) metaOf(w *svc.Write) *svc.EventMeta {
	if w.View != nil {
		return &w.View.Meta
	}
	return &w.Purchase.Meta
}
