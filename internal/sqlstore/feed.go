package sqlstore

import (
	"context"
	"database/sql"

	"github.com/svc-project/svc"
)

// The change feed's outline (svc.ChangeFeed), the same for both stores:
// in one read transaction, the products changed since the cursor, then the
// views, carts, cancellations and orders other writers committed since it;
// then this node's own writes are left out, which its server counted when
// Append returned. What a cursor is, and how a store knows its own
// writes, is the engine's (FeedSource).

// FeedTable is an event table of the change feed.
type FeedTable int

// The event tables, in the order of a SQLite cursor's ids.
const (
	FeedTableViews FeedTable = iota
	FeedTableOrders
	FeedTableCarts
	FeedTableCancels
)

// FeedSource is an engine's part of a read of the change feed.
type FeedSource struct {
	// Products is the condition, on the table products, of the
	// products changed since the cursor, with its arguments.
	Products func() (cond string, args []any)
	// Rows is the condition, on the table's alias, of its rows new since
	// the cursor, with its arguments; ok is false when there are none to
	// read.
	Rows func(t FeedTable, alias string) (cond string, args []any, ok bool)
	// Key is the expression, on the table's alias, that tells a row's
	// writer to Mine: its id, or its transaction.
	Key func(alias string) string
	// ViewIDs are the ids (lo, hi] of the views new since the cursor,
	// where they are in blocks (Dialect.Blocks) and the feed follows
	// view ids (SQLite); ok is false when there are none to read. When
	// nil, the blocks new since the cursor are those Rows selects of
	// view_blocks (alias b), keyed by Key: PostgreSQL's, by transaction.
	ViewIDs func() (lo, hi int64, ok bool)
}

// FeedRead is what one read of the change feed found, each event with its
// table and key (FeedSource.Key), this node's own writes still in.
type FeedRead struct {
	Products []*svc.Product
	Writes   []*svc.Write
	Cancels  []svc.CancelRecord

	writeTables []FeedTable
	writeKeys   []int64
	cancelKeys  []int64
}

// ReadFeed reads, in tx, a read transaction of the store's, what the
// source names new since its cursor.
func ReadFeed(ctx context.Context, tx Querier, d *Dialect, src FeedSource) (*FeedRead, error) {
	out := &FeedRead{}
	cond, args := src.Products()
	err := Each(ctx, tx, func(r Row) error {
		var p svc.Product
		err := ScanNamedProduct(r, &p)
		out.Products = append(out.Products, &p)
		return err
	}, d.NamedProducts()+" WHERE "+cond+" ORDER BY id", args...)
	if err != nil {
		return nil, err
	}
	// Views and carts: one product each, and the brand of its row.
	single := func(t FeedTable, alias, columns, tables string, row func() (dest []any, write func(brandID string, ref svc.ProductRef) *svc.Write)) error {
		cond, args, ok := src.Rows(t, alias)
		if !ok {
			return nil
		}
		return Each(ctx, tx, func(r Row) error {
			var key int64
			var ref svc.ProductRef
			var brandID string
			dest, write := row()
			if err := r.Scan(append([]any{&key, &ref, &brandID}, dest...)...); err != nil {
				return err
			}
			out.add(write(brandID, ref), t, key)
			return nil
		}, "SELECT "+src.Key(alias)+", p.id, p.brand_id, "+columns+" FROM "+tables+" WHERE "+cond+" ORDER BY "+alias+".id", args...)
	}
	rows := func() error {
		return single(FeedTableViews, "v", ViewRowColumns, ViewRowTables, func() ([]any, func(string, svc.ProductRef) *svc.Write) {
			var r ViewRow
			return r.Dest(), r.Write
		})
	}
	switch {
	case src.ViewIDs != nil:
		if lo, hi, ok := src.ViewIDs(); ok {
			err = d.blockViewsAfter(ctx, tx, lo, hi, out)
		}
	default:
		if cond, args, ok := src.Rows(FeedTableViews, "b"); ok {
			err = d.blockViewsWhere(ctx, tx, src.Key("b"), cond, args, out)
		}
		if err == nil {
			// Rows a node of the version before writes during an upgrade,
			// until a start moves them: in any snapshot, a transaction's
			// views are rows or blocks, not both (postgres.moveViewRows).
			err = rows()
		}
	}
	if err != nil {
		return nil, err
	}
	err = single(FeedTableCarts, "c", CartRowColumns, CartRowTables, func() ([]any, func(string, svc.ProductRef) *svc.Write) {
		var r CartRow
		return r.Dest(), r.Write
	})
	if err != nil {
		return nil, err
	}
	if cond, args, ok := src.Rows(FeedTableCancels, "c"); ok {
		err := Each(ctx, tx, func(r Row) error {
			var key, ts int64
			var c svc.CancelRecord
			var before, after sql.NullFloat64
			if err := r.Scan(&key, &c.Order, &c.OrderEventID, &c.Product, &ts, &c.Units, &c.Orders, &c.Currency, &before, &after); err != nil {
				return err
			}
			c.Time, c.PriceBefore, c.PriceAfter = FromMillis(ts), nullFloat(before), nullFloat(after)
			out.Cancels, out.cancelKeys = append(out.Cancels, c), append(out.cancelKeys, key)
			return nil
		}, "SELECT "+src.Key("c")+`, c.purchase, e.event_id, c.product, c.ts, c.units, c.orders, coalesce(c.currency, ''),
				c.price_before, c.price_after
			FROM order_cancels c JOIN purchase_events e ON e.id = c.purchase
			WHERE `+cond+" ORDER BY c.id", args...)
		if err != nil {
			return nil, err
		}
	}
	if cond, args, ok := src.Rows(FeedTableOrders, "e"); ok {
		var orders FeedOrders
		err := Each(ctx, tx, func(r Row) error {
			var key, cancelled int64
			var ref svc.ProductRef
			var brandID string
			var o OrderRow
			if err := r.Scan(append([]any{&key, &ref, &brandID, &cancelled}, o.Dest()...)...); err != nil {
				return err
			}
			orders.Line(&o, ref, brandID, cancelled, key)
			return nil
		}, "SELECT "+src.Key("e")+", i.product, e.brand_id, i.cancelled, "+OrderRowColumns+`
			FROM purchase_events e JOIN purchase_items i ON i.purchase = e.id JOIN products p ON p.id = i.product
			WHERE `+cond+" ORDER BY e.id, i.line", args...)
		if err != nil {
			return nil, err
		}
		orders.Flush()
		for i, w := range orders.Writes {
			out.add(w, FeedTableOrders, orders.Keys[i])
		}
	}
	return out, nil
}

func (f *FeedRead) add(w *svc.Write, t FeedTable, key int64) {
	f.Writes, f.writeTables, f.writeKeys = append(f.Writes, w), append(f.writeTables, t), append(f.writeKeys, key)
}

// Changes returns what the read found, with the next cursor, but the
// events whose row mine says this node wrote.
func (f *FeedRead) Changes(cursor svc.FeedCursor, mine func(t FeedTable, key int64) bool) *svc.Changes {
	out := &svc.Changes{Cursor: cursor, Products: f.Products}
	for i, w := range f.Writes {
		if !mine(f.writeTables[i], f.writeKeys[i]) {
			out.Writes = append(out.Writes, w)
		}
	}
	for i, c := range f.Cancels {
		if !mine(FeedTableCancels, f.cancelKeys[i]) {
			out.Cancels = append(out.Cancels, c)
		}
	}
	return out
}

func nullFloat(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	return &f.Float64
}
