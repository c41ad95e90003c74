package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlstore"
)

// rollupTx keeps the rollups in a write transaction (rollup.Tx). Nodes
// write the same rows at once: a transaction creates the rows it lacks
// and locks them all, in rollup.SortKeys order, before it reads them.
type rollupTx struct{ tx pgx.Tx }

func rollupKeyColumns(keys []rollup.Key) (brands []string, products, hours []int64) {
	for _, k := range keys {
		brands, products, hours = append(brands, k.Brand), append(products, k.Product), append(hours, k.Hour)
	}
	return
}

func (r rollupTx) HourRows(ctx context.Context, keys []rollup.Key) (map[rollup.Key]*rollup.Row, error) {
	b, p, h := rollupKeyColumns(keys)
	if _, err := r.tx.Exec(ctx, `INSERT INTO rollup_hours (brand_id, product, hour)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) ON CONFLICT DO NOTHING`, b, p, h); err != nil {
		return nil, err
	}
	out := make(map[rollup.Key]*rollup.Row, len(keys))
	err := eachRow(ctx, r.tx, func(rows pgx.Rows) error {
		row := &rollup.Row{}
		var rev string
		if err := rows.Scan(&row.Brand, &row.Product, &row.Hour, &row.Views, &row.Carts, &row.Purchases, &row.Units,
			&row.PricedUnits, &rev, &row.LastAt, &row.Viewers); err != nil {
			return err
		}
		out[row.Key] = row
		return row.SetRevenueText(rev)
	}, `SELECT brand_id, product, hour, views, carts, purchases, units, priced_units, revenue::text, last_at, viewers
		FROM rollup_hours WHERE (brand_id, product, hour) IN (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]))
		ORDER BY brand_id, product, hour FOR UPDATE`, b, p, h)
	return out, err
}

func (r rollupTx) PutHourRows(ctx context.Context, rows []*rollup.Row) error {
	var gone, kept []rollup.Key
	var views, carts, purchases, units, priced, last []int64
	var revenue []string
	var viewers [][]byte
	for _, row := range rows {
		if row.Empty() {
			gone = append(gone, row.Key)
			continue
		}
		kept = append(kept, row.Key)
		views, carts, purchases, units = append(views, row.Views), append(carts, row.Carts), append(purchases, row.Purchases), append(units, row.Units)
		priced, revenue, last, viewers = append(priced, row.PricedUnits), append(revenue, row.RevenueText()), append(last, row.LastAt), append(viewers, row.Viewers)
	}
	q := &pgx.Batch{}
	if len(kept) > 0 {
		b, p, h := rollupKeyColumns(kept)
		q.Queue(`UPDATE rollup_hours r SET views = u.v, carts = u.c, purchases = u.pu, units = u.un, priced_units = u.pr,
			revenue = u.rev, last_at = u.la, viewers = u.vw
			FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[],
				$9::numeric[], $10::bigint[], $11::bytea[]) AS u(b, p, h, v, c, pu, un, pr, rev, la, vw)
			WHERE r.brand_id = u.b AND r.product = u.p AND r.hour = u.h`, b, p, h, views, carts, purchases, units, priced, revenue, last, viewers)
	}
	if len(gone) > 0 {
		b, p, h := rollupKeyColumns(gone)
		q.Queue(`DELETE FROM rollup_hours WHERE (brand_id, product, hour) IN (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]))`, b, p, h)
	}
	if q.Len() == 0 {
		return nil
	}
	return r.tx.SendBatch(ctx, q).Close()
}

func (r rollupTx) AddCountries(ctx context.Context, c map[rollup.CountryKey]*rollup.CountryCounts) error {
	keys := make([]rollup.CountryKey, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	// One order of locks across nodes.
	sortCountries(keys)
	var brands, countries []string
	var days, views, purchases []int64
	for _, k := range keys {
		brands, countries, days = append(brands, k.Brand), append(countries, k.Country), append(days, k.Day)
		views, purchases = append(views, c[k].Views), append(purchases, c[k].Purchases)
	}
	q := &pgx.Batch{}
	q.Queue(`INSERT INTO rollup_countries AS r (brand_id, country, day, views, purchases)
		SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[])
		ON CONFLICT (brand_id, day, country) DO UPDATE SET views = r.views + excluded.views, purchases = r.purchases + excluded.purchases`,
		brands, countries, days, views, purchases)
	q.Queue(`DELETE FROM rollup_countries WHERE (brand_id, country, day) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]))
		AND views = 0 AND purchases = 0`, brands, countries, days)
	return r.tx.SendBatch(ctx, q).Close()
}

func sortCountries(k []rollup.CountryKey) {
	less := func(a, b rollup.CountryKey) bool {
		if a.Brand != b.Brand {
			return a.Brand < b.Brand
		}
		if a.Day != b.Day {
			return a.Day < b.Day
		}
		return a.Country < b.Country
	}
	for i := 1; i < len(k); i++ {
		for j := i; j > 0 && less(k[j], k[j-1]); j-- {
			k[j], k[j-1] = k[j-1], k[j]
		}
	}
}

func (r rollupTx) AddCities(ctx context.Context, c map[rollup.CityKey]int64) error {
	keys := make([]rollup.CityKey, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	// One order of locks across nodes.
	slices.SortFunc(keys, func(a, b rollup.CityKey) int {
		return cmp.Or(cmp.Compare(a.Brand, b.Brand), cmp.Compare(a.Day, b.Day), cmp.Compare(a.Country, b.Country), cmp.Compare(a.City, b.City))
	})
	var brands, countries, cities []string
	var days, purchases []int64
	for _, k := range keys {
		brands, countries, cities, days = append(brands, k.Brand), append(countries, k.Country), append(cities, k.City), append(days, k.Day)
		purchases = append(purchases, c[k])
	}
	q := &pgx.Batch{}
	q.Queue(`INSERT INTO rollup_cities AS r (brand_id, country, city, day, purchases)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
		ON CONFLICT (brand_id, day, country, city) DO UPDATE SET purchases = r.purchases + excluded.purchases`,
		brands, countries, cities, days, purchases)
	q.Queue(`DELETE FROM rollup_cities WHERE (brand_id, country, city, day) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]))
		AND purchases = 0`, brands, countries, cities, days)
	return r.tx.SendBatch(ctx, q).Close()
}

func (r rollupTx) PutSessions(ctx context.Context, s []*rollup.Session) error {
	var brands, ids, arms []string
	var first, last []int64
	for _, v := range s {
		brands, ids, arms, first, last = append(brands, v.Brand), append(ids, v.ID), append(arms, v.Arm), append(first, v.FirstAt), append(last, v.LastAt)
	}
	_, err := r.tx.Exec(ctx, `INSERT INTO rollup_sessions AS r (brand_id, session_id, arm, first_at, last_at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
		ON CONFLICT (brand_id, session_id) DO UPDATE SET
			arm = CASE WHEN excluded.first_at < r.first_at THEN excluded.arm ELSE r.arm END,
			first_at = least(r.first_at, excluded.first_at), last_at = greatest(r.last_at, excluded.last_at)`,
		brands, ids, arms, first, last)
	return err
}

func (r rollupTx) AddSessionOrders(ctx context.Context, o map[[2]string]*rollup.SessionOrders) error {
	keys := make([][2]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	// In one order, as every lock of the rollups.
	slices.SortFunc(keys, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	var brands, ids []string
	var orders, carts []int64
	var revenue []float64
	for _, k := range keys {
		brands, ids, orders, revenue = append(brands, k[0]), append(ids, k[1]), append(orders, o[k].Orders), append(revenue, o[k].Revenue)
		carts = append(carts, o[k].Carts)
	}
	_, err := r.tx.Exec(ctx, `UPDATE rollup_sessions s SET orders = s.orders + d.n, revenue = s.revenue + d.v, carts = s.carts + d.c
		FROM unnest($1::text[], $2::text[], $3::bigint[], $4::double precision[], $5::bigint[]) AS d(b, id, n, v, c)
		WHERE s.brand_id = d.b AND s.session_id = d.id`, brands, ids, orders, revenue, carts)
	return err
}

func (r rollupTx) HourSessions(ctx context.Context, k rollup.Key, fn func(string)) error {
	return eachRow(ctx, r.tx, func(rows pgx.Rows) error {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		fn(s)
		return nil
	}, `SELECT v.session_id FROM view_events v JOIN products p ON p.id = v.product
		WHERE v.ts >= $1 AND v.ts < $2 AND p.brand_id = $3 AND v.session_id <> '' AND ($4 = 0 OR v.product = $4)`,
		k.Hour, k.Hour+rollup.Hour, k.Brand, k.Product)
}

// countEvents adds to d, with the sign, the events the conditions select
// ("v", "c" and "e" name the tables of views, carts and orders).
func countEvents(ctx context.Context, tx pgx.Tx, d *rollup.Delta, sign int64, views, carts, orders string, args ...any) error {
	if views != "" {
		err := eachRow(ctx, tx, func(rows pgx.Rows) error {
			v, err := rollup.ScanView(rows.Scan)
			d.AddView(v, sign)
			return err
		}, "SELECT "+rollup.ViewColumns+" FROM "+rollup.ViewTables+" WHERE "+views, args...)
		if err != nil {
			return err
		}
	}
	if carts != "" {
		err := eachRow(ctx, tx, func(rows pgx.Rows) error {
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
	if err := eachRow(ctx, tx, func(rows pgx.Rows) error { return o.Add(rows.Scan) },
		"SELECT "+rollup.OrderColumns+" FROM "+rollup.OrderTables+" WHERE "+orders+" ORDER BY e.id, i.line", args...); err != nil {
		return err
	}
	return o.Flush()
}

// RebuildRollups builds the rollups again from the stored events, one UTC
// day per transaction, oldest first, as the SQLite store's does. A day's
// transaction locks the rollups against the other nodes' writes, so that
// what it counts and what they add do not cross.
func (s *Store) RebuildRollups(ctx context.Context, resume bool, progress func(day time.Time, done, total int)) error {
	var from int64
	var done bool
	if err := s.pool.QueryRow(ctx, "SELECT built_until, done FROM rollup_build").Scan(&from, &done); err != nil {
		return err
	}
	if resume && done {
		return nil
	}
	if !resume {
		from = 0
		if _, err := s.pool.Exec(ctx, "DELETE FROM rollup_sessions"); err != nil {
			return err
		}
	}
	var oldest *int64
	if err := s.pool.QueryRow(ctx, `SELECT least((SELECT min(ts) FROM view_events), (SELECT min(ts) FROM purchase_events),
		(SELECT min(ts) FROM cart_events), (SELECT min(hour) FROM rollup_hours))`).Scan(&oldest); err != nil {
		return err
	}
	end := rollup.Floor(time.Now().UnixMilli(), rollup.Day) + 2*rollup.Day
	start := end
	if oldest != nil {
		start = max(rollup.Floor(*oldest, rollup.Day), from)
	}
	total := int((end - start) / rollup.Day)
	for i, day := 0, start; day < end; i, day = i+1, day+rollup.Day {
		err := s.inTx(ctx, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "LOCK TABLE rollup_hours, rollup_countries, rollup_cities, rollup_sessions IN EXCLUSIVE MODE"); err != nil {
				return err
			}
			for _, q := range []string{"DELETE FROM rollup_hours WHERE hour >= $1 AND hour < $2", "DELETE FROM rollup_countries WHERE day >= $1 AND day < $2",
				"DELETE FROM rollup_cities WHERE day >= $1 AND day < $2"} {
				if _, err := tx.Exec(ctx, q, day, day+rollup.Day); err != nil {
					return err
				}
			}
			// The day's sessions first, so that the day's orders find them.
			if _, err := tx.Exec(ctx, "INSERT INTO rollup_sessions AS r (brand_id, session_id, arm, first_at, last_at) "+rollup.SessionsOfViews+
				`v.ts >= $1 AND v.ts < $2 GROUP BY p.brand_id, v.session_id
				ON CONFLICT (brand_id, session_id) DO UPDATE SET
					arm = CASE WHEN excluded.first_at < r.first_at THEN excluded.arm ELSE r.arm END,
					first_at = least(r.first_at, excluded.first_at), last_at = greatest(r.last_at, excluded.last_at)`, day, day+rollup.Day); err != nil {
				return err
			}
			d := &rollup.Delta{NoSessions: true}
			if err := countEvents(ctx, tx, d, 1, "v.ts >= $1 AND v.ts < $2", "c.ts >= $1 AND c.ts < $2", "e.ts >= $1 AND e.ts < $2", day, day+rollup.Day); err != nil {
				return err
			}
			if err := rollup.Apply(ctx, rollupTx{tx}, d); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "UPDATE rollup_build SET built_until = $1", day+rollup.Day)
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
	return s.inTx(ctx, func(tx pgx.Tx) error {
		for _, q := range []string{"LOCK TABLE rollup_sessions IN EXCLUSIVE MODE", "UPDATE rollup_sessions SET orders = 0, revenue = 0 WHERE orders <> 0",
			rollup.RecountSessionOrders, "UPDATE rollup_sessions SET carts = 0 WHERE carts <> 0", sqlstore.RecountSessionCarts, "UPDATE rollup_build SET done = true"} {
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
	err := s.pool.QueryRow(ctx, "SELECT done FROM rollup_build").Scan(&done)
	return done, err
}

// RollupHours calls fn with the hour rows of a brand ("" product) or one
// of its products, from up to to, oldest first.
func (s *Store) RollupHours(ctx context.Context, brandID, productID string, from, to time.Time, fn func(rollup.Row) error) error {
	return eachRow(ctx, s.pool, func(rows pgx.Rows) error {
		row := rollup.Row{Key: rollup.Key{Brand: brandID}}
		var rev string
		if err := rows.Scan(&row.Product, &row.Hour, &row.Views, &row.Carts, &row.Purchases, &row.Units, &row.PricedUnits, &rev, &row.LastAt, &row.Viewers); err != nil {
			return err
		}
		if err := row.SetRevenueText(rev); err != nil {
			return err
		}
		return fn(row)
	}, `SELECT product, hour, views, carts, purchases, units, priced_units, revenue::text, last_at, viewers FROM rollup_hours
		WHERE brand_id = $1 AND product = CASE WHEN $2 = '' THEN 0 ELSE coalesce((SELECT id FROM products WHERE brand_id = $1 AND product_id = $2), -1) END
		AND hour >= $3 AND hour < $4 ORDER BY hour`, brandID, productID, from.UnixMilli(), to.UnixMilli())
}

// RollupCountries returns the brand's country rows of the days from up
// to to.
func (s *Store) RollupCountries(ctx context.Context, brandID string, from, to time.Time) ([]rollup.CountryRow, error) {
	var out []rollup.CountryRow
	err := eachRow(ctx, s.pool, func(rows pgx.Rows) error {
		var c rollup.CountryRow
		c.Brand = brandID
		if err := rows.Scan(&c.Country, &c.Day, &c.Views, &c.Purchases); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	}, "SELECT country, day, views, purchases FROM rollup_countries WHERE brand_id = $1 AND day >= $2 AND day < $3 ORDER BY day, country",
		brandID, from.UnixMilli(), to.UnixMilli())
	return out, err
}

// RollupArms calls fn for the brand's sessions per arm, then for each of
// its orders whose session has an arm.
func (s *Store) RollupArms(ctx context.Context, brandID string, sessions func(arm string, n int64), order func(arm, session string, value float64, saw bool) error) error {
	err := eachRow(ctx, s.pool, func(rows pgx.Rows) error {
		var arm string
		var n int64
		if err := rows.Scan(&arm, &n); err != nil {
			return err
		}
		sessions(arm, n)
		return nil
	}, "SELECT arm, sessions FROM rollup_arms WHERE brand_id = $1 AND sessions > 0", brandID)
	if err != nil {
		return err
	}
	return eachRow(ctx, s.pool, func(rows pgx.Rows) error {
		var arm, session string
		var value float64
		var saw int64
		if err := rows.Scan(&arm, &session, &value, &saw); err != nil {
			return err
		}
		return order(arm, session, value, saw == 1)
	}, fmt.Sprintf(rollup.ArmSessions, "$1"), brandID)
}

// BrandProducts calls fn for every product of the brand.
func (s *Store) BrandProducts(ctx context.Context, brandID string, fn func(ref int64, productID, title string)) error {
	return eachRow(ctx, s.pool, func(rows pgx.Rows) error {
		var ref int64
		var id, title string
		if err := rows.Scan(&ref, &id, &title); err != nil {
			return err
		}
		fn(ref, id, title)
		return nil
	}, "SELECT id, product_id, coalesce(title, '') FROM products WHERE brand_id = $1", brandID)
}

// ProductTitle returns the product's latest title.
func (s *Store) ProductTitle(ctx context.Context, brandID, productID string) (string, error) {
	var t string
	err := s.pool.QueryRow(ctx, "SELECT coalesce(title, '') FROM products WHERE brand_id = $1 AND product_id = $2", brandID, productID).Scan(&t)
	if err == pgx.ErrNoRows {
		return "", nil
	}
	return t, err
}

// BrandCurrency returns the currency most of the brand's orders give,
// of those with a line left.
func (s *Store) BrandCurrency(ctx context.Context, brandID string) (string, error) {
	var c string
	err := s.pool.QueryRow(ctx, `SELECT currency FROM purchase_events e WHERE brand_id = $1 AND currency IS NOT NULL
		AND EXISTS (SELECT 1 FROM purchase_items i WHERE i.purchase = e.id AND i.quantity > 0)
		GROUP BY currency ORDER BY count(*) DESC, currency LIMIT 1`, brandID).Scan(&c)
	if err == pgx.ErrNoRows {
		return "", nil
	}
	return c, err
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
