package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/svc-project/svc/internal/sqlstore"
	"log/slog"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/viewblock"
)

// Views are stored in blocks (docs/storage.md, Views in blocks): a write
// transaction's views go in one row of view_blocks, encoded by
// internal/viewblock, in place of a row and an index entry a view. Each
// view keeps its event id and its position in the event log (log.go):
// a new block's views take the positions after the largest block id, and
// the block's id is its last view's position. An erasure or an expiry
// rewrites a block without the views it removes; the others keep their
// positions.

const (
	qNextViewPos = "SELECT coalesce(max(id), 0) FROM view_blocks"
	qBlockInsert = "INSERT INTO view_blocks (id, min_ts, max_ts, n, data) VALUES (?, ?, ?, ?, ?)"
)

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

// writeBlock stores views as one new block, numbering them after every
// stored view.
func (p *preparedTx) writeBlock(ctx context.Context, enc *viewblock.Encoder, views []viewblock.View) error {
	if len(views) == 0 {
		return nil
	}
	var last int64
	if err := p.QueryRowContext(ctx, qNextViewPos).Scan(&last); err != nil {
		return err
	}
	for i := range views {
		views[i].Pos = last + 1 + int64(i)
	}
	lo, hi := tsRange(views)
	_, err := p.ExecContext(ctx, qBlockInsert, last+int64(len(views)), lo, hi, len(views), enc.Encode(views))
	return err
}

func tsRange(views []viewblock.View) (lo, hi int64) {
	lo, hi = views[0].TS, views[0].TS
	for _, v := range views[1:] {
		lo, hi = min(lo, v.TS), max(hi, v.TS)
	}
	return lo, hi
}

// eachBlock calls fn with the id and the data of each block the query
// selects (its first two columns).
func eachBlock(ctx context.Context, db queryer, fn func(id int64, data []byte) error, query string, args ...any) error {
	return eachRowOf(ctx, db, func(rows *sql.Rows) error {
		var id int64
		var data sql.RawBytes
		if err := rows.Scan(&id, &data); err != nil {
			return err
		}
		return fn(id, data)
	}, query, args...)
}

// rewriteBlock keeps the block's views that keep says to, rewriting or
// deleting its row, and returns the views it removed, appended to gone.
func rewriteBlock(ctx context.Context, tx *sql.Tx, id int64, data []byte, keep func(*viewblock.View) bool, gone []viewblock.View) ([]viewblock.View, error) {
	var dec viewblock.Decoder
	views, err := dec.Decode(data, nil, viewblock.All)
	if err != nil {
		return gone, fmt.Errorf("sqlite: view block %d: %w", id, err)
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
		_, err = tx.ExecContext(ctx, "DELETE FROM view_blocks WHERE id = ?", id)
	default:
		var enc viewblock.Encoder
		lo, hi := tsRange(kept)
		_, err = tx.ExecContext(ctx, "UPDATE view_blocks SET min_ts = ?, max_ts = ?, n = ?, data = ? WHERE id = ?",
			lo, hi, len(kept), enc.Encode(kept), id)
	}
	return gone, err
}

// rollupView is a view as the rollups count it.
func rollupView(v *viewblock.View) rollup.View {
	return rollup.View{Brand: v.Brand, Product: v.Product, At: v.TS, Session: v.Session, Country: v.Country, Arm: v.Arm}
}

// sortedViews calls fn with the views the query selects in time order,
// then position; the query selects the blocks' min_ts and data in the
// order of min_ts.
func sortedViews(ctx context.Context, db queryer, cols viewblock.Columns, fn func(*viewblock.View) error, query string, args ...any) error {
	var dec viewblock.Decoder
	var buf []viewblock.View
	sorted := viewblock.Sorted{Emit: fn}
	err := eachBlock(ctx, db, func(minTS int64, data []byte) error {
		if err := sorted.Until(minTS); err != nil {
			return err
		}
		var err error
		buf, err = dec.Decode(data, buf[:0], cols)
		if err != nil {
			return fmt.Errorf("sqlite: a view block: %w", err)
		}
		sorted.Add(buf)
		return nil
	}, query, args...)
	if err != nil {
		return err
	}
	return sorted.Flush()
}

// Views calls fn for every view at or after since, oldest first.
func (r reads) Views(ctx context.Context, since time.Time, fn func(svc.ViewRecord) error) error {
	from := millis(since)
	return sortedViews(ctx, r.db, viewblock.NoIDs|viewblock.NoDetail, func(v *viewblock.View) error {
		if v.TS < from {
			return nil
		}
		return fn(svc.ViewRecord{Product: svc.ProductRef(v.Product), Time: fromMillis(v.TS), SessionID: v.Session})
	}, "SELECT min_ts, data FROM view_blocks WHERE max_ts >= ? ORDER BY min_ts", from)
}

// ViewsAfter calls fn for every view with a position after after and a
// time at or after since, in position order.
func (r reads) ViewsAfter(ctx context.Context, after int64, since time.Time, fn func(int64, svc.ViewRecord) error) error {
	from := millis(since)
	var dec viewblock.Decoder
	var buf []viewblock.View
	return eachBlock(ctx, r.db, func(_ int64, data []byte) error {
		var err error
		if buf, err = dec.Decode(data, buf[:0], viewblock.NoIDs|viewblock.NoDetail); err != nil {
			return fmt.Errorf("sqlite: a view block: %w", err)
		}
		for _, v := range buf {
			if v.Pos > after && v.TS >= from {
				if err := fn(v.Pos, svc.ViewRecord{Product: svc.ProductRef(v.Product), Time: fromMillis(v.TS), SessionID: v.Session}); err != nil {
					return err
				}
			}
		}
		return nil
	}, "SELECT id, data FROM view_blocks WHERE id > ? ORDER BY id", after)
}

// newestView returns the position and event id of the newest stored view.
func newestView(ctx context.Context, db queryer, pos *int64, eventID *string) error {
	var data []byte
	var id int64
	err := db.QueryRowContext(ctx, "SELECT id, data FROM view_blocks ORDER BY id DESC LIMIT 1").Scan(&id, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	var dec viewblock.Decoder
	views, err := dec.Decode(data, nil, viewblock.NoDetail)
	if err != nil || len(views) == 0 {
		return fmt.Errorf("sqlite: view block %d: %w", id, errors.Join(err, viewblock.ErrCorrupt))
	}
	*pos, *eventID = views[len(views)-1].Pos, views[len(views)-1].EventID
	return nil
}

// viewAt returns the event id of the view at a position, "" when none is.
func viewAt(ctx context.Context, db queryer, pos int64) (string, error) {
	var data []byte
	err := db.QueryRowContext(ctx, "SELECT data FROM view_blocks WHERE id >= ? ORDER BY id LIMIT 1", pos).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var dec viewblock.Decoder
	views, err := dec.Decode(data, nil, viewblock.NoDetail)
	if err != nil {
		return "", fmt.Errorf("sqlite: a view block: %w", err)
	}
	for _, v := range views {
		if v.Pos == pos {
			return v.EventID, nil
		}
	}
	return "", nil
}

// productAttrs reads the id and attributes of products by ref, for views
// read back as events.
func productAttrs(ctx context.Context, db queryer, refs map[int64]*svc.ViewProduct) error {
	if len(refs) == 0 {
		return nil
	}
	list := make([]int64, 0, len(refs))
	for ref := range refs {
		list = append(list, ref)
	}
	j, _ := json.Marshal(list)
	return eachRowOf(ctx, db, func(rows *sql.Rows) error {
		var ref int64
		var p svc.ViewProduct
		if err := rows.Scan(&ref, &p.ProductID, &p.SKU, &p.Title, &p.URL); err != nil {
			return err
		}
		*refs[ref] = p
		return nil
	}, "SELECT id, product_id, sku, title, url FROM products WHERE id IN (SELECT value FROM json_each(?))", string(j))
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

// feedViews reads the views with positions in (lo, hi] as the Writes
// Append answered, with their positions.
func feedViews(ctx context.Context, tx *sql.Tx, lo, hi int64, emit func(pos int64, w *svc.Write)) error {
	var dec viewblock.Decoder
	var views []viewblock.View
	err := eachBlock(ctx, tx, func(_ int64, data []byte) error {
		var err error
		views, err = dec.Decode(data, views, viewblock.All)
		return err
	}, "SELECT id, data FROM view_blocks WHERE id > ? AND id <= ? ORDER BY id", lo, hi)
	if err != nil {
		return err
	}
	products := map[int64]*svc.ViewProduct{}
	for _, v := range views {
		if products[v.Product] == nil {
			products[v.Product] = &svc.ViewProduct{}
		}
	}
	if err := productAttrs(ctx, tx, products); err != nil {
		return err
	}
	for i := range views {
		v := &views[i]
		if v.Pos <= lo || v.Pos > hi {
			continue
		}
		var r sqlstore.ViewRow
		viewRowOf(&r, v, *products[v.Product])
		emit(v.Pos, r.Write(v.Brand, svc.ProductRef(v.Product)))
	}
	return nil
}

// exportViews emits the brand's views, oldest first, with their products'
// latest attributes. Blocks without the brand's id are skipped unread.
func (s *Store) exportViews(ctx context.Context, brandID string, emit func(svc.ExportedEvent) error) error {
	products := map[int64]*svc.ViewProduct{}
	err := s.eachRow(ctx, func(rows *sql.Rows) error {
		var ref int64
		var p svc.ViewProduct
		if err := rows.Scan(&ref, &p.ProductID, &p.SKU, &p.Title, &p.URL); err != nil {
			return err
		}
		products[ref] = &p
		return nil
	}, "SELECT id, product_id, sku, title, url FROM products WHERE brand_id = ?", brandID)
	if err != nil {
		return err
	}
	return sortedViews(ctx, s.r, viewblock.All, func(v *viewblock.View) error {
		p := products[v.Product]
		if v.Brand != brandID || p == nil {
			return nil
		}
		var r sqlstore.ViewRow
		viewRowOf(&r, v, *p)
		return emit(svc.ExportedEvent{View: r.Event(brandID)})
	}, "SELECT min_ts, data FROM view_blocks WHERE instr(data, CAST(? AS BLOB)) > 0 ORDER BY min_ts", brandID)
}

// forgetViews rewrites the blocks that hold views of the brand's session
// without them, and adds them to d taken out. It returns how many it
// removed.
func forgetViews(ctx context.Context, tx *sql.Tx, brandID, sessionID string, d *rollup.Delta) (int64, error) {
	type block struct {
		id   int64
		data []byte
	}
	var blocks []block
	err := eachBlock(ctx, tx, func(id int64, data []byte) error {
		blocks = append(blocks, block{id, append([]byte(nil), data...)})
		return nil
	}, "SELECT id, data FROM view_blocks WHERE instr(data, CAST(? AS BLOB)) > 0 AND instr(data, CAST(? AS BLOB)) > 0", sessionID, brandID)
	if err != nil {
		return 0, err
	}
	folded, err := foldedUpTo(ctx, tx)
	if err != nil {
		return 0, err
	}
	var gone []viewblock.View
	var n int64
	for _, b := range blocks {
		was := len(gone)
		gone, err = rewriteBlock(ctx, tx, b.id, b.data, func(v *viewblock.View) bool {
			return !(v.Brand == brandID && v.HasSession && v.Session == sessionID)
		}, gone)
		if err != nil {
			return 0, err
		}
		n += int64(len(gone) - was)
		if b.id > folded {
			gone = gone[:was] // not in the rollups yet
		}
	}
	if d != nil {
		for i := range gone {
			d.AddView(rollupView(&gone[i]), -1)
		}
	}
	return n, nil
}

// expireViews removes the views older than before from at most limit
// blocks, oldest first: whole blocks, and the older part of a block that
// spans before. It adds them to d taken out and returns how many.
func expireViews(ctx context.Context, tx *sql.Tx, before int64, limit int, d *rollup.Delta) (int64, error) {
	type block struct {
		id   int64
		data []byte
	}
	var blocks []block
	err := eachBlock(ctx, tx, func(id int64, data []byte) error {
		blocks = append(blocks, block{id, append([]byte(nil), data...)})
		return nil
	}, "SELECT id, data FROM view_blocks WHERE min_ts < ? ORDER BY min_ts LIMIT ?", before, limit)
	if err != nil {
		return 0, err
	}
	folded, err := foldedUpTo(ctx, tx)
	if err != nil {
		return 0, err
	}
	var gone []viewblock.View
	var n int
	for _, b := range blocks {
		left := limit - n // a call removes at most limit views
		if left <= 0 {
			break
		}
		was := len(gone)
		if gone, err = rewriteBlock(ctx, tx, b.id, b.data, func(v *viewblock.View) bool {
			if v.TS >= before || left == 0 {
				return true
			}
			left--
			return false
		}, gone); err != nil {
			return 0, err
		}
		n += len(gone) - was
		if b.id > folded {
			gone = gone[:was] // not in the rollups yet
		}
	}
	for i := range gone {
		d.AddView(rollupView(&gone[i]), -1)
	}
	return int64(n), nil
}

// countViewBlocks adds to d, with the sign, the views of [from, to), and
// returns their sessions as the rollups keep them (the arm of a session's
// first view, its first and last times).
func countViewBlocks(ctx context.Context, db queryer, d *rollup.Delta, sign, from, to int64) ([]*rollup.Session, error) {
	type key struct{ brand, id string }
	sessions := map[key]*rollup.Session{}
	var dec viewblock.Decoder
	var buf []viewblock.View
	err := eachBlock(ctx, db, func(_ int64, data []byte) error {
		var err error
		if buf, err = dec.Decode(data, buf[:0], viewblock.NoIDs); err != nil {
			return fmt.Errorf("sqlite: a view block: %w", err)
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
	}, "SELECT min_ts, data FROM view_blocks WHERE min_ts < ? AND max_ts >= ? AND id <= (SELECT folded FROM view_rollups)", to, from)
	out := make([]*rollup.Session, 0, len(sessions))
	for _, s := range sessions {
		out = append(out, s)
	}
	return out, err
}

// hourSessions calls fn with the session of every view of the key's hour
// (of its brand, or of its product).
func hourSessions(ctx context.Context, db queryer, k rollup.Key, fn func(string)) error {
	var dec viewblock.Decoder
	var buf []viewblock.View
	return eachBlock(ctx, db, func(_ int64, data []byte) error {
		var err error
		if buf, err = dec.Decode(data, buf[:0], viewblock.NoIDs|viewblock.NoDetail); err != nil {
			return fmt.Errorf("sqlite: a view block: %w", err)
		}
		for _, v := range buf {
			if v.TS >= k.Hour && v.TS < k.Hour+rollup.Hour && v.Brand == k.Brand && v.Session != "" &&
				(k.Product == 0 || v.Product == k.Product) {
				fn(v.Session)
			}
		}
		return nil
	}, "SELECT id, data FROM view_blocks WHERE min_ts < ? AND max_ts >= ? AND id <= (SELECT folded FROM view_rollups)", k.Hour+rollup.Hour, k.Hour)
}

// migrateViewRows moves the views of a store written before blocks
// (view_events) into blocks, a slice a transaction, oldest first, and
// drops the table once empty: a start that stops half-way resumes where
// the last slice committed. Each view keeps its id as its position, so
// that a saved snapshot's log position stays valid.
func (s *Store) migrateViewRows(ctx context.Context, log *slog.Logger) error {
	var exists int
	if err := s.w.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'view_events'").Scan(&exists); err != nil || exists == 0 {
		return err
	}
	var total int64
	if err := s.w.QueryRowContext(ctx, "SELECT count(*) FROM view_events").Scan(&total); err != nil {
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
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			var views []viewblock.View
			err := eachRowOf(ctx, tx, func(rows *sql.Rows) error {
				var v viewblock.View
				var given sql.NullInt64
				var session, country, locale sql.NullString
				if err := rows.Scan(&v.Pos, &v.EventID, &v.Brand, &v.Product, &v.TS, &given, &v.ReceivedAt,
					&session, &country, &locale, &v.Keyed, &v.Arm); err != nil {
					return err
				}
				v.GivenTS, v.HasGiven = given.Int64, given.Valid
				v.Session, v.HasSession = session.String, session.Valid
				v.Country, v.HasCountry = country.String, country.Valid
				v.Locale, v.HasLocale = locale.String, locale.Valid
				views = append(views, v)
				return nil
			}, `SELECT v.id, v.event_id, p.brand_id, v.product, v.ts, v.given_ts, v.received_at, v.session_id, v.country, v.locale, v.keyed, v.arm
				FROM view_events v JOIN products p ON p.id = v.product ORDER BY v.id LIMIT ?`, slice)
			if err != nil {
				return err
			}
			n = len(views)
			if n == 0 {
				_, err := tx.ExecContext(ctx, "DROP TABLE view_events")
				return err
			}
			for rest := views; len(rest) > 0; {
				b := rest[:min(perBlock, len(rest))]
				rest = rest[len(b):]
				lo, hi := tsRange(b)
				if _, err := tx.ExecContext(ctx, qBlockInsert, b[len(b)-1].Pos, lo, hi, len(b), enc.Encode(b)); err != nil {
					return err
				}
			}
			// The rollups held these views (the version before kept them on
			// the write path), or their first build counts them.
			if _, err := tx.ExecContext(ctx, "UPDATE view_rollups SET folded = max(folded, ?)", views[n-1].Pos); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, "DELETE FROM view_events WHERE id <= ?", views[n-1].Pos)
			return err
		})
		if err != nil {
			return fmt.Errorf("sqlite: moving views into blocks: %w (the next start resumes)", err)
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

// moveViews gives the brand's views of product from to product into, a
// merge's part of the view blocks (svc.NameStore.MergeProducts).
func moveViews(ctx context.Context, tx *sql.Tx, brandID string, from, into int64) error {
	type block struct {
		id   int64
		data []byte
	}
	var blocks []block
	err := eachBlock(ctx, tx, func(id int64, data []byte) error {
		blocks = append(blocks, block{id, append([]byte(nil), data...)})
		return nil
	}, "SELECT id, data FROM view_blocks WHERE instr(data, CAST(? AS BLOB)) > 0", brandID)
	if err != nil {
		return err
	}
	for _, b := range blocks {
		var dec viewblock.Decoder
		views, err := dec.Decode(b.data, nil, viewblock.All)
		if err != nil {
			return fmt.Errorf("sqlite: view block %d: %w", b.id, err)
		}
		moved := false
		for i := range views {
			if views[i].Brand == brandID && views[i].Product == from {
				views[i].Product, moved = into, true
			}
		}
		if moved {
			var enc viewblock.Encoder
			if _, err := tx.ExecContext(ctx, "UPDATE view_blocks SET data = ? WHERE id = ?", enc.Encode(views), b.id); err != nil {
				return err
			}
		}
	}
	return nil
}
