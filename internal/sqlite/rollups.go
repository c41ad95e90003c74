package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

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
	rollupColumns  = "brand_id, product, hour, views, carts, purchases, units, priced_units, revenue, last_at, viewers, viewers_sum"
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

// rollupPutConflict makes a stored row's write an update in place, not a
// delete and an insert: SQLite then writes only the pages whose bytes
// changed (a sketch's one register), and leaves the hour's index alone.
var rollupPutConflict = func() string {
	var set []string
	for _, c := range strings.Split(rollupColumns, ", ")[3:] {
		set = append(set, c+" = excluded."+c)
	}
	return " ON CONFLICT (brand_id, product, hour) DO UPDATE SET " + strings.Join(set, ", ")
}()

// rollupGets[i] reads 1<<i rows by key; rollupPuts[i] writes 1<<i rows;
// rollupSessions[i] upserts 1<<i sessions.
var rollupGets, rollupPuts, rollupSessions = func() (gets, puts, sessions []string) {
	for i := range rollupSizes {
		n := 1 << i
		sessions = append(sessions, "INSERT INTO rollup_sessions (brand_id, session_id, arm, first_at, last_at) VALUES (?, ?, ?, ?, ?)"+
			strings.Repeat(", (?, ?, ?, ?, ?)", n-1)+
			` ON CONFLICT DO UPDATE SET arm = iif(excluded.first_at < first_at, excluded.arm, arm),
			first_at = min(first_at, excluded.first_at), last_at = max(last_at, excluded.last_at)`)
		gets = append(gets, "SELECT "+sqlstore.HourRowColumns+" FROM rollup_hours WHERE (brand_id, product, hour) IN (VALUES (?, ?, ?)"+
			strings.Repeat(", (?, ?, ?)", n-1)+")")
		row := "(?" + strings.Repeat(", ?", 11) + ")"
		puts = append(puts, "INSERT INTO rollup_hours ("+rollupColumns+") VALUES "+row+strings.Repeat(", "+row, n-1)+rollupPutConflict)
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
	rest := keys
	if r.p.hours != nil {
		rest = r.p.hours.get(keys, out)
		defer func() {
			for _, k := range rest { // read or absent: either is the committed row
				r.p.hoursStaged[k] = nil
				if row := out[k]; row != nil {
					r.p.hoursStaged[k] = cloneRow(row)
				}
			}
		}()
	}
	for rest := rest; len(rest) > 0; {
		n := 1 << chunk(len(rest))
		args := make([]any, 0, 3*n)
		for _, k := range rest[:n] {
			args = append(args, k.Brand, k.Product, k.Hour)
		}
		err := eachRowOf(ctx, r.p, func(rows *sql.Rows) error {
			row, err := sqlstore.ScanHourRow(rows)
			if err == nil {
				out[row.Key] = row
			}
			return err
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
		if r.p.hours != nil {
			r.p.hoursStaged[row.Key] = nil
			if !row.Empty() {
				r.p.hoursStaged[row.Key] = cloneRow(row)
			}
		}
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
		args := make([]any, 0, 12*n)
		for _, row := range rest[:n] {
			args = append(args, row.Brand, row.Product, row.Hour, row.Views, row.Carts, row.Purchases, row.Units,
				row.PricedUnits, row.RevenueText(), row.LastAt, row.Viewers, viewersSum(row.Viewers))
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
	return sqlstore.BlockHourSessions(ctx, sqlstore.SQLite.Wrap(sqlQ{r.p.tx}), k, fn)
}

// RebuildRollups builds the rollups again from the stored events
// (rollup.Store).
func (s *Store) RebuildRollups(ctx context.Context, resume bool, progress func(day time.Time, done, total int)) error {
	// The sessions' rows go in at random places of a large table: with
	// SQLite's default 2 MB of cache, most of a build was reading pages
	// back. The writer's cache grows for the build only.
	if _, err := s.w.ExecContext(ctx, "PRAGMA cache_size = -262144"); err != nil {
		return err
	}
	defer s.w.ExecContext(context.WithoutCancel(ctx), "PRAGMA cache_size = -2000")
	return s.Store.RebuildRollups(ctx, resume, progress)
}

var _ rollup.Store = (*Store)(nil)

// viewersSum is the value of rollup_hours.viewers_sum for viewers: NULL
// without any.
func viewersSum(viewers []byte) any {
	if len(viewers) == 0 {
		return nil
	}
	return rollup.ViewersSum(viewers)
}
