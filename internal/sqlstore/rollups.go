package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/rollup"
)

// The dashboard's rollups (internal/rollup): their reads, their build
// from the stored events, and what a batch adds to them. Each store keeps
// its own rollup.Tx, the write path of the rows (SQLite's prepared
// statements of many rows, PostgreSQL's arrays and row locks).

// CountEvents adds to d, with the sign, the events the conditions select
// ("v", "c" and "e" name the tables of views, carts and orders; "" skips
// the kind). Each condition takes args.
func CountEvents(ctx context.Context, q Querier, d *rollup.Delta, sign int64, views, carts, orders string, args ...any) error {
	if views != "" {
		err := Each(ctx, q, func(r Row) error {
			v, err := scanView(r)
			d.AddView(v, sign)
			return err
		}, "SELECT "+viewColumns+" FROM "+viewTables+" WHERE "+views, args...)
		if err != nil {
			return err
		}
	}
	if carts != "" {
		err := Each(ctx, q, func(r Row) error {
			c, err := scanCart(r)
			d.AddCart(c, sign)
			return err
		}, "SELECT "+cartColumns+" FROM "+cartTables+" WHERE "+carts, args...)
		if err != nil {
			return err
		}
	}
	if orders == "" {
		return nil
	}
	o := orderRows{emit: func(o rollup.Order) error { d.AddOrder(o, sign); return nil }}
	if err := Each(ctx, q, func(r Row) error { return o.add(r) },
		"SELECT "+orderColumns+" FROM "+orderTables+" WHERE "+orders+" ORDER BY e.id, i.line", args...); err != nil {
		return err
	}
	return o.flush()
}

// HourRowColumns are the columns of rollup_hours that ScanHourRow scans.
const HourRowColumns = "brand_id, product, hour, views, carts, purchases, units, priced_units, CAST(revenue AS text), last_at, viewers"

// ScanHourRow scans a row of HourRowColumns.
func ScanHourRow(r Row) (*rollup.Row, error) {
	row := &rollup.Row{}
	var rev string
	if err := r.Scan(&row.Brand, &row.Product, &row.Hour, &row.Views, &row.Carts, &row.Purchases, &row.Units,
		&row.PricedUnits, &rev, &row.LastAt, &row.Viewers); err != nil {
		return nil, err
	}
	return row, row.SetRevenueText(rev)
}

// HourSessions calls fn with the session of each view of the key's hour
// (rollup.Tx).
func HourSessions(ctx context.Context, q Querier, k rollup.Key, fn func(string)) error {
	query := `SELECT v.session_id FROM view_events v JOIN products p ON p.id = v.product
		WHERE v.ts >= ? AND v.ts < ? AND p.brand_id = ? AND v.session_id IS NOT NULL AND v.session_id <> ''`
	args := []any{k.Hour, k.Hour + rollup.Hour, k.Brand}
	if k.Product != 0 {
		query += " AND v.product = ?"
		args = append(args, k.Product)
	}
	return Each(ctx, q, func(r Row) error {
		var s string
		if err := r.Scan(&s); err != nil {
			return err
		}
		fn(s)
		return nil
	}, query, args...)
}

// CancelOrder takes a cancellation's units out of the brand's orders with
// its order id (svc.CancelOrder) in tx, the store's transaction, and
// counts the orders again in the rollups: they leave as they stood and
// come back as they stand.
func CancelOrder(ctx context.Context, tx Querier, ct svc.CancelTx, rt rollup.Tx, c *svc.CancelEvent) error {
	d := &rollup.Delta{}
	const cond = "e.brand_id = ? AND e.order_id = ?"
	if err := CountEvents(ctx, tx, d, -1, "", "", cond, c.BrandID, c.OrderID); err != nil {
		return err
	}
	if err := svc.CancelOrder(ctx, ct, c); err != nil {
		return err
	}
	if err := CountEvents(ctx, tx, d, 1, "", "", cond, c.BrandID, c.OrderID); err != nil {
		return err
	}
	return rollup.Apply(ctx, rt, d)
}

// RollupTx runs fn in a write transaction of the store's, with the
// transaction's rollup.Tx.
type RollupTx func(ctx context.Context, fn func(tx Querier, r rollup.Tx) error) error

// RebuildRollups builds the rollups again from the stored events, one UTC
// day per transaction of the store's RollupTx, oldest first. With resume, it continues the
// build the first start of this version began (rollup_build) and does
// nothing once that is done; without, it builds everything again.
// progress is called after each day. A day's transaction locks the
// rollups against other nodes' writes, so that what it counts and what
// they add do not cross.
func (s *Store) RebuildRollups(ctx context.Context, resume bool, progress func(day time.Time, done, total int)) error {
	var from int64
	var done bool
	if err := s.w.QueryRow(ctx, "SELECT built_until, done FROM rollup_build").Scan(&from, &done); err != nil {
		return err
	}
	if resume && done {
		return nil
	}
	if !resume {
		from = 0
		if _, err := s.w.Exec(ctx, "DELETE FROM rollup_sessions"); err != nil {
			return err
		}
	}
	var oldest sql.NullInt64
	viewsFrom := "SELECT min(ts) AS m FROM view_events"
	if s.d.blocks {
		viewsFrom = "SELECT min(min_ts) AS m FROM view_blocks"
	}
	if err := s.w.QueryRow(ctx, `SELECT min(m) FROM (`+viewsFrom+` UNION ALL
		SELECT min(ts) FROM purchase_events UNION ALL SELECT min(ts) FROM cart_events UNION ALL
		SELECT min(hour) FROM rollup_hours) AS o`).Scan(&oldest); err != nil {
		return err
	}
	end := rollup.Floor(time.Now().UnixMilli(), rollup.Day) + 2*rollup.Day // events a little ahead of the clock too
	start := max(rollup.Floor(oldest.Int64, rollup.Day), from)
	if !oldest.Valid {
		start = end
	}
	total := int((end - start) / rollup.Day)
	for i, day := 0, start; day < end; i, day = i+1, day+rollup.Day {
		err := s.rollupTx(ctx, func(tx Querier, rt rollup.Tx) error {
			if err := s.d.Lock(ctx, tx, "rollup_hours, rollup_countries, rollup_cities, rollup_sessions"); err != nil {
				return err
			}
			for _, q := range []string{"DELETE FROM rollup_hours WHERE hour >= ? AND hour < ?", "DELETE FROM rollup_countries WHERE day >= ? AND day < ?",
				"DELETE FROM rollup_cities WHERE day >= ? AND day < ?"} {
				if _, err := tx.Exec(ctx, q, day, day+rollup.Day); err != nil {
					return err
				}
			}
			d := &rollup.Delta{NoSessions: true}
			if err := s.countViews(ctx, tx, rt, d, day, day+rollup.Day); err != nil {
				return err
			}
			if err := CountEvents(ctx, tx, d, 1, "", "c.ts >= ? AND c.ts < ?", "e.ts >= ? AND e.ts < ?", day, day+rollup.Day); err != nil {
				return err
			}
			if err := rollup.Apply(ctx, rt, d); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "UPDATE rollup_build SET built_until = ?", day+rollup.Day)
			return err
		})
		if err != nil {
			return err
		}
		if progress != nil {
			progress(time.UnixMilli(day).UTC(), i+1, total)
		}
	}
	// The sessions' orders and carts, counted again from every stored
	// order and cart in one transaction: a build that resumes has counted
	// some days before.
	return s.rollupTx(ctx, func(tx Querier, _ rollup.Tx) error {
		if err := s.d.Lock(ctx, tx, "rollup_sessions"); err != nil {
			return err
		}
		for _, q := range []string{"UPDATE rollup_sessions SET orders = 0, revenue = 0 WHERE orders <> 0", recountSessionOrders,
			"UPDATE rollup_sessions SET carts = 0 WHERE carts <> 0", RecountSessionCarts, "UPDATE rollup_build SET done = true"} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

// RollupsBuilt reports whether the rollups hold every stored event.
func (s *Store) RollupsBuilt(ctx context.Context) (bool, error) {
	var done bool
	err := s.r.QueryRow(ctx, "SELECT done FROM rollup_build").Scan(&done)
	return done, err
}

// RollupHours calls fn with the hour rows of a brand ("" product) or one
// of its products, from up to to, oldest first (rollup.Store).
func (s *Store) RollupHours(ctx context.Context, brandID, productID string, from, to time.Time, fn func(rollup.Row) error) error {
	// Product 0 is the brand's own row; a product the brand lacks, -1,
	// has none.
	return Each(ctx, s.r, func(r Row) error {
		row := rollup.Row{Key: rollup.Key{Brand: brandID}}
		var rev string
		if err := r.Scan(&row.Product, &row.Hour, &row.Views, &row.Carts, &row.Purchases, &row.Units, &row.PricedUnits, &rev, &row.LastAt, &row.Viewers); err != nil {
			return err
		}
		if err := row.SetRevenueText(rev); err != nil {
			return err
		}
		return fn(row)
	}, `SELECT product, hour, views, carts, purchases, units, priced_units, CAST(revenue AS text), last_at, viewers FROM rollup_hours
		WHERE brand_id = ? AND product = CASE WHEN ? = '' THEN 0 ELSE coalesce((SELECT id FROM products WHERE brand_id = ? AND product_id = ?), -1) END
		AND hour >= ? AND hour < ? ORDER BY hour`, brandID, productID, brandID, productID, from.UnixMilli(), to.UnixMilli())
}

// RollupCountries returns the brand's country rows of the days from up
// to to (rollup.Store).
func (s *Store) RollupCountries(ctx context.Context, brandID string, from, to time.Time) ([]rollup.CountryRow, error) {
	return Collect(ctx, s.r, func(r Row) (rollup.CountryRow, error) {
		var c rollup.CountryRow
		c.Brand = brandID
		return c, r.Scan(&c.Country, &c.Day, &c.Views, &c.Purchases)
	}, "SELECT country, day, views, purchases FROM rollup_countries WHERE brand_id = ? AND day >= ? AND day < ? ORDER BY day, country",
		brandID, from.UnixMilli(), to.UnixMilli())
}

// RollupArms calls sessions for the brand's sessions per arm, then order
// for each of its orders whose session has an arm (rollup.Store).
func (s *Store) RollupArms(ctx context.Context, brandID string, sessions func(arm string, n int64), order func(arm, session string, value float64, saw bool) error) error {
	err := Each(ctx, s.r, func(r Row) error {
		var arm string
		var n int64
		if err := r.Scan(&arm, &n); err != nil {
			return err
		}
		sessions(arm, n)
		return nil
	}, "SELECT arm, sessions FROM rollup_arms WHERE brand_id = ? AND sessions > 0", brandID)
	if err != nil {
		return err
	}
	return Each(ctx, s.r, func(r Row) error {
		var arm, session string
		var value float64
		var saw int64
		if err := r.Scan(&arm, &session, &value, &saw); err != nil {
			return err
		}
		return order(arm, session, value, saw == 1)
	}, armSessions, brandID)
}

// BrandProducts calls fn for every product of the brand (rollup.Store).
func (s *Store) BrandProducts(ctx context.Context, brandID string, fn func(ref int64, productID, title string)) error {
	return Each(ctx, s.r, func(r Row) error {
		var ref int64
		var id, title string
		if err := r.Scan(&ref, &id, &title); err != nil {
			return err
		}
		fn(ref, id, title)
		return nil
	}, "SELECT id, product_id, coalesce(title, '') FROM products WHERE brand_id = ?", brandID)
}

// ProductTitle returns the product's latest title (rollup.Store).
func (s *Store) ProductTitle(ctx context.Context, brandID, productID string) (string, error) {
	var t string
	err := s.r.QueryRow(ctx, "SELECT coalesce(title, '') FROM products WHERE brand_id = ? AND product_id = ?", brandID, productID).Scan(&t)
	if NoRows(err) {
		return "", nil
	}
	return t, err
}

// DeltaOf returns what the accepted events of a batch add to the rollups.
// internal/rollup cannot know svc.Write (layers_test.go): the stores map
// the writes here.
func DeltaOf(batch []*svc.Write) *rollup.Delta {
	d := &rollup.Delta{}
	for _, w := range batch {
		if w.Result.Status != svc.StatusAccepted || w.Result.Replay || w.Result.Err != nil || len(w.Result.Lines) == 0 {
			continue
		}
		ref := w.Result.Lines[0].Product
		switch {
		case w.View != nil:
			v := w.View
			d.AddView(rollup.View{Brand: v.BrandID, Product: int64(ref), At: v.Meta.Time.UnixMilli(),
				Session: orEmpty(v.Context.SessionID), Country: orEmpty(v.Context.Country), Arm: v.Meta.Arm}, 1)
		case w.Cart != nil:
			d.AddCart(rollup.Cart{Brand: w.Cart.BrandID, Product: int64(ref), At: w.Cart.Meta.Time.UnixMilli(), Session: orEmpty(w.Cart.Context.SessionID)}, 1)
		case w.Purchase != nil:
			p := w.Purchase
			refs := map[string]int64{}
			for _, l := range w.Result.Lines {
				refs[l.ProductID] = int64(l.Product)
			}
			o := rollup.Order{Brand: p.BrandID, At: p.Meta.Time.UnixMilli(), Session: orEmpty(p.Context.SessionID),
				Country: orEmpty(p.Context.Country), City: orEmpty(p.Context.City), Total: p.Order.TotalValue}
			for _, it := range p.Order.Items {
				o.Lines = append(o.Lines, rollup.Line{Product: refs[it.ProductID], Quantity: *it.Quantity, Price: it.UnitPrice})
			}
			d.AddOrder(o, 1)
		}
	}
	return d
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// The rollups' funnel and cities (docs/dashboard.md, Rollups): the reads
// and the recount of a build, for both stores.

// RecountSessionCarts sets every session's carts from the stored carts,
// after "UPDATE rollup_sessions SET carts = 0 WHERE carts <> 0": what a
// build counts in SQL rather than on the write path (rollup.Delta's
// NoSessions). Carts whose session has no row count nowhere.
const RecountSessionCarts = `UPDATE rollup_sessions SET carts = c.n FROM (
		SELECT p.brand_id, c.session_id, count(*) AS n FROM cart_events c JOIN products p ON p.id = c.product
		WHERE c.session_id IS NOT NULL AND c.session_id <> '' GROUP BY p.brand_id, c.session_id) c
	WHERE rollup_sessions.brand_id = c.brand_id AND rollup_sessions.session_id = c.session_id`

// RollupFunnel returns the brand's sessions first seen in the days of
// [from, to), and of those the ones that carted and bought
// (rollup.Store): rollup_funnel, kept per day of the first view by
// triggers on rollup_sessions.
func (s *Store) RollupFunnel(ctx context.Context, brandID string, from, to time.Time) (rollup.Funnel, error) {
	var f rollup.Funnel
	err := s.r.QueryRow(ctx, `SELECT CAST(coalesce(sum(sessions), 0) AS BIGINT), CAST(coalesce(sum(carted), 0) AS BIGINT),
		CAST(coalesce(sum(bought), 0) AS BIGINT) FROM rollup_funnel WHERE brand_id = ? AND day >= ? AND day < ?`,
		brandID, Millis(from), Millis(to)).Scan(&f.Sessions, &f.Carted, &f.Bought)
	return f, err
}

// RollupCities returns the brand's city rows of the days of [from, to)
// (rollup.Store).
func (s *Store) RollupCities(ctx context.Context, brandID string, from, to time.Time) ([]rollup.CityRow, error) {
	return Collect(ctx, s.r, func(r Row) (rollup.CityRow, error) {
		c := rollup.CityRow{CityKey: rollup.CityKey{Brand: brandID}}
		err := r.Scan(&c.Country, &c.City, &c.Day, &c.Purchases)
		return c, err
	}, "SELECT country, city, day, purchases FROM rollup_cities WHERE brand_id = ? AND day >= ? AND day < ? ORDER BY day, country, city",
		brandID, Millis(from), Millis(to))
}

// countViews counts the views of [from, to) for a build: their sessions
// into rollup_sessions at once (so that the orders of the day find them),
// the rest into d. Views in blocks are read and counted in Go; rows are
// counted in SQL.
func (s *Store) countViews(ctx context.Context, tx Querier, rt rollup.Tx, d *rollup.Delta, from, to int64) error {
	if !s.d.blocks {
		if _, err := tx.Exec(ctx, "INSERT INTO rollup_sessions AS r (brand_id, session_id, arm, first_at, last_at) "+sessionsOfViews+
			`v.ts >= ? AND v.ts < ? GROUP BY p.brand_id, v.session_id
			ON CONFLICT (brand_id, session_id) DO UPDATE SET
				arm = CASE WHEN excluded.first_at < r.first_at THEN excluded.arm ELSE r.arm END,
				first_at = `+s.d.least+`(r.first_at, excluded.first_at), last_at = `+s.d.greatest+`(r.last_at, excluded.last_at)`,
			from, to); err != nil {
			return err
		}
		return CountEvents(ctx, tx, d, 1, "v.ts >= ? AND v.ts < ?", "", "", from, to)
	}
	// A session's arm is its first view's, the smaller arm's code when
	// two views share the first time (sessionsOfViews).
	code := map[string]int{holdout.ArmShown: 1, holdout.ArmHeldOut: 2}
	sessions := map[[2]string]*rollup.Session{}
	err := EachBlock(ctx, tx, blockTimes, "", []any{from, to}, func(b *Block) error {
		for i := range b.Views {
			v := &b.Views[i]
			if v.TS < from || v.TS >= to {
				continue
			}
			d.AddView(RollupView(v), 1)
			if !v.HasSession || v.Session == "" {
				continue
			}
			k := [2]string{v.Brand, v.Session}
			r := sessions[k]
			switch {
			case r == nil:
				sessions[k] = &rollup.Session{Brand: v.Brand, ID: v.Session, Arm: v.Arm, FirstAt: v.TS, LastAt: v.TS}
			case v.TS < r.FirstAt || v.TS == r.FirstAt && code[v.Arm] < code[r.Arm]:
				r.Arm, r.FirstAt = v.Arm, v.TS
			}
			if r != nil {
				r.LastAt = max(r.LastAt, v.TS)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	list := make([]*rollup.Session, 0, len(sessions))
	for _, r := range sessions {
		list = append(list, r)
	}
	return rt.PutSessions(ctx, list)
}
