package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/viewblock"
)

// Both stores keep their views in blocks (docs/decisions.md, Views in
// blocks): a row of view_blocks per commit group, its views encoded by
// internal/viewblock. A block's id is the first view id of its range and
// last the range's end, which a rewrite (an erasure, expiry, a merge of
// products) keeps, so that every view keeps its id and no id is given
// twice while the block stands; min_ts and max_ts bound its views' times.
// PostgreSQL's blocks also keep the transaction that wrote them (txid),
// which a rewrite keeps too: its change feed tells new blocks by it, as
// it tells new rows.

// BlockColumns are the columns of view_blocks that EachBlock reads.
const BlockColumns = "id, last, data"

// Block is a stored block, decoded.
type Block struct {
	ID, Last int64
	Views    []viewblock.View
}

// EachBlock calls fn with each block the condition on view_blocks
// selects, in the order given ("" for none). The views' slice is reused
// from one block to the next.
func EachBlock(ctx context.Context, q Queryer, cond, order string, args []any, fn func(*Block) error) error {
	var b Block
	var data []byte
	query := "SELECT " + BlockColumns + " FROM view_blocks WHERE " + cond
	if order != "" {
		query += " ORDER BY " + order
	}
	return Each(ctx, q, func(r Row) error {
		if err := r.Scan(&b.ID, &b.Last, &data); err != nil {
			return err
		}
		var err error
		if b.Views, err = viewblock.Decode(b.Views[:0], data); err != nil {
			return err
		}
		return fn(&b)
	}, query, args...)
}

// PutBlock writes a block of views, in id order, under the range
// [id, last]: a new one, or one rewritten. A block with no view left is
// deleted.
func PutBlock(ctx context.Context, tx Querier, id, last int64, views []viewblock.View, buf []byte) ([]byte, error) {
	if len(views) == 0 {
		_, err := tx.Exec(ctx, "DELETE FROM view_blocks WHERE id = ?", id)
		return buf, err
	}
	lo, hi := views[0].TS, views[0].TS
	for i := range views {
		lo, hi = min(lo, views[i].TS), max(hi, views[i].TS)
	}
	buf = viewblock.Append(buf[:0], views)
	// An upsert, not a replace: a rewritten block keeps its other columns
	// (PostgreSQL's txid, so that the feed does not hand it out again).
	_, err := tx.Exec(ctx, `INSERT INTO view_blocks (id, last, min_ts, max_ts, n, data) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET last = excluded.last, min_ts = excluded.min_ts, max_ts = excluded.max_ts, n = excluded.n, data = excluded.data`,
		id, last, lo, hi, len(views), buf)
	return buf, err
}

// RewriteBlocks reads the blocks the condition selects and writes back
// those that edit changes, with the views it keeps. edit may change the
// views in place and returns the ones kept. It returns how many views
// edit dropped. Blocks are read a page at a time, in id order, and each
// page's changes written before the next page is read: SQLite's cursor
// would meet them again, and a merge may change many blocks. The blocks
// read are locked against other nodes' rewrites until tx ends (each
// block's lock is a write of its page on PostgreSQL: an erasure or a
// merge, which reads every block, writes the table once).
func (d *Dialect) RewriteBlocks(ctx context.Context, tx Querier, cond string, args []any, edit func(vs []viewblock.View) (kept []viewblock.View, changed bool)) (int64, error) {
	const page = 256
	var dropped int64
	var buf []byte
	for after := int64(minTime); ; {
		var changed []Block
		read := 0
		err := EachBlock(ctx, tx, "("+cond+") AND id > ?", fmt.Sprintf("id LIMIT %d", page)+d.forUpdate, append(slices.Clip(args), after), func(b *Block) error {
			read++
			after = b.ID
			n := len(b.Views)
			kept, ok := edit(b.Views)
			if ok {
				changed = append(changed, Block{ID: b.ID, Last: b.Last, Views: slices.Clone(kept)})
				dropped += int64(n - len(kept))
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		for _, b := range changed {
			if buf, err = PutBlock(ctx, tx, b.ID, b.Last, b.Views, buf); err != nil {
				return 0, err
			}
		}
		// Not read < page: a locked read skips the blocks another
		// transaction deleted while it waited, and may give a short page
		// before the end.
		if read == 0 || d.forUpdate == "" && read < page {
			return dropped, nil
		}
	}
}

// DropViews is an edit of RewriteBlocks that drops the views drop says,
// and adds them to d with sign -1.
func DropViews(d *rollup.Delta, drop func(*viewblock.View) bool) func([]viewblock.View) ([]viewblock.View, bool) {
	return func(vs []viewblock.View) ([]viewblock.View, bool) {
		kept := vs[:0]
		for i := range vs {
			if drop(&vs[i]) {
				d.AddView(RollupView(&vs[i]), -1)
				continue
			}
			kept = append(kept, vs[i])
		}
		return kept, len(kept) < len(vs)
	}
}

// BlockView is a view as a writer keeps it for its block, its id not yet
// given.
func BlockView(v *svc.ViewEvent, ref svc.ProductRef) viewblock.View {
	m := &v.Meta
	b := viewblock.View{EventID: m.EventID, Brand: v.BrandID, Product: int64(ref), TS: Millis(m.Time),
		ReceivedAt: Millis(m.ReceivedAt), Keyed: m.Keyed, Arm: m.Arm}
	if m.GivenTime != nil {
		b.Given, b.HasGiven = Millis(*m.GivenTime), true
	}
	c := &v.Context
	if c.SessionID != nil {
		b.Session, b.HasSession = *c.SessionID, true
	}
	if c.Country != nil {
		b.Country, b.HasCountry = *c.Country, true
	}
	if c.Locale != nil {
		b.Locale, b.HasLocale = *c.Locale, true
	}
	return b
}

// RollupView is what a stored view adds to the rollups.
func RollupView(v *viewblock.View) rollup.View {
	return rollup.View{Brand: v.Brand, Product: v.Product, At: v.TS, Session: v.Session, Country: v.Country, Arm: v.Arm}
}

// blockTimes is the condition of the blocks whose views' times may meet
// [from, to).
const blockTimes = "max_ts >= ? AND min_ts < ?"

// storedViews is every stored view whose time may fall in [from, to)
// (arguments: from, to, twice), in one statement and so one snapshot:
// the blocks, and the rows of view_events that a node of the version
// before wrote and that wait to be moved (postgres.moveViewRows; none
// once moved), each as a block of one view, its data NULL (a block's
// other columns are). All in the order of their oldest time, then id, as
// each table's index on times gives them. One statement: a move may
// commit at any time, and in any snapshot a view is a row or in a block,
// never both.
const storedViews = `SELECT min_ts, id, data, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
	FROM view_blocks WHERE ` + blockTimes + `
	UNION ALL SELECT v.ts, v.id, NULL, ` + MovedViewColumns + `
	FROM view_events v LEFT JOIN products p ON p.id = v.product WHERE v.ts >= ? AND v.ts < ?
	ORDER BY 1, 2`

// eachStored calls fn with each block, or row of the version before, that
// may hold a view of [from, to) (storedViews): lo bounds its views' times
// from below. The views' slice is reused from one call to the next. Their
// event ids are read only with decode viewblock.Decode: a replay, a
// build and an erasure's sessions need none (viewblock.DecodeCounted).
func eachStored(ctx context.Context, q Queryer, from, to int64, decode viewDecoder, fn func(lo int64, vs []viewblock.View) error) error {
	var vs []viewblock.View
	var m movedRow
	var lo, id int64
	var data []byte
	dest := append([]any{&lo, &id, &data}, m.dest()...) // once: a replay scans a row a block
	return Each(ctx, q, func(r Row) error {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		if data == nil { // a row
			vs = append(vs[:0], m.view())
			return fn(lo, vs)
		}
		var err error
		if vs, err = decode(vs[:0], data); err != nil {
			return err
		}
		return fn(lo, vs)
	}, storedViews, from, to, from, to)
}

// viewDecoder is viewblock.Decode, or viewblock.DecodeCounted.
type viewDecoder func(dst []viewblock.View, b []byte) ([]viewblock.View, error)

// EachViewInTime calls fn with every stored view of [from, to) that keep
// accepts, in the order of their times, then ids: those of blocks and
// those of rows not yet moved (storedViews). Blocks overlap in time
// (a keyed event's timestamp is its own): they are read in the order of
// their oldest view and merged (timeOrder).
func EachViewInTime(ctx context.Context, q Queryer, from, to int64, decode viewDecoder, keep func(*viewblock.View) bool, fn func(*viewblock.View) error) error {
	o := timeOrder[viewblock.View]{from: from, to: to, key: func(v viewblock.View) (int64, int64) { return v.TS, v.ID }}
	emit := func(vs []viewblock.View) error {
		for i := range vs {
			if err := fn(&vs[i]); err != nil {
				return err
			}
		}
		return nil
	}
	err := eachStored(ctx, q, from, to, decode, func(lo int64, vs []viewblock.View) error {
		if err := o.emitBefore(lo, emit); err != nil {
			return err
		}
		o.add(vs, keep)
		return nil
	})
	if err != nil {
		return err
	}
	return o.emitBefore(to, emit)
}

// timeOrder puts the views of blocks read in the order of their oldest
// view (lo) into the order of their times, then ids, within [from, to):
// the views read and not yet given wait, sorted, until a block begins
// after them. They are few: blocks are commit groups of one moment.
type timeOrder[V any] struct {
	from, to int64
	// key takes a copy, not a pointer: byTime's arguments, whose
	// addresses it took, went to the heap at every comparison (1.1 GB of
	// a 20 M-view replay's garbage).
	key             func(V) (ts, id int64)
	pending, merged []V
}

func (o *timeOrder[V]) byTime(a, b V) int {
	ats, aid := o.key(a)
	bts, bid := o.key(b)
	return cmp.Or(cmp.Compare(ats, bts), cmp.Compare(aid, bid))
}

// emitBefore hands emit the views waiting from before t (and from), in
// order, and drops them; emit must not keep the slice.
func (o *timeOrder[V]) emitBefore(t int64, emit func([]V) error) error {
	t = max(t, o.from)
	i := 0
	for i < len(o.pending) {
		if ts, _ := o.key(o.pending[i]); ts >= t {
			break
		}
		i++
	}
	if i > 0 {
		if err := emit(o.pending[:i]); err != nil {
			return err
		}
	}
	o.pending = o.pending[:copy(o.pending, o.pending[i:])]
	return nil
}

// add merges the views of a block within [from, to) that keep accepts
// (every one with nil) into those waiting; vs is reordered and may be
// reused after.
func (o *timeOrder[V]) add(vs []V, keep func(*V) bool) {
	kept := vs[:0]
	for i := range vs {
		if ts, _ := o.key(vs[i]); ts >= o.from && ts < o.to && (keep == nil || keep(&vs[i])) {
			kept = append(kept, vs[i])
		}
	}
	if !slices.IsSortedFunc(kept, o.byTime) {
		slices.SortFunc(kept, o.byTime)
	}
	o.merged = mergeViews(o.merged[:0], o.pending, kept, o.byTime)
	o.pending, o.merged = o.merged, o.pending
}

// mergeViews appends to dst the views of a and b, both sorted by cmp, in
// order.
func mergeViews[V any](dst, a, b []V, cmp func(a, b V) int) []V {
	for len(a) > 0 && len(b) > 0 {
		if cmp(a[0], b[0]) <= 0 {
			dst, a = append(dst, a[0]), a[1:]
		} else {
			dst, b = append(dst, b[0]), b[1:]
		}
	}
	return append(append(dst, a...), b...)
}

// countedViews is storedViews with only what a replay counts of a row not
// yet moved: a column read costs the driver a lock and a call or two, and
// a replay reads a block's row 600,000 times.
const countedViews = `SELECT min_ts, id, data, NULL, NULL FROM view_blocks WHERE ` + blockTimes + `
	UNION ALL SELECT v.ts, v.id, NULL, v.product, v.session_id FROM view_events v WHERE v.ts >= ? AND v.ts < ?
	ORDER BY 1, 2`

// EachCountedView is EachViewInTime for a replay, which counts every
// view of [from, to) and reads nothing of a view but its product, time and
// session: it calls fn with the views in the same order, a batch at a
// time (fn must not keep the slice), their sessions hashed by hash
// (viewblock.CountDecoder, which returns 0 for none), and decodes no
// string. With rawBlobs, q is database/sql's, and a block's bytes are
// scanned as sql.RawBytes, the driver's copy, rather than copied again.
func EachCountedView(ctx context.Context, q Queryer, from, to int64, rawBlobs bool, hash func([]byte) uint64, fn func([]svc.CountedView) error) error {
	d := viewblock.CountDecoder{Hash: hash}
	o := timeOrder[viewblock.Counted]{from: from, to: to, key: func(v viewblock.Counted) (int64, int64) { return v.TS, v.ID }}
	var vs []viewblock.Counted
	var out []svc.CountedView
	emit := func(vs []viewblock.Counted) error {
		out = out[:0]
		for _, v := range vs {
			out = append(out, svc.CountedView{Product: svc.ProductRef(v.Product), UnixMilli: v.TS, Session: v.Session})
		}
		return fn(out)
	}
	var lo, id int64
	var data []byte
	var raw sql.RawBytes
	var product sql.NullInt64
	var session sql.NullString
	dest := []any{&lo, &id, &data, &product, &session}
	if rawBlobs {
		dest[2] = &raw
	}
	err := Each(ctx, q, func(r Row) error {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		if rawBlobs {
			data = raw
		}
		vs = vs[:0]
		if data == nil { // a row not yet moved
			c := viewblock.Counted{ID: id, Product: product.Int64, TS: lo}
			if session.Valid {
				c.Session = hash([]byte(session.String))
			}
			vs = append(vs, c)
		} else {
			var err error
			if vs, err = d.Decode(vs, data); err != nil {
				return err
			}
		}
		if err := o.emitBefore(lo, emit); err != nil {
			return err
		}
		o.add(vs, nil)
		return nil
	}, countedViews, from, to, from, to)
	if err != nil {
		return err
	}
	return o.emitBefore(to, emit)
}

// viewProduct is what a view read back shows of its product.
type viewProduct struct {
	id              string
	sku, title, url *string
}

// productsOf reads the product ids and attributes of the refs.
func (d *Dialect) productsOf(ctx context.Context, q Queryer, refs map[int64]viewProduct) error {
	ids := make([]int64, 0, len(refs))
	for r := range refs {
		ids = append(ids, r)
	}
	if len(ids) == 0 {
		return nil
	}
	return Each(ctx, q, func(r Row) error {
		var ref int64
		var p viewProduct
		if err := r.Scan(&ref, &p.id, &p.sku, &p.title, &p.url); err != nil {
			return err
		}
		refs[ref] = p
		return nil
	}, "SELECT id, product_id, sku, title, url FROM products WHERE "+d.InList("id"), d.Int64s(ids))
}

// viewRowOf is a block's view as a ViewRow, which gives the event.
func viewRowOf(v *viewblock.View, p viewProduct) *ViewRow {
	r := &ViewRow{time: v.TS, receive: v.ReceivedAt}
	e := &r.v
	e.Meta.EventID, e.Meta.Keyed, e.Meta.Arm = v.EventID, v.Keyed, v.Arm
	e.Product.ProductID, e.Product.SKU, e.Product.Title, e.Product.URL = p.id, p.sku, p.title, p.url
	if v.HasGiven {
		r.given = &v.Given
	}
	opt := func(s string, ok bool) *string {
		if !ok {
			return nil
		}
		return &s
	}
	e.Context.SessionID, e.Context.Country, e.Context.Locale = opt(v.Session, v.HasSession), opt(v.Country, v.HasCountry), opt(v.Locale, v.HasLocale)
	return r
}

// ExportBlockViews emits the brand's views, oldest first (ExportBrand's
// views).
func (d *Dialect) ExportBlockViews(ctx context.Context, q Queryer, brandID string, emit func(svc.ExportedEvent) error) error {
	products := map[int64]viewProduct{}
	err := Each(ctx, q, func(r Row) error {
		var ref int64
		var p viewProduct
		if err := r.Scan(&ref, &p.id, &p.sku, &p.title, &p.url); err != nil {
			return err
		}
		products[ref] = p
		return nil
	}, "SELECT id, product_id, sku, title, url FROM products WHERE brand_id = ?", brandID)
	if err != nil {
		return err
	}
	return EachViewInTime(ctx, q, minTime, maxTime, viewblock.Decode, func(v *viewblock.View) bool { return v.Brand == brandID },
		func(v *viewblock.View) error {
			return emit(svc.ExportedEvent{View: viewRowOf(v, products[v.Product]).Event(brandID)})
		})
}

// The bounds of every stored time.
const (
	minTime = -1 << 62
	maxTime = 1 << 62
)

// blockViewsAfter adds to the feed's read the views of the ids (lo, hi],
// each its id as its key (SQLite's feed).
func (d *Dialect) blockViewsAfter(ctx context.Context, q Queryer, lo, hi int64, out *FeedRead) error {
	var views []viewblock.View
	err := EachBlock(ctx, q, "last > ? AND id <= ?", "id", []any{lo, hi}, func(b *Block) error {
		for i := range b.Views {
			if id := b.Views[i].ID; id > lo && id <= hi {
				views = append(views, b.Views[i])
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return d.addBlockViews(ctx, q, views, nil, out)
}

// blockViewsWhere adds to the feed's read every view of the blocks (of
// alias b) that the condition selects, each with its block's key
// (PostgreSQL's feed: the blocks whose transaction is new to the cursor).
func (d *Dialect) blockViewsWhere(ctx context.Context, q Queryer, key, cond string, args []any, out *FeedRead) error {
	var views []viewblock.View
	var keys []int64
	err := Each(ctx, q, func(r Row) error {
		var k int64
		var data []byte
		if err := r.Scan(&k, &data); err != nil {
			return err
		}
		n := len(views)
		var err error
		if views, err = viewblock.Decode(views, data); err != nil {
			return err
		}
		for range views[n:] {
			keys = append(keys, k)
		}
		return nil
	}, "SELECT "+key+", b.data FROM view_blocks b WHERE "+cond+" ORDER BY b.id", args...)
	if err != nil {
		return err
	}
	return d.addBlockViews(ctx, q, views, keys, out)
}

// addBlockViews adds the views to the feed's read, with their products'
// attributes read in one query, each with its key: keys[i], or its id
// where keys is nil.
func (d *Dialect) addBlockViews(ctx context.Context, q Queryer, views []viewblock.View, keys []int64, out *FeedRead) error {
	products := make(map[int64]viewProduct)
	for i := range views {
		products[views[i].Product] = viewProduct{}
	}
	if err := d.productsOf(ctx, q, products); err != nil {
		return err
	}
	for i := range views {
		v := &views[i]
		key := v.ID
		if keys != nil {
			key = keys[i]
		}
		out.add(viewRowOf(v, products[v.Product]).Write(v.Brand, svc.ProductRef(v.Product)), FeedTableViews, key)
	}
	return nil
}

// BlockHourSessions calls fn with the session of each view of the key's
// hour (rollup.Tx's HourSessions), of blocks and of rows not yet moved.
func BlockHourSessions(ctx context.Context, q Queryer, k rollup.Key, fn func(string)) error {
	return eachStored(ctx, q, k.Hour, k.Hour+rollup.Hour, viewblock.DecodeCounted, func(_ int64, vs []viewblock.View) error {
		for i := range vs {
			v := &vs[i]
			if v.TS >= k.Hour && v.TS < k.Hour+rollup.Hour && v.Brand == k.Brand && v.HasSession && v.Session != "" &&
				(k.Product == 0 || v.Product == k.Product) {
				fn(v.Session)
			}
		}
		return nil
	})
}

// MovedViewColumns are the columns, of view_events v left-joined to
// products p, of a row that a store moves into a block (ScanMovedView).
const MovedViewColumns = `v.id, v.event_id, coalesce(p.brand_id, ''), v.product, v.ts, v.given_ts, v.received_at,
	v.session_id, v.country, v.locale, v.keyed, v.arm`

// ScanMovedView scans a row of MovedViewColumns, then into extra.
func ScanMovedView(r Row, extra ...any) (viewblock.View, error) {
	var m movedRow
	err := r.Scan(append(m.dest(), extra...)...)
	return m.view(), err
}

// movedRow is where a scan of MovedViewColumns goes: every column may be
// NULL, as where storedViews reads a block.
type movedRow struct {
	id, product, ts, given, received         *int64
	eventID, brand, session, country, locale *string
	arm                                      *string
	keyed                                    *bool
}

func (m *movedRow) dest() []any {
	return []any{&m.id, &m.eventID, &m.brand, &m.product, &m.ts, &m.given, &m.received, &m.session, &m.country, &m.locale, &m.keyed, &m.arm}
}

// view is the row's view.
func (m *movedRow) view() viewblock.View {
	var v viewblock.View
	val := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	str := func(p *string) (string, bool) {
		if p == nil {
			return "", false
		}
		return *p, true
	}
	v.ID, v.Product, v.TS, v.ReceivedAt = val(m.id), val(m.product), val(m.ts), val(m.received)
	v.Given, v.HasGiven = val(m.given), m.given != nil
	v.EventID, _ = str(m.eventID)
	v.Brand, _ = str(m.brand)
	v.Arm, _ = str(m.arm)
	v.Session, v.HasSession = str(m.session)
	v.Country, v.HasCountry = str(m.country)
	v.Locale, v.HasLocale = str(m.locale)
	v.Keyed = m.keyed != nil && *m.keyed
	return v
}

// MoveViewRows runs batch, which moves rows of view_events into blocks
// in a transaction of its own and returns how many, until it moves none,
// logging the progress over the left rows.
func MoveViewRows(left int64, batch func() (int, error)) error {
	log := slog.Default()
	log.Info("moving stored views into blocks", "views", left)
	start, moved := time.Now(), int64(0)
	for {
		n, err := batch()
		if err != nil {
			return fmt.Errorf("moving views into blocks: %w", err)
		}
		if n == 0 {
			return nil
		}
		moved += int64(n)
		log.Info("moved views into blocks", "moved", moved, "of", left, "elapsed", time.Since(start).Round(time.Millisecond))
	}
}
