package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlstore"
)

// rollupTx keeps the rollups in a write transaction (rollup.Tx), with the
// statements prepared when the store opened.
type rollupTx struct{ p *preparedTx }

func (s *Store) rollupTx(tx *sql.Tx) rollupTx { return rollupTx{s.prepared(tx)} }

// The rollups' statements of the write path (prepared.go). Rows are read
// and written many in one statement (sizes 1, 2, 4 ... 64): a statement
// costs more in database/sql and the driver than its row in SQLite.
const (
	rollupColumns  = "brand_id, product, hour, views, carts, purchases, units, priced_units, revenue, last_at, viewers"
	qRollupDelete  = "DELETE FROM rollup_hours WHERE brand_id = ? AND product = ? AND hour = ?"
	qRollupCountry = `INSERT INTO rollup_countries (brand_id, country, day, views, purchases) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT DO UPDATE SET views = views + excluded.views, purchases = purchases + excluded.purchases`
	qRollupCountryGone = "DELETE FROM rollup_countries WHERE brand_id = ? AND country = ? AND day = ? AND views = 0 AND purchases = 0"
	qRollupOrders      = "UPDATE rollup_sessions SET orders = orders + ?, revenue = revenue + ?, carts = carts + ? WHERE brand_id = ? AND session_id = ?"
	qRollupCity        = `INSERT INTO rollup_cities (brand_id, country, city, day, purchases) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT DO UPDATE SET purchases = purchases + excluded.purchases`
	qRollupCityGone = "DELETE FROM rollup_cities WHERE brand_id = ? AND country = ? AND city = ? AND day = ? AND purchases = 0"
	rollupSizes     = 7 // up to 64 rows a statement
)

// rollupGets[i] reads 1<<i rows by key; rollupPuts[i] writes 1<<i rows;
// rollupSessions[i] upserts 1<<i sessions.
var rollupGets, rollupPuts, rollupSessions = func() (gets, puts, sessions []string) {
	for i := range rollupSizes {
		n := 1 << i
		sessions = append(sessions, "INSERT INTO rollup_sessions (brand_id, session_id, arm, first_at, last_at) VALUES (?, ?, ?, ?, ?)"+
			strings.Repeat(", (?, ?, ?, ?, ?)", n-1)+
			` ON CONFLICT DO UPDATE SET arm = iif(excluded.first_at < first_at, excluded.arm, arm),
			first_at = min(first_at, excluded.first_at), last_at = max(last_at, excluded.last_at)`)
		gets = append(gets, "SELECT "+rollupColumns+" FROM rollup_hours WHERE (brand_id, product, hour) IN (VALUES (?, ?, ?)"+
			strings.Repeat(", (?, ?, ?)", n-1)+")")
		row := "(?" + strings.Repeat(", ?", 10) + ")"
		puts = append(puts, "INSERT OR REPLACE INTO rollup_hours ("+rollupColumns+") VALUES "+row+strings.Repeat(", "+row, n-1))
	}
	return gets, puts, sessions
}()

// chunk returns the size index of the largest statement for n rows.
func chunk(n int) int {
	i := rollupSizes - 1
	for n < 1<<i {
		i--
	}
	return i
}

var rollupQueries = append(append(append([]string{qRollupDelete, qRollupCountry, qRollupCountryGone, qRollupOrders, qRollupCity, qRollupCityGone}, rollupGets...), rollupPuts...), rollupSessions...)

func (r rollupTx) HourRows(ctx context.Context, keys []rollup.Key) (map[rollup.Key]*rollup.Row, error) {
	out := make(map[rollup.Key]*rollup.Row, len(keys))
	for rest := keys; len(rest) > 0; {
		n := 1 << chunk(len(rest))
		args := make([]any, 0, 3*n)
		for _, k := range rest[:n] {
			args = append(args, k.Brand, k.Product, k.Hour)
		}
		err := eachRowOf(ctx, r.p, func(rows *sql.Rows) error {
			row := &rollup.Row{}
			var rev string
			if err := rows.Scan(&row.Brand, &row.Product, &row.Hour, &row.Views, &row.Carts, &row.Purchases, &row.Units,
				&row.PricedUnits, &rev, &row.LastAt, &row.Viewers); err != nil {
				return err
			}
			out[row.Key] = row
			return row.SetRevenueText(rev)
		}, rollupGets[chunk(n)], args...)
		if err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	return out, nil
}

func (r rollupTx) PutHourRows(ctx context.Context, rows []*rollup.Row) error {
	var kept []*rollup.Row
	for _, row := range rows {
		if !row.Empty() {
			kept = append(kept, row)
			continue
		}
		if _, err := r.p.ExecContext(ctx, qRollupDelete, row.Brand, row.Product, row.Hour); err != nil {
			return err
		}
	}
	for rest := kept; len(rest) > 0; {
		n := 1 << chunk(len(rest))
		args := make([]any, 0, 11*n)
		for _, row := range rest[:n] {
			args = append(args, row.Brand, row.Product, row.Hour, row.Views, row.Carts, row.Purchases, row.Units,
				row.PricedUnits, row.RevenueText(), row.LastAt, row.Viewers)
		}
		if _, err := r.p.ExecContext(ctx, rollupPuts[chunk(n)], args...); err != nil {
			return err
		}
		rest = rest[n:]
	}
	return nil
}

func (r rollupTx) AddCountries(ctx context.Context, c map[rollup.CountryKey]*rollup.CountryCounts) error {
	for k, n := range c {
		if _, err := r.p.ExecContext(ctx, qRollupCountry, k.Brand, k.Country, k.Day, n.Views, n.Purchases); err != nil {
			return err
		}
		if n.Views < 0 || n.Purchases < 0 {
			if _, err := r.p.ExecContext(ctx, qRollupCountryGone, k.Brand, k.Country, k.Day); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r rollupTx) AddCities(ctx context.Context, c map[rollup.CityKey]int64) error {
	for k, n := range c {
		if _, err := r.p.ExecContext(ctx, qRollupCity, k.Brand, k.Country, k.City, k.Day, n); err != nil {
			return err
		}
		if n < 0 {
			if _, err := r.p.ExecContext(ctx, qRollupCityGone, k.Brand, k.Country, k.City, k.Day); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r rollupTx) PutSessions(ctx context.Context, s []*rollup.Session) error {
	for rest := s; len(rest) > 0; {
		n := 1 << chunk(len(rest))
		args := make([]any, 0, 5*n)
		for _, v := range rest[:n] {
			args = append(args, v.Brand, v.ID, v.Arm, v.FirstAt, v.LastAt)
		}
		if _, err := r.p.ExecContext(ctx, rollupSessions[chunk(n)], args...); err != nil {
			return err
		}
		rest = rest[n:]
	}
	return nil
}

func (r rollupTx) AddSessionOrders(ctx context.Context, o map[[2]string]*rollup.SessionOrders) error {
	for k, v := range o {
		if _, err := r.p.ExecContext(ctx, qRollupOrders, v.Orders, v.Revenue, v.Carts, k[0], k[1]); err != nil {
			return err
		}
	}
	return nil
}

func (r rollupTx) HourSessions(ctx context.Context, k rollup.Key, fn func(string)) error {
	q := `SELECT v.session_id FROM view_events v JOIN products p ON p.id = v.product
		WHERE v.ts >= ? AND v.ts < ? AND p.brand_id = ? AND v.session_id IS NOT NULL AND v.session_id != ''`
	args := []any{k.Hour, k.Hour + rollup.Hour, k.Brand}
	if k.Product != 0 {
		q += " AND v.product = ?"
		args = append(args, k.Product)
	}
	return eachRowOf(ctx, r.p.tx, func(rows *sql.Rows) error {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		fn(s)
		return nil
	}, q, args...)
}

// countEvents adds to d, with the sign, the events the condition selects
// ("v", "c" and "e" name the tables of views, carts and orders).
func countEvents(ctx context.Context, tx *sql.Tx, d *rollup.Delta, sign int64, views, carts, orders string, args ...any) error {
	if views != "" {
		err := eachRowOf(ctx, tx, func(rows *sql.Rows) error {
			v, err := rollup.ScanView(rows.Scan)
			d.AddView(v, sign)
			return err
		}, "SELECT "+rollup.ViewColumns+" FROM "+rollup.ViewTables+" WHERE "+views, args...)
		if err != nil {
			return err
		}
	}
	if carts != "" {
		err := eachRowOf(ctx, tx, func(rows *sql.Rows) error {
			c, err := rollup.ScanCart(rows.Scan)
			d.AddCart(c, sign)
			return err
		}, "SELECT "+rollup.CartColumns+" FROM "+rollup.CartTables+" WHERE "+carts, args...)
		if err != nil {
			return err
		}
	}
	if orders == "" {
		return nil
	}
	o := rollup.Orders{Emit: func(o rollup.Order) error { d.AddOrder(o, sign); return nil }}
	if err := eachRowOf(ctx, tx, func(rows *sql.Rows) error { return o.Add(rows.Scan) },
		"SELECT "+rollup.OrderColumns+" FROM "+rollup.OrderTables+" WHERE "+orders+" ORDER BY e.id, i.line", args...); err != nil {
		return err
	}
	return o.Flush()
}

// RebuildRollups builds the rollups again from the stored events, one UTC
// day per transaction, oldest first. With resume, it continues the build
// the first start of this version began (rollup_build) and does nothing
// once that is done; without, it builds everything again. progress is
// called after each day.
func (s *Store) RebuildRollups(ctx context.Context, resume bool, progress func(day time.Time, done, total int)) error {
	var from int64
	var done bool
	if err := s.w.QueryRowContext(ctx, "SELECT built_until, done FROM rollup_build").Scan(&from, &done); err != nil {
		return err
	}
	if resume && done {
		return nil
	}
	if !resume {
		from = 0
		if _, err := s.w.ExecContext(ctx, "DELETE FROM rollup_sessions"); err != nil {
			return err
		}
	}
	// The sessions' rows go in at random places of a large table: with
	// SQLite's default 2 MB of cache, most of a build was reading pages
	// back. The writer's cache grows for the build only.
	if _, err := s.w.ExecContext(ctx, "PRAGMA cache_size = -262144"); err != nil {
		return err
	}
	defer s.w.ExecContext(context.WithoutCancel(ctx), "PRAGMA cache_size = -2000")
	var oldest sql.NullInt64
	if err := s.w.QueryRowContext(ctx, `SELECT min(m) FROM (SELECT min(ts) AS m FROM view_events UNION ALL
		SELECT min(ts) FROM purchase_events UNION ALL SELECT min(ts) FROM cart_events UNION ALL
		SELECT min(hour) FROM rollup_hours)`).Scan(&oldest); err != nil {
		return err
	}
	end := rollup.Floor(time.Now().UnixMilli(), rollup.Day) + 2*rollup.Day // events a little ahead of the clock too
	start := max(rollup.Floor(oldest.Int64, rollup.Day), from)
	if !oldest.Valid {
		start = end
	}
	total := int((end - start) / rollup.Day)
	for i, day := 0, start; day < end; i, day = i+1, day+rollup.Day {
		err := s.inEventTx(ctx, func(tx *sql.Tx) error {
			for _, q := range []string{"DELETE FROM rollup_hours WHERE hour >= ? AND hour < ?", "DELETE FROM rollup_countries WHERE day >= ? AND day < ?",
				"DELETE FROM rollup_cities WHERE day >= ? AND day < ?"} {
				if _, err := tx.ExecContext(ctx, q, day, day+rollup.Day); err != nil {
					return err
				}
			}
			// The day's sessions first, so that the day's orders find them.
			if _, err := tx.ExecContext(ctx, "INSERT INTO rollup_sessions (brand_id, session_id, arm, first_at, last_at) "+rollup.SessionsOfViews+
				`v.ts >= ? AND v.ts < ? GROUP BY p.brand_id, v.session_id
				ON CONFLICT DO UPDATE SET arm = iif(excluded.first_at < first_at, excluded.arm, arm),
					first_at = min(first_at, excluded.first_at), last_at = max(last_at, excluded.last_at)`, day, day+rollup.Day); err != nil {
				return err
			}
			d := &rollup.Delta{NoSessions: true}
			if err := countEvents(ctx, tx, d, 1, "v.ts >= ?1 AND v.ts < ?2", "c.ts >= ?1 AND c.ts < ?2", "e.ts >= ?1 AND e.ts < ?2", day, day+rollup.Day); err != nil {
				return err
			}
			if err := rollup.Apply(ctx, s.rollupTx(tx), d); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "UPDATE rollup_build SET built_until = ?", day+rollup.Day)
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
	return s.inEventTx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{"UPDATE rollup_sessions SET orders = 0, revenue = 0 WHERE orders <> 0", rollup.RecountSessionOrders,
			"UPDATE rollup_sessions SET carts = 0 WHERE carts <> 0", sqlstore.RecountSessionCarts, "UPDATE rollup_build SET done = 1"} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

// RollupsBuilt reports whether the rollups hold every stored event.
func (s *Store) RollupsBuilt(ctx context.Context) (bool, error) {
	var done bool
	err := s.r.QueryRowContext(ctx, "SELECT done FROM rollup_build").Scan(&done)
	return done, err
}

// RollupHours calls fn with the hour rows of a brand ("" product) or one
// of its products, from up to to, oldest first.
func (r reads) RollupHours(ctx context.Context, brandID, productID string, from, to time.Time, fn func(rollup.Row) error) error {
	// Product 0 is the brand's own row; a product the brand lacks, -1,
	// has none.
	q := `SELECT product, hour, views, carts, purchases, units, priced_units, revenue, last_at, viewers FROM rollup_hours
		WHERE brand_id = ?1 AND product = iif(?2 = '', 0, coalesce((SELECT id FROM products WHERE brand_id = ?1 AND product_id = ?2), -1))
		AND hour >= ?3 AND hour < ?4 ORDER BY hour`
	return eachRowOf(ctx, r.db, func(rows *sql.Rows) error {
		row := rollup.Row{Key: rollup.Key{Brand: brandID}}
		var rev string
		if err := rows.Scan(&row.Product, &row.Hour, &row.Views, &row.Carts, &row.Purchases, &row.Units, &row.PricedUnits, &rev, &row.LastAt, &row.Viewers); err != nil {
			return err
		}
		if err := row.SetRevenueText(rev); err != nil {
			return err
		}
		return fn(row)
	}, q, brandID, productID, from.UnixMilli(), to.UnixMilli())
}

// RollupCountries returns the brand's country rows of the days from up
// to to.
func (r reads) RollupCountries(ctx context.Context, brandID string, from, to time.Time) ([]rollup.CountryRow, error) {
	var out []rollup.CountryRow
	err := eachRowOf(ctx, r.db, func(rows *sql.Rows) error {
		var c rollup.CountryRow
		c.Brand = brandID
		if err := rows.Scan(&c.Country, &c.Day, &c.Views, &c.Purchases); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	}, "SELECT country, day, views, purchases FROM rollup_countries WHERE brand_id = ? AND day >= ? AND day < ? ORDER BY day, country",
		brandID, from.UnixMilli(), to.UnixMilli())
	return out, err
}

// RollupArms calls fn for the brand's sessions per arm, then for each of
// its orders whose session has an arm.
func (r reads) RollupArms(ctx context.Context, brandID string, sessions func(arm string, n int64), order func(arm, session string, value float64, saw bool) error) error {
	err := eachRowOf(ctx, r.db, func(rows *sql.Rows) error {
		var arm string
		var n int64
		if err := rows.Scan(&arm, &n); err != nil {
			return err
		}
		sessions(arm, n)
		return nil
	}, "SELECT arm, sessions FROM rollup_arms WHERE brand_id = ? AND sessions > 0", brandID)
	if err != nil {
		return err
	}
	return eachRowOf(ctx, r.db, func(rows *sql.Rows) error {
		var arm, session string
		var value float64
		var saw int64
		if err := rows.Scan(&arm, &session, &value, &saw); err != nil {
			return err
		}
		return order(arm, session, value, saw == 1)
	}, fmt.Sprintf(rollup.ArmSessions, "?"), brandID)
}

// BrandProducts calls fn for every product of the brand.
func (r reads) BrandProducts(ctx context.Context, brandID string, fn func(ref int64, productID, title string)) error {
	return eachRowOf(ctx, r.db, func(rows *sql.Rows) error {
		var ref int64
		var id, title string
		if err := rows.Scan(&ref, &id, &title); err != nil {
			return err
		}
		fn(ref, id, title)
		return nil
	}, "SELECT id, product_id, coalesce(title, '') FROM products WHERE brand_id = ?", brandID)
}

// ProductTitle returns the product's latest title.
func (r reads) ProductTitle(ctx context.Context, brandID, productID string) (string, error) {
	var t string
	err := r.db.QueryRowContext(ctx, "SELECT coalesce(title, '') FROM products WHERE brand_id = ? AND product_id = ?", brandID, productID).Scan(&t)
	if ok, err := found(err); !ok {
		return "", err
	}
	return t, nil
}

// BrandCurrency returns the currency most of the brand's orders give,
// of those with a line left.
func (r reads) BrandCurrency(ctx context.Context, brandID string) (string, error) {
	var c string
	err := r.db.QueryRowContext(ctx, `SELECT currency FROM purchase_events e WHERE brand_id = ? AND currency IS NOT NULL
		AND EXISTS (SELECT 1 FROM purchase_items i WHERE i.purchase = e.id AND i.quantity > 0)
		GROUP BY currency ORDER BY count(*) DESC, currency LIMIT 1`, brandID).Scan(&c)
	if ok, err := found(err); !ok {
		return "", err
	}
	return c, nil
}

var _ rollup.Store = (*Store)(nil)

// deltaOf returns what the accepted events of a batch add to the rollups.
// internal/rollup cannot know svc.Write (layers_test.go): each store maps
// the writes, the same way.
func deltaOf(batch []*svc.Write) *rollup.Delta {
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
