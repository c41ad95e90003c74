package sqlstore

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/viewblock"
)

// The dashboard's rollups (internal/rollup): their reads, their build
// from the stored events, and what a batch adds to them. Each store keeps
// its own rollup.Tx, the write path of the rows (SQLite's prepared
// statements of many rows, PostgreSQL's arrays and row locks).

// CountEvents adds to d, with the sign, the carts and orders the
// conditions select ("c" and "e" name their tables; "" skips the kind).
// Each condition takes args. Views are counted as their blocks are read
// (DropViews).
func CountEvents(ctx context.Context, q Querier, d *rollup.Delta, sign int64, carts, orders string, args ...any) error {
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

// CancelOrder takes a cancellation's units out of the brand's orders with
// its order id (svc.CancelOrder) in tx, the store's transaction, and
// counts the orders again in the rollups: they leave as they stood and
// come back as they stand.
func CancelOrder(ctx context.Context, tx Querier, ct svc.CancelTx, rt rollup.Tx, c *svc.CancelEvent) error {
	d := &rollup.Delta{}
	const cond = "e.brand_id = ? AND e.order_id = ?"
	if err := CountEvents(ctx, tx, d, -1, "", cond, c.BrandID, c.OrderID); err != nil {
		return err
	}
	if err := svc.CancelOrder(ctx, ct, c); err != nil {
		return err
	}
	if err := CountEvents(ctx, tx, d, 1, "", cond, c.BrandID, c.OrderID); err != nil {
		return err
	}
	return rollup.Apply(ctx, rt, d)
}

// RollupTx runs fn in a write transaction of the store's, with the
// transaction's rollup.Tx.
type RollupTx func(ctx context.Context, fn func(tx Querier, r rollup.Tx) error) error

// RebuildRollups builds the rollups again from the stored events, one UTC
// day per transaction of the store's RollupTx, oldest first; then it
// counts the sessions' orders and carts, the arms and the funnel again, in
// one transaction. With resume, it continues the build the first start of
// this version began (rollup_build) and does nothing once that is done;
// without, it builds everything again. progress is called after each day.
// A day's transaction locks the rollups against other nodes' writes, so
// that what it counts and what they add do not cross.
//
// Half of a build's time went to the sessions: their GROUP BY's sort, a
// row written for each of their days, and the triggers that add up the
// arms and the funnel a row at a time (docs/dashboard.md, Rollups). The
// sessions are gathered in Go as the views are read and written once,
// from time to time and at the end, with the triggers off; the arms and
// the funnel are counted at the end, a statement each, and lag the
// sessions built meanwhile.
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
		err := s.rollupTx(ctx, func(tx Querier, _ rollup.Tx) error {
			return s.withoutSessionTriggers(ctx, tx, func() error {
				return execAll(ctx, tx, "DELETE FROM rollup_sessions", "DELETE FROM rollup_arms", "DELETE FROM rollup_funnel")
			})
		})
		if err != nil {
			return err
		}
	}
	var oldest sql.NullInt64
	if err := s.w.QueryRow(ctx, `SELECT min(m) FROM (SELECT min(min_ts) AS m FROM view_blocks UNION ALL
		SELECT min(ts) FROM view_events UNION ALL SELECT min(ts) FROM purchase_events UNION ALL SELECT min(ts) FROM cart_events UNION ALL
		SELECT min(hour) FROM rollup_hours) AS o`).Scan(&oldest); err != nil {
		return err
	}
	end := rollup.Floor(time.Now().UnixMilli(), rollup.Day) + 2*rollup.Day // events a little ahead of the clock too
	start := max(rollup.Floor(oldest.Int64, rollup.Day), from)
	if !oldest.Valid {
		start = end
	}
	total := int((end - start) / rollup.Day)
	sessions := &buildSessions{}
	for i, day := 0, start; day < end; i, day = i+1, day+rollup.Day {
		err := s.rollupTx(ctx, func(tx Querier, rt rollup.Tx) error {
			return s.buildDay(ctx, tx, rt, day, sessions)
		})
		if err != nil {
			return err
		}
		if progress != nil {
			progress(time.UnixMilli(day).UTC(), i+1, total)
		}
	}
	return s.rollupTx(ctx, func(tx Querier, rt rollup.Tx) error {
		return s.withoutSessionTriggers(ctx, tx, func() error {
			// A build that resumes gathered no session of the days built
			// before: their views are read again. Writing a session again
			// changes nothing.
			// A day at a time: a driver reads or writes at once, not both.
			for day := rollup.Floor(oldest.Int64, rollup.Day); from > 0 && oldest.Valid && day < start; day += rollup.Day {
				err := s.eachView(ctx, tx, day, day+rollup.Day, func(v rollup.View) error {
					sessions.add(v)
					return nil
				})
				if err != nil {
					return err
				}
				if sessions.n >= maxBuildSessions {
					if err := sessions.write(ctx, rt); err != nil {
						return err
					}
				}
			}
			if err := sessions.write(ctx, rt); err != nil {
				return err
			}
			// A session whose views the retention expired after the build
			// gathered it has no view left, and the retention will not
			// look it up again. Then the sessions' orders and carts,
			// counted again from every stored order and cart, then the
			// arms and the funnel.
			return execAll(ctx, tx, "DELETE FROM rollup_sessions WHERE last_at < (SELECT expired_before FROM rollup_build)",
				"UPDATE rollup_sessions SET orders = 0, revenue = 0 WHERE orders <> 0", recountSessionOrders,
				"UPDATE rollup_sessions SET carts = 0 WHERE carts <> 0", RecountSessionCarts,
				"DELETE FROM rollup_arms", rollupArmsOfSessions, "DELETE FROM rollup_funnel", rollupFunnelOfSessions,
				"UPDATE rollup_build SET done = true")
		})
	})
}

// buildDay builds the day's hour, country and city rows from its events,
// and gathers its views' sessions.
func (s *Store) buildDay(ctx context.Context, tx Querier, rt rollup.Tx, day int64, sessions *buildSessions) error {
	// The sessions too, before any write: a day may write them.
	if err := s.d.Lock(ctx, tx, "rollup_hours, rollup_countries, rollup_cities, rollup_sessions, rollup_arms, rollup_funnel"); err != nil {
		return err
	}
	for _, q := range []string{"DELETE FROM rollup_hours WHERE hour >= ? AND hour < ?", "DELETE FROM rollup_countries WHERE day >= ? AND day < ?",
		"DELETE FROM rollup_cities WHERE day >= ? AND day < ?"} {
		if _, err := tx.Exec(ctx, q, day, day+rollup.Day); err != nil {
			return err
		}
	}
	// The views an hour at a time: a delta holds the session id of each
	// of its views until it is applied, and a day of 20 M views held 8.4
	// GB. An hour's rows are its own, so each is still written once.
	for hour := day; hour < day+rollup.Day; hour += rollup.Hour {
		d := &rollup.Delta{NoSessions: true}
		err := s.eachView(ctx, tx, hour, hour+rollup.Hour, func(v rollup.View) error {
			d.AddView(v, 1)
			sessions.add(v)
			return nil
		})
		if err != nil {
			return err
		}
		if err := rollup.Apply(ctx, rt, d); err != nil {
			return err
		}
	}
	d := &rollup.Delta{NoSessions: true}
	if err := CountEvents(ctx, tx, d, 1, "c.ts >= ? AND c.ts < ?", "e.ts >= ? AND e.ts < ?", day, day+rollup.Day); err != nil {
		return err
	}
	if err := rollup.Apply(ctx, rt, d); err != nil {
		return err
	}
	if sessions.n >= maxBuildSessions {
		err := s.withoutSessionTriggers(ctx, tx, func() error { return sessions.write(ctx, rt) })
		if err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, "UPDATE rollup_build SET built_until = ?", day+rollup.Day)
	return err
}

// eachView calls fn with each stored view of [from, to), for a build,
// from the blocks that may hold one and the rows not yet moved.
func (s *Store) eachView(ctx context.Context, tx Querier, from, to int64, fn func(rollup.View) error) error {
	return eachStored(ctx, tx, from, to, viewblock.DecodeCounted, func(_ int64, vs []viewblock.View) error {
		for i := range vs {
			if v := &vs[i]; v.TS >= from && v.TS < to {
				if err := fn(RollupView(v)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// A build counts the arms and the funnel from the sessions, a statement
// each, where the triggers on rollup_sessions add them up a row at a
// time.
const (
	rollupArmsOfSessions   = "INSERT INTO rollup_arms (brand_id, arm, sessions) SELECT brand_id, arm, count(*) FROM rollup_sessions GROUP BY brand_id, arm"
	rollupFunnelOfSessions = `INSERT INTO rollup_funnel (brand_id, day, sessions, carted, bought)
		SELECT brand_id, first_at - first_at % 86400000, count(*), count(CASE WHEN carts > 0 THEN 1 END), count(CASE WHEN orders > 0 THEN 1 END)
		FROM rollup_sessions GROUP BY 1, 2`
)

func execAll(ctx context.Context, tx Querier, statements ...string) error {
	for _, q := range statements {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// withoutSessionTriggers runs fn in tx with the triggers on
// rollup_sessions off, after locking the tables they keep.
func (s *Store) withoutSessionTriggers(ctx context.Context, tx Querier, fn func() error) error {
	if err := s.d.Lock(ctx, tx, "rollup_sessions, rollup_arms, rollup_funnel"); err != nil {
		return err
	}
	return s.d.withoutTriggers(ctx, tx, "rollup_sessions", fn)
}

// buildSessions gathers the sessions of a build's views in Go: the arm
// of the first view (the smaller arm code's when two share the first
// time), the first and last times. Per brand, then session id.
type buildSessions struct {
	brands map[string]map[string]buildSession
	n      int
	// The last brand's, as views of a brand mostly come together.
	brand    string
	sessions map[string]buildSession
}

type buildSession struct {
	first, last int64
	arm         int8 // 1 shown, 2 held out, else 0 ("")
}

// maxBuildSessions is how many sessions a build gathers before it writes
// them (about 100 MB).
const maxBuildSessions = 1 << 20

func (b *buildSessions) add(v rollup.View) {
	if v.Session == "" {
		return
	}
	if b.sessions == nil || v.Brand != b.brand {
		if b.brands == nil {
			b.brands = map[string]map[string]buildSession{}
		}
		b.brand, b.sessions = v.Brand, b.brands[v.Brand]
		if b.sessions == nil {
			b.sessions = map[string]buildSession{}
			b.brands[v.Brand] = b.sessions
		}
	}
	var arm int8 // buildSession's codes
	switch v.Arm {
	case holdout.ArmShown:
		arm = 1
	case holdout.ArmHeldOut:
		arm = 2
	}
	// Values, not pointers: the map's lookups are most of the time, each
	// a cache miss, and a pointer would add one.
	r, ok := b.sessions[v.Session]
	switch {
	case !ok:
		r = buildSession{first: v.At, last: v.At, arm: arm}
		b.n++
	case v.At < r.first || v.At == r.first && arm < r.arm:
		r.first, r.arm = v.At, arm
	}
	r.last = max(r.last, v.At)
	b.sessions[v.Session] = r
}

// write writes the sessions, in their key's order as rollup.Apply does,
// and forgets them.
func (b *buildSessions) write(ctx context.Context, rt rollup.Tx) error {
	arms := [...]string{"", holdout.ArmShown, holdout.ArmHeldOut}
	brands := slices.Sorted(maps.Keys(b.brands))
	for _, brand := range brands {
		sessions := b.brands[brand]
		ids := slices.Sorted(maps.Keys(sessions))
		out := make([]*rollup.Session, 0, min(len(ids), 10_000))
		for len(ids) > 0 { // in slices, as a batch's
			out = out[:0]
			for _, id := range ids[:min(len(ids), 10_000)] {
				r := sessions[id]
				out = append(out, &rollup.Session{Brand: brand, ID: id, Arm: arms[r.arm], FirstAt: r.first, LastAt: r.last})
			}
			if err := rt.PutSessions(ctx, out); err != nil {
				return err
			}
			ids = ids[len(out):]
		}
	}
	*b = buildSessions{}
	return nil
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
	return s.rollupHours(ctx, "viewers, 0", brandID, productID, from, to, fn)
}

// RollupHourSums calls fn with the hour rows as RollupHours does, with the
// digests of their viewers instead, or their viewers where a row has no
// digest (rollup.Store).
func (s *Store) RollupHourSums(ctx context.Context, brandID, productID string, from, to time.Time, fn func(rollup.Row) error) error {
	return s.rollupHours(ctx, "CASE WHEN viewers_sum IS NULL THEN viewers END, coalesce(viewers_sum, 0)", brandID, productID, from, to, fn)
}

// RollupHourCounts calls fn with the brand's own hour rows from up to
// to, oldest first, without their viewers (rollup.Store): a brand's
// 1,464 hours of sketches are 23 MB.
func (s *Store) RollupHourCounts(ctx context.Context, brandID string, from, to time.Time, fn func(rollup.Row) error) error {
	return s.rollupHours(ctx, noViewers, brandID, "", from, to, fn)
}

// noViewers are rollupHours' columns of viewers for a reading without.
const noViewers = "NULL, 0"

// rollupHours reads hour rows, their viewers and the viewers' digest from
// the columns given.
func (s *Store) rollupHours(ctx context.Context, viewers, brandID, productID string, from, to time.Time, fn func(rollup.Row) error) error {
	if s.foldViewers != nil && viewers != noViewers {
		if err := s.foldViewers(ctx); err != nil {
			return err
		}
	}
	// Each row scanned into one row and one list of its columns, which
	// fn gets a copy of: scanned into a row of its own, each was 300
	// bytes of garbage (the row and the list escape into Scan), and a
	// page reads thousands. Scan gives each its own viewers and fn its
	// own revenue.
	row := rollup.Row{Key: rollup.Key{Brand: brandID}}
	var rev string
	dest := []any{&row.Product, &row.Hour, &row.Views, &row.Carts, &row.Purchases, &row.Units, &row.PricedUnits, &rev, &row.LastAt, &row.Viewers, &row.ViewersSum}
	// Product 0 is the brand's own row; a product the brand lacks, -1,
	// has none.
	return Each(ctx, s.r, func(r Row) error {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		if err := row.SetRevenueText(rev); err != nil {
			return err
		}
		return fn(row)
	}, `SELECT product, hour, views, carts, purchases, units, priced_units, CAST(revenue AS text), last_at, `+viewers+` FROM rollup_hours
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
	if err := s.armSessionCounts(ctx, brandID, sessions); err != nil {
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

// RollupArmRevenues calls sessions as RollupArms does, then revenue with
// how many sessions with an arm that bought had a revenue, and how many
// of those saw the widget (rollup.Store).
func (s *Store) RollupArmRevenues(ctx context.Context, brandID string, sessions func(arm string, n int64), revenue func(arm string, value float64, n, saw int64) error) error {
	if err := s.armSessionCounts(ctx, brandID, sessions); err != nil {
		return err
	}
	return Each(ctx, s.r, func(r Row) error {
		var arm string
		var n, saw int64
		var value float64
		if err := r.Scan(&arm, &value, &n, &saw); err != nil {
			return err
		}
		return revenue(arm, value, n, saw)
	}, armRevenues, brandID)
}

// armSessionCounts calls sessions with the brand's sessions per arm.
func (s *Store) armSessionCounts(ctx context.Context, brandID string, sessions func(arm string, n int64)) error {
	return Each(ctx, s.r, func(r Row) error {
		var arm string
		var n int64
		if err := r.Scan(&arm, &n); err != nil {
			return err
		}
		sessions(arm, n)
		return nil
	}, "SELECT arm, sessions FROM rollup_arms WHERE brand_id = ? AND sessions > 0", brandID)
}

// BrandTitles calls fn for the brand's products with their titles, every
// one or those written after a mark (rollup.Store): two columns, as each
// column read costs through the driver (bench/RESULTS.md). The mark is
// read before the rows, each in its own snapshot: a title written between
// them is read now and again next time; none committed after the mark is
// left out of the next call's rows.
func (s *Store) BrandTitles(ctx context.Context, brandID string, after rollup.TitlesMark, fn func(ref int64, title string)) (next rollup.TitlesMark, whole bool, err error) {
	if err := s.r.QueryRow(ctx, "SELECT (SELECT version FROM erasure_version), "+s.d.changeMark).Scan(&next.Erasures, &next.Changes); err != nil {
		return next, false, err
	}
	whole = after.Changes == "" || after.Erasures != next.Erasures
	q, args := "SELECT id, coalesce(title, '') FROM products WHERE brand_id = ?", []any{brandID}
	if !whole {
		q = s.d.titlesSince
		for range strings.Count(q, "?") - 1 {
			args = append(args, after.Changes)
		}
	}
	return next, whole, Each(ctx, s.r, func(r Row) error {
		var ref int64
		var title string
		if err := r.Scan(&ref, &title); err != nil {
			return err
		}
		fn(ref, title)
		return nil
	}, q, args...)
}

// BrandProductIDs calls fn for every product of the brand whose ref is
// above after (rollup.Store): the key's index alone, without the rows.
func (s *Store) BrandProductIDs(ctx context.Context, brandID string, after int64, fn func(ref int64, productID string)) error {
	return Each(ctx, s.r, func(r Row) error {
		var ref int64
		var id string
		if err := r.Scan(&ref, &id); err != nil {
			return err
		}
		fn(ref, id)
		return nil
	}, "SELECT id, product_id FROM products WHERE brand_id = ? AND id > ? ORDER BY brand_id, product_id", brandID, after)
}

// BrandProductsKey returns the erasure version, which a merge of two
// products bumps as it removes one, and the brand's count of products,
// in one reading (rollup.Store).
func (s *Store) BrandProductsKey(ctx context.Context, brandID string) (rollup.ProductsKey, error) {
	var k rollup.ProductsKey
	err := s.r.QueryRow(ctx, "SELECT (SELECT version FROM erasure_version), count(*) FROM products WHERE brand_id = ?", brandID).
		Scan(&k.Version, &k.Products)
	return k, err
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
