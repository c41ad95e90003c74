package postgres

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlstore"
)

// rollupTx keeps the rollups in a write transaction (rollup.Tx). Nodes
// write the same rows at once: a transaction creates the rows it lacks
// and locks them all, in rollup.SortKeys order, before it reads them.
type rollupTx struct {
	tx pgTx
	// queued, when not nil, holds the writes until flush, which sends them
	// in one round trip: a group commit waits for each of its round trips
	// in turn (Append). A read flushes first.
	queued *pgx.Batch
}

// writes returns the batch a write queues its statements in.
func (r rollupTx) writes() *pgx.Batch {
	if r.queued != nil {
		return r.queued
	}
	return &pgx.Batch{}
}

// send sends a write's statements, unless they wait for flush.
func (r rollupTx) send(ctx context.Context, q *pgx.Batch) error {
	if q == r.queued || q.Len() == 0 {
		return nil
	}
	return r.tx.SendBatch(ctx, q).Close()
}

// take returns a batch holding the queued writes, which a read sends
// before its own statements, and empties the queue.
func (r rollupTx) take() *pgx.Batch {
	q := &pgx.Batch{}
	if r.queued != nil {
		q.QueuedQueries, r.queued.QueuedQueries = r.queued.QueuedQueries, nil
	}
	return q
}

// flush sends the queued writes.
func (r rollupTx) flush(ctx context.Context) error { return r.send(ctx, r.take()) }

func rollupKeyColumns(keys []rollup.Key) (brands []string, products, hours []int64) {
	for _, k := range keys {
		brands, products, hours = append(brands, k.Brand), append(products, k.Product), append(hours, k.Hour)
	}
	return
}

// qLockHourRows reads the stored hour rows of the keys given as three
// arrays and locks them in rollup.SortKeys order (byte order, "C"), the
// order every transaction of the rollups takes their locks in.
const qLockHourRows = "SELECT " + sqlstore.HourRowColumns + `
	FROM rollup_hours WHERE (brand_id, product, hour) IN (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]))
	ORDER BY brand_id COLLATE "C", product, hour FOR UPDATE`

// scanHourRows adds the rows of qLockHourRows to out.
func scanHourRows(rows pgx.Rows, out map[rollup.Key]*rollup.Row) error {
	return scanAll(rows, func() error {
		row, err := sqlstore.ScanHourRow(rows)
		if err == nil {
			out[row.Key] = row
		}
		return err
	})
}

func (r rollupTx) HourRows(ctx context.Context, keys []rollup.Key) (map[rollup.Key]*rollup.Row, error) {
	b, p, h := rollupKeyColumns(keys)
	out := make(map[rollup.Key]*rollup.Row, len(keys))
	q := r.take() // the writes queued before, then the read: one round trip
	q.Queue(`INSERT INTO rollup_hours (brand_id, product, hour)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) ON CONFLICT DO NOTHING`, b, p, h)
	q.Queue(qLockHourRows, b, p, h).Query(func(rows pgx.Rows) error { return scanHourRows(rows, out) })
	return out, r.tx.SendBatch(ctx, q).Close()
}

func (r rollupTx) PutHourRows(ctx context.Context, rows []*rollup.Row) error {
	var gone, kept []rollup.Key
	var views, carts, purchases, units, priced, last []int64
	var sums []*int64 // NULL without viewers
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
		var sum *int64
		if len(row.Viewers) > 0 {
			sum = new(rollup.ViewersSum(row.Viewers))
		}
		sums = append(sums, sum)
	}
	q := r.writes()
	if len(kept) > 0 {
		b, p, h := rollupKeyColumns(kept)
		q.Queue(`UPDATE rollup_hours r SET views = u.v, carts = u.c, purchases = u.pu, units = u.un, priced_units = u.pr,
			revenue = u.rev, last_at = u.la, viewers = u.vw, viewers_sum = u.vs
			FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[],
				$9::numeric[], $10::bigint[], $11::bytea[], $12::bigint[]) AS u(b, p, h, v, c, pu, un, pr, rev, la, vw, vs)
			WHERE r.brand_id = u.b AND r.product = u.p AND r.hour = u.h`, b, p, h, views, carts, purchases, units, priced, revenue, last, viewers, sums)
	}
	if len(gone) > 0 {
		b, p, h := rollupKeyColumns(gone)
		q.Queue(`DELETE FROM rollup_hours WHERE (brand_id, product, hour) IN (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]))`, b, p, h)
	}
	return r.send(ctx, q)
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
	q := r.writes()
	q.Queue(`INSERT INTO rollup_countries AS r (brand_id, country, day, views, purchases)
		SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[])
		ON CONFLICT (brand_id, day, country) DO UPDATE SET views = r.views + excluded.views, purchases = r.purchases + excluded.purchases`,
		brands, countries, days, views, purchases)
	q.Queue(`DELETE FROM rollup_countries WHERE (brand_id, country, day) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]))
		AND views = 0 AND purchases = 0`, brands, countries, days)
	return r.send(ctx, q)
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
	q := r.writes()
	q.Queue(`INSERT INTO rollup_cities AS r (brand_id, country, city, day, purchases)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
		ON CONFLICT (brand_id, day, country, city) DO UPDATE SET purchases = r.purchases + excluded.purchases`,
		brands, countries, cities, days, purchases)
	q.Queue(`DELETE FROM rollup_cities WHERE (brand_id, country, city, day) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]))
		AND purchases = 0`, brands, countries, cities, days)
	return r.send(ctx, q)
}

func (r rollupTx) PutSessions(ctx context.Context, s []*rollup.Session) error {
	var brands, ids, arms []string
	var first, last []int64
	for _, v := range s {
		brands, ids, arms, first, last = append(brands, v.Brand), append(ids, v.ID), append(arms, v.Arm), append(first, v.FirstAt), append(last, v.LastAt)
	}
	q := r.writes()
	q.Queue(`INSERT INTO rollup_sessions AS r (brand_id, session_id, arm, first_at, last_at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
		ON CONFLICT (brand_id, session_id) DO UPDATE SET
			arm = CASE WHEN excluded.first_at < r.first_at THEN excluded.arm ELSE r.arm END,
			first_at = least(r.first_at, excluded.first_at), last_at = greatest(r.last_at, excluded.last_at)`,
		brands, ids, arms, first, last)
	return r.send(ctx, q)
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
	q := r.writes()
	q.Queue(`UPDATE rollup_sessions s SET orders = s.orders + d.n, revenue = s.revenue + d.v, carts = s.carts + d.c
		FROM unnest($1::text[], $2::text[], $3::bigint[], $4::double precision[], $5::bigint[]) AS d(b, id, n, v, c)
		WHERE s.brand_id = d.b AND s.session_id = d.id`, brands, ids, orders, revenue, carts)
	return r.send(ctx, q)
}

// HourSessions reads the sessions of the hour's views to make its sketch
// again. The sessions queued for a product's hour (rollup_viewers) go:
// the sketches made from the events count them, as every transaction that
// queued one held the row's lock, which this one now holds (HourRows),
// until it committed. So a session erased after its view was queued is
// not added back. Its brand's hour, made again too in the same
// transaction (a view leaves both), leaves the queue to its products.
func (r rollupTx) HourSessions(ctx context.Context, k rollup.Key, fn func(string)) error {
	q := r.take()
	if k.Product != 0 {
		q.Queue("DELETE FROM rollup_viewers WHERE brand_id = $1 AND product = $2 AND hour = $3", k.Brand, k.Product, k.Hour)
	}
	if err := r.tx.SendBatch(ctx, q).Close(); err != nil {
		return err
	}
	return sqlstore.BlockHourSessions(ctx, sqlstore.PostgreSQL.Wrap(pgQ{r.tx}), k, fn)
}

// appendRollupTx is Append's rollupTx: its hour rows' sketches take the
// new viewers at the next fold (rollup.Deferring, FoldViewers).
type appendRollupTx struct{ rollupTx }

var _ rollup.Deferring = appendRollupTx{}

// AddHourCounts adds the rows' counts in one statement, which takes the
// rows' locks in the order given (rollup.SortKeys, as every transaction's).
func (r appendRollupTx) AddHourCounts(ctx context.Context, rows []*rollup.Row) error {
	var brands, revenue []string
	var products, hours, views, carts, purchases, units, priced, last []int64
	for _, row := range rows {
		brands, products, hours = append(brands, row.Brand), append(products, row.Product), append(hours, row.Hour)
		views, carts, purchases, units = append(views, row.Views), append(carts, row.Carts), append(purchases, row.Purchases), append(units, row.Units)
		priced, revenue, last = append(priced, row.PricedUnits), append(revenue, row.RevenueText()), append(last, row.LastAt)
	}
	q := r.writes()
	q.Queue(`INSERT INTO rollup_hours AS r (brand_id, product, hour, views, carts, purchases, units, priced_units, revenue, last_at)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[],
			$9::numeric[], $10::bigint[])
		ON CONFLICT (brand_id, product, hour) DO UPDATE SET views = r.views + excluded.views, carts = r.carts + excluded.carts,
			purchases = r.purchases + excluded.purchases, units = r.units + excluded.units, priced_units = r.priced_units + excluded.priced_units,
			revenue = r.revenue + excluded.revenue, last_at = greatest(r.last_at, excluded.last_at)`,
		brands, products, hours, views, carts, purchases, units, priced, revenue, last)
	return r.send(ctx, q)
}

// QueueViewers inserts a row of rollup_viewers for each session of each
// key, after the rows' counts: the transaction holds the rows' locks.
func (r appendRollupTx) QueueViewers(ctx context.Context, keys []rollup.Key, sessions [][]string) error {
	var brands, ids []string
	var products, hours []int64
	for i, k := range keys {
		for _, s := range sessions[i] {
			brands, products, hours, ids = append(brands, k.Brand), append(products, k.Product), append(hours, k.Hour), append(ids, s)
		}
	}
	q := r.writes()
	q.Queue(`INSERT INTO rollup_viewers (brand_id, product, hour, session_id)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[])`, brands, products, hours, ids)
	return r.send(ctx, q)
}

// foldEvery is how often a node adds the queued viewers to the sketches;
// a reading of sketches folds first (FoldViewers).
const foldEvery = time.Second

// foldKeys bounds the hour rows one fold locks and writes.
const foldKeys = 20_000

// FoldViewers adds the queued sessions (rollup_viewers) to their hour
// rows' sketches: each row's sketch read, merged and written once for
// all the sessions queued since the last fold. One node folds at a time;
// the others return at once (a reading then sees what was folded before
// the other's fold commits, as without deferral it would see what had
// committed). It locks the rows in rollup.SortKeys order, as Append does,
// then takes every session queued for them: an Append that queued one
// held the row's lock until it committed.
func (s *Store) FoldViewers(ctx context.Context) error {
	// An idle node asks once, outside a transaction: one round trip.
	var waiting bool
	if err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT FROM rollup_viewers)").Scan(&waiting); err != nil || !waiting {
		return err
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock(hashtextextended('svc fold ' || current_schema(), 0))").Scan(&mine); err != nil || !mine {
			return err
		}
		rows, err := tx.Query(ctx, "SELECT DISTINCT brand_id, product, hour FROM rollup_viewers LIMIT $1", foldKeys)
		if err != nil {
			return err
		}
		keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (k rollup.Key, err error) {
			return k, r.Scan(&k.Brand, &k.Product, &k.Hour)
		})
		if err != nil || len(keys) == 0 {
			return err
		}
		b, p, h := rollupKeyColumns(rollup.FoldKeys(keys))
		stored := make(map[rollup.Key]*rollup.Row, 2*len(keys))
		if rows, err = tx.Query(ctx, qLockHourRows, b, p, h); err != nil {
			return err
		}
		if err := scanHourRows(rows, stored); err != nil {
			return err
		}
		b, p, h = rollupKeyColumns(keys)
		if rows, err = tx.Query(ctx, `DELETE FROM rollup_viewers WHERE (brand_id, product, hour) IN
			(SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])) RETURNING brand_id, product, hour, session_id`, b, p, h); err != nil {
			return err
		}
		f := rollup.NewFolder(stored)
		var k rollup.Key
		var session []byte
		err = scanAll(rows, func() error {
			if err := rows.Scan(&k.Brand, &k.Product, &k.Hour, &session); err != nil {
				return err
			}
			return f.Add(k, session)
		})
		if err != nil {
			return err
		}
		folded, err := f.Rows()
		if err != nil || len(folded) == 0 {
			return err
		}
		var ub []string
		var up, uh, sums []int64
		var viewers [][]byte
		for _, r := range folded {
			ub, up, uh, viewers, sums = append(ub, r.Brand), append(up, r.Product), append(uh, r.Hour), append(viewers, r.Viewers), append(sums, r.ViewersSum)
		}
		_, err = tx.Exec(ctx, `UPDATE rollup_hours r SET viewers = u.vw, viewers_sum = u.vs
			FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bytea[], $5::bigint[]) AS u(b, p, h, vw, vs)
			WHERE r.brand_id = u.b AND r.product = u.p AND r.hour = u.h`, ub, up, uh, viewers, sums)
		return err
	})
}

var _ rollup.Store = (*Store)(nil)
