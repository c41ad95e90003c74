package postgres

import (
	"context"
	"errors"
	"fmt"
	"github.com/svc-project/svc/internal/sqlstore"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/viewblock"
)

// Views are stored in blocks, as in the SQLite store (docs/storage.md,
// Views in blocks): a batch's views go in one row of view_blocks, encoded
// by internal/viewblock. The change feed reads a block by its txid as it
// read a view's row. Positions are a block's own order: this store keeps
// no event log.

const qBlockInsert = "INSERT INTO view_blocks (min_ts, max_ts, n, data) VALUES ($1, $2, $3, $4)"

// blockView is a view as a block keeps it.
func blockView(v *svc.ViewEvent, ref svc.ProductRef) viewblock.View {
	m := &v.Meta
	b := viewblock.View{EventID: m.EventID, Brand: v.BrandID, Product: int64(ref), TS: millis(m.Time),
		ReceivedAt: millis(m.ReceivedAt), Keyed: m.Keyed, Arm: m.Arm}
	if m.GivenTime != nil {
		b.HasGiven, b.GivenTS = true, millis(*m.GivenTime)
	}
	if c := v.Context.SessionID; c != nil {
		b.HasSession, b.Session = true, *c
	}
	if c := v.Context.Country; c != nil {
		b.HasCountry, b.Country = true, *c
	}
	if c := v.Context.Locale; c != nil {
		b.HasLocale, b.Locale = true, *c
	}
	return b
}

// queueBlock queues the insert of views as one block.
func queueBlock(q *pgx.Batch, views []viewblock.View) {
	if len(views) == 0 {
		return
	}
	for i := range views {
		views[i].Pos = int64(i + 1)
	}
	var enc viewblock.Encoder
	lo, hi := tsRange(views)
	q.Queue(qBlockInsert, lo, hi, len(views), enc.Encode(views))
}

func tsRange(views []viewblock.View) (lo, hi int64) {
	lo, hi = views[0].TS, views[0].TS
	for _, v := range views[1:] {
		lo, hi = min(lo, v.TS), max(hi, v.TS)
	}
	return lo, hi
}

// eachBlock calls fn with the first column (an id, a time or a txid) and
// the data of each block the query selects.
func eachBlock(ctx context.Context, q querier, fn func(key int64, data []byte) error, query string, args ...any) error {
	return eachRow(ctx, q, func(rows pgx.Rows) error {
		var key int64
		var data []byte
		if err := rows.Scan(&key, &data); err != nil {
			return err
		}
		return fn(key, data)
	}, query, args...)
}

// sortedViews calls fn with the views the query selects in time order;
// the query selects the blocks' min_ts and data in the order of min_ts.
func sortedViews(ctx context.Context, q querier, cols viewblock.Columns, fn func(*viewblock.View) error, query string, args ...any) error {
	var dec viewblock.Decoder
	var buf []viewblock.View
	sorted := viewblock.Sorted{Emit: fn}
	err := eachBlock(ctx, q, func(minTS int64, data []byte) error {
		if err := sorted.Until(minTS); err != nil {
			return err
		}
		var err error
		if buf, err = dec.Decode(data, buf[:0], cols); err != nil {
			return fmt.Errorf("postgres: a view block: %w", err)
		}
		sorted.Add(buf)
		return nil
	}, query, args...)
	if err != nil {
		return err
	}
	return sorted.Flush()
}

func views(ctx context.Context, q querier, since time.Time, fn func(svc.ViewRecord) error) error {
	from := millis(since)
	return sortedViews(ctx, q, viewblock.NoIDs|viewblock.NoDetail, func(v *viewblock.View) error {
		if v.TS < from {
			return nil
		}
		return fn(svc.ViewRecord{Product: svc.ProductRef(v.Product), Time: fromMillis(v.TS), SessionID: v.Session})
	}, "SELECT min_ts, data FROM view_blocks WHERE max_ts >= $1 ORDER BY min_ts", from)
}

// viewRowOf sets r from a block's view and its product.
func viewRowOf(r *sqlstore.ViewRow, v *viewblock.View, p svc.ViewProduct) {
	var given *int64
	if v.HasGiven {
		given = &v.GivenTS
	}
	r.StoredView(v.EventID, p, v.TS, v.ReceivedAt, given, opt(v.Session, v.HasSession), opt(v.Country, v.HasCountry),
		opt(v.Locale, v.HasLocale), v.Keyed, v.Arm)
}

func opt(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}

func scanViewProduct(rows pgx.Rows, refs map[int64]*svc.ViewProduct) error {
	var ref int64
	var p svc.ViewProduct
	if err := rows.Scan(&ref, &p.ProductID, &p.SKU, &p.Title, &p.URL); err != nil {
		return err
	}
	refs[ref] = &p
	return nil
}

// feedViews reads the views of the blocks committed after the snapshot as
// the Writes Append answered, each with its block's txid.
func feedViews(ctx context.Context, tx pgx.Tx, after svc.FeedCursor, emit func(txid int64, w *svc.Write)) error {
	type view struct {
		txid int64
		v    viewblock.View
	}
	var dec viewblock.Decoder
	var buf []viewblock.View
	var all []view
	refs := map[int64]*svc.ViewProduct{}
	err := eachBlock(ctx, tx, func(txid int64, data []byte) error {
		var err error
		if buf, err = dec.Decode(data, buf[:0], viewblock.All); err != nil {
			return fmt.Errorf("postgres: a view block: %w", err)
		}
		for _, v := range buf {
			all = append(all, view{txid, v})
			refs[v.Product] = nil
		}
		return nil
	}, "SELECT v.txid::text::bigint, v.data FROM view_blocks v WHERE "+newSince("v")+" ORDER BY v.id", after)
	if err != nil || len(all) == 0 {
		return err
	}
	list := make([]int64, 0, len(refs))
	for ref := range refs {
		list = append(list, ref)
	}
	err = eachRow(ctx, tx, func(rows pgx.Rows) error { return scanViewProduct(rows, refs) },
		"SELECT id, product_id, sku, title, url FROM products WHERE id = ANY($1)", list)
	if err != nil {
		return err
	}
	for i := range all {
		v := &all[i].v
		p := refs[v.Product]
		if p == nil {
			return fmt.Errorf("postgres: a view of product %d, which is not stored", v.Product)
		}
		var r sqlstore.ViewRow
		viewRowOf(&r, v, *p)
		emit(all[i].txid, r.Write(v.Brand, svc.ProductRef(v.Product)))
	}
	return nil
}

// exportViews emits the brand's views, oldest first, with their products'
// latest attributes. Blocks without the brand's id are skipped unread.
func exportViews(ctx context.Context, tx pgx.Tx, brandID string, emit func(svc.ExportedEvent) error) error {
	products := map[int64]*svc.ViewProduct{}
	err := eachRow(ctx, tx, func(rows pgx.Rows) error { return scanViewProduct(rows, products) },
		"SELECT id, product_id, sku, title, url FROM products WHERE brand_id = $1", brandID)
	if err != nil {
		return err
	}
	return sortedViews(ctx, tx, viewblock.All, func(v *viewblock.View) error {
		p := products[v.Product]
		if v.Brand != brandID || p == nil {
			return nil
		}
		var r sqlstore.ViewRow
		viewRowOf(&r, v, *p)
		return emit(svc.ExportedEvent{View: r.Event(brandID)})
	}, "SELECT min_ts, data FROM view_blocks WHERE position(convert_to($1, 'UTF8') in data) > 0 ORDER BY min_ts", brandID)
}

// rewriteBlock keeps the block's views that keep says to, rewriting or
// deleting its row, and returns the views it removed, appended to gone.
func rewriteBlock(ctx context.Context, tx pgx.Tx, id int64, data []byte, keep func(*viewblock.View) bool, gone []viewblock.View) ([]viewblock.View, error) {
	var dec viewblock.Decoder
	views, err := dec.Decode(data, nil, viewblock.All)
	if err != nil {
		return gone, fmt.Errorf("postgres: view block %d: %w", id, err)
	}
	kept := views[:0:0]
	for _, v := range views {
		if keep(&v) {
			kept = append(kept, v)
		} else {
			gone = append(gone, v)
		}
	}
	switch {
	case len(kept) == len(views):
		return gone, nil
	case len(kept) == 0:
		_, err = tx.Exec(ctx, "DELETE FROM view_blocks WHERE id = $1", id)
	default:
		// The txid stays: the feed took these views when they came.
		var enc viewblock.Encoder
		lo, hi := tsRange(kept)
		_, err = tx.Exec(ctx, "UPDATE view_blocks SET min_ts = $1, max_ts = $2, n = $3, data = $4 WHERE id = $5",
			lo, hi, len(kept), enc.Encode(kept), id)
	}
	return gone, err
}

type block struct {
	id   int64
	data []byte
}

func selectBlocks(ctx context.Context, tx pgx.Tx, query string, args ...any) ([]block, error) {
	var blocks []block
	err := eachBlock(ctx, tx, func(id int64, data []byte) error {
		blocks = append(blocks, block{id, data})
		return nil
	}, query, args...)
	return blocks, err
}

func rollupView(v *viewblock.View) rollup.View {
	return rollup.View{Brand: v.Brand, Product: v.Product, At: v.TS, Session: v.Session, Country: v.Country, Arm: v.Arm}
}

// forgetViews rewrites the blocks that hold views of the brand's session
// without them, adds them to d taken out, and returns how many.
func forgetViews(ctx context.Context, tx pgx.Tx, brandID, sessionID string, d *rollup.Delta) (int64, error) {
	blocks, err := selectBlocks(ctx, tx, `SELECT id, data FROM view_blocks WHERE position(convert_to($1, 'UTF8') in data) > 0
		AND position(convert_to($2, 'UTF8') in data) > 0 ORDER BY id FOR UPDATE`, sessionID, brandID)
	if err != nil {
		return 0, err
	}
	var gone []viewblock.View
	for _, b := range blocks {
		gone, err = rewriteBlock(ctx, tx, b.id, b.data, func(v *viewblock.View) bool {
			return !(v.Brand == brandID && v.HasSession && v.Session == sessionID)
		}, gone)
		if err != nil {
			return 0, err
		}
	}
	if d != nil {
		for i := range gone {
			d.AddView(rollupView(&gone[i]), -1)
		}
	}
	return int64(len(gone)), nil
}

// expireViews removes at most limit views older than before, oldest
// blocks first, skipping blocks another node holds; it adds them to d
// taken out and returns how many.
func expireViews(ctx context.Context, tx pgx.Tx, before int64, limit int, d *rollup.Delta) (int64, error) {
	blocks, err := selectBlocks(ctx, tx, "SELECT id, data FROM view_blocks WHERE min_ts < $1 ORDER BY min_ts LIMIT $2 FOR UPDATE SKIP LOCKED", before, limit)
	if err != nil {
		return 0, err
	}
	var gone []viewblock.View
	for _, b := range blocks {
		left := limit - len(gone)
		if left <= 0 {
			break
		}
		if gone, err = rewriteBlock(ctx, tx, b.id, b.data, func(v *viewblock.View) bool {
			if v.TS >= before || left == 0 {
				return true
			}
			left--
			return false
		}, gone); err != nil {
			return 0, err
		}
	}
	for i := range gone {
		d.AddView(rollupView(&gone[i]), -1)
	}
	return int64(len(gone)), nil
}

// countViewBlocks adds to d, with the sign, the views of [from, to), and
// returns their sessions as the rollups keep them.
func countViewBlocks(ctx context.Context, q querier, d *rollup.Delta, sign, from, to int64) ([]*rollup.Session, error) {
	type key struct{ brand, id string }
	sessions := map[key]*rollup.Session{}
	var dec viewblock.Decoder
	var buf []viewblock.View
	err := eachBlock(ctx, q, func(_ int64, data []byte) error {
		var err error
		if buf, err = dec.Decode(data, buf[:0], viewblock.NoIDs); err != nil {
			return fmt.Errorf("postgres: a view block: %w", err)
		}
		for i := range buf {
			v := &buf[i]
			if v.TS < from || v.TS >= to {
				continue
			}
			d.AddView(rollupView(v), sign)
			if v.Session == "" {
				continue
			}
			k := key{v.Brand, v.Session}
			s := sessions[k]
			switch {
			case s == nil:
				sessions[k] = &rollup.Session{Brand: v.Brand, ID: v.Session, Arm: v.Arm, FirstAt: v.TS, LastAt: v.TS}
			case v.TS < s.FirstAt:
				s.Arm, s.FirstAt = v.Arm, v.TS
			default:
				s.LastAt = max(s.LastAt, v.TS)
			}
		}
		return nil
	}, "SELECT id, data FROM view_blocks WHERE min_ts < $1 AND max_ts >= $2", to, from)
	out := make([]*rollup.Session, 0, len(sessions))
	for _, s := range sessions {
		out = append(out, s)
	}
	return out, err
}

// hourSessions calls fn with the session of every view of the key's hour.
func hourSessions(ctx context.Context, q querier, k rollup.Key, fn func(string)) error {
	var dec viewblock.Decoder
	var buf []viewblock.View
	return eachBlock(ctx, q, func(_ int64, data []byte) error {
		var err error
		if buf, err = dec.Decode(data, buf[:0], viewblock.NoIDs|viewblock.NoDetail); err != nil {
			return fmt.Errorf("postgres: a view block: %w", err)
		}
		for _, v := range buf {
			if v.TS >= k.Hour && v.TS < k.Hour+rollup.Hour && v.Brand == k.Brand && v.Session != "" &&
				(k.Product == 0 || v.Product == k.Product) {
				fn(v.Session)
			}
		}
		return nil
	}, "SELECT id, data FROM view_blocks WHERE min_ts < $1 AND max_ts >= $2", k.Hour+rollup.Hour, k.Hour)
}

// migrateViewRows moves the views of a database written before blocks
// (view_events) into blocks, a slice a transaction, and drops the table
// once empty: a start that stops half-way resumes where the last slice
// committed, and nodes starting together share the slices. The blocks
// take txid 0: the change feed handed their views over when they came.
func (s *Store) migrateViewRows(ctx context.Context, log *slog.Logger) error {
	var exists bool
	if err := s.pool.QueryRow(ctx, "SELECT to_regclass('view_events') IS NOT NULL").Scan(&exists); err != nil || !exists {
		return err
	}
	var total int64
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM view_events").Scan(&total); err != nil {
		return err
	}
	if total > 0 {
		log.Info("views: moving them into blocks, once (docs/storage.md)", "views", total)
	}
	start := time.Now()
	var done int64
	const slice, perBlock = 65536, 1024
	var enc viewblock.Encoder
	for {
		var n int
		err := s.inTx(ctx, func(tx pgx.Tx) error {
			var views []viewblock.View
			var ids []int64
			err := eachRow(ctx, tx, func(rows pgx.Rows) error {
				var v viewblock.View
				var given pgtype.Int8
				var session, country, locale pgtype.Text
				if err := rows.Scan(&v.Pos, &v.EventID, &v.Brand, &v.Product, &v.TS, &given, &v.ReceivedAt,
					&session, &country, &locale, &v.Keyed, &v.Arm); err != nil {
					return err
				}
				v.GivenTS, v.HasGiven = given.Int64, given.Valid
				v.Session, v.HasSession = session.String, session.Valid
				v.Country, v.HasCountry = country.String, country.Valid
				v.Locale, v.HasLocale = locale.String, locale.Valid
				views, ids = append(views, v), append(ids, v.Pos)
				return nil
			}, `SELECT v.id, v.event_id, p.brand_id, v.product, v.ts, v.given_ts, v.received_at, v.session_id, v.country, v.locale, v.keyed, v.arm
				FROM view_events v JOIN products p ON p.id = v.product ORDER BY v.id LIMIT $1 FOR UPDATE OF v SKIP LOCKED`, slice)
			if err != nil {
				return err
			}
			n = len(views)
			if n == 0 {
				var left bool
				if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM view_events)").Scan(&left); err != nil || left {
					return errors.Join(err, errOthersMoving)
				}
				_, err := tx.Exec(ctx, "DROP TABLE view_events")
				return err
			}
			for rest := views; len(rest) > 0; {
				b := rest[:min(perBlock, len(rest))]
				rest = rest[len(b):]
				lo, hi := tsRange(b)
				if _, err := tx.Exec(ctx, "INSERT INTO view_blocks (min_ts, max_ts, n, data, txid) VALUES ($1, $2, $3, $4, '0')",
					lo, hi, len(b), enc.Encode(b)); err != nil {
					return err
				}
			}
			_, err = tx.Exec(ctx, "DELETE FROM view_events WHERE id = ANY($1)", ids)
			return err
		})
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
			break // another node moved the last views and dropped the table
		}
		if errors.Is(err, errOthersMoving) {
			time.Sleep(100 * time.Millisecond) // another node holds the last slices
			continue
		}
		if err != nil {
			return fmt.Errorf("postgres: moving views into blocks: %w (the next start resumes)", err)
		}
		if n == 0 {
			break
		}
		done += int64(n)
		log.Info("views: moved into blocks", "done", done, "of", total)
	}
	if total > 0 {
		log.Info("views: moved into blocks", "views", done, "took", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

var errOthersMoving = errors.New("postgres: another node is moving the last views")

// moveViews gives the brand's views of product from to product into, a
// merge's part of the view blocks (svc.NameStore.MergeProducts).
func moveViews(ctx context.Context, tx pgx.Tx, brandID string, from, into int64) error {
	blocks, err := selectBlocks(ctx, tx, "SELECT id, data FROM view_blocks WHERE position(convert_to($1, 'UTF8') in data) > 0 ORDER BY id FOR UPDATE", brandID)
	if err != nil {
		return err
	}
	for _, b := range blocks {
		var dec viewblock.Decoder
		views, err := dec.Decode(b.data, nil, viewblock.All)
		if err != nil {
			return fmt.Errorf("postgres: view block %d: %w", b.id, err)
		}
		moved := false
		for i := range views {
			if views[i].Brand == brandID && views[i].Product == from {
				views[i].Product, moved = into, true
			}
		}
		if moved {
			var enc viewblock.Encoder
			if _, err := tx.Exec(ctx, "UPDATE view_blocks SET data = $1 WHERE id = $2", enc.Encode(views), b.id); err != nil {
				return err
			}
		}
	}
	return nil
}
