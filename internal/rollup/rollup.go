// Package rollup keeps the aggregates the dashboard reads instead of
// events: per brand and product and per hour, views, distinct viewers (a
// HyperLogLog sketch), add-to-carts, orders, units and revenue; per brand,
// country and day, views and orders; per brand, city and day, orders; per
// brand and session, the arm of its first view and its carts and orders
// (whose day of first view the stores' triggers add up into the funnel).
// The stores keep the rows in the transaction that writes,
// cancels, erases or expires the events; this package decides what an
// event adds to them, once for both stores (docs/dashboard.md, Rollups),
// and internal/sqlstore holds their SQL.
package rollup

import (
	"context"
	"errors"
	"hash/crc32"
	"math"
	"math/big"
	"sort"
	"time"

	"github.com/axiomhq/hyperloglog"
)

// Hour and Day are the rollups' steps, in unix milliseconds as every time
// of the stores.
const (
	Hour = int64(time.Hour / time.Millisecond)
	Day  = 24 * Hour
)

// Floor returns the start of the step that holds ms.
func Floor(ms, step int64) int64 {
	r := ms % step
	if r < 0 {
		r += step
	}
	return ms - r
}

// Micros is revenue's unit: a millionth of the currency's unit. A unit
// price is rounded to it once, when its line is counted.
const Micros = 1_000_000

// Key names an hour row: the brand's own row has product 0.
type Key struct {
	Brand   string
	Product int64
	Hour    int64 // ms, a multiple of Hour
}

// Row is one hour of a brand or a product.
type Row struct {
	Key
	Views, Carts int64
	Purchases    int64 // orders: with a line of the product, for a product
	Units        int64
	// PricedUnits are the units of the lines with a price, whose value is
	// Revenue for a product (the mean price paid is Revenue/PricedUnits).
	PricedUnits int64
	// Revenue in Micros, as a decimal integer: unbounded, so no order can
	// overflow it (a line may reach 10¹² × 10⁶ currency units).
	Revenue *big.Int
	LastAt  int64 // ms of the newest view or order counted, 0 without one
	// ViewersSum is the digest of Viewers that the stores keep beside
	// them (ViewersSum), as RollupHourSums reads it; 0 where it was not
	// read.
	ViewersSum int64
	// Viewers is the sketch of the view's session ids, marshalled; nil
	// when the hour has no view with a session.
	Viewers []byte
}

// Empty reports whether the row counts nothing, so that it is deleted.
func (r *Row) Empty() bool {
	return r.Views == 0 && r.Carts == 0 && r.Purchases == 0 && r.Units == 0 && r.PricedUnits == 0 &&
		(r.Revenue == nil || r.Revenue.Sign() == 0) && len(r.Viewers) == 0
}

// RevenueText is Revenue as stored.
func (r *Row) RevenueText() string {
	if r.Revenue == nil {
		return "0"
	}
	return r.Revenue.String()
}

// SetRevenueText reads Revenue as stored.
func (r *Row) SetRevenueText(s string) error {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return errors.New("rollup: revenue " + s + " is not a decimal integer")
	}
	r.Revenue = v
	return nil
}

// CountryKey names a country row; country "" is events without one.
type CountryKey struct {
	Brand, Country string
	Day            int64
}

// CountryCounts is what a day of a country adds.
type CountryCounts struct{ Views, Purchases int64 }

// CountryRow is a stored country row.
type CountryRow struct {
	CountryKey
	CountryCounts
}

// CityKey names a city row: the orders of a brand's day shipped to a
// city (only orders that give one).
type CityKey struct {
	Brand, Country, City string
	Day                  int64
}

// CityRow is a stored city row.
type CityRow struct {
	CityKey
	Purchases int64
}

// Funnel is the brand's sessions whose first view falls in a span, and
// of those, how many added to a cart and how many bought.
type Funnel struct{ Sessions, Carted, Bought int64 }

// Session is a brand's session as the holdout experiment needs it: the
// arm of its first view, and when it was first and last seen.
type Session struct {
	Brand, ID, Arm  string
	FirstAt, LastAt int64
}

// View, Cart and Order are events as the rollups see them.
type View struct {
	Brand                 string
	Product               int64
	At                    int64
	Session, Country, Arm string
}

// Cart is an add-to-cart.
type Cart struct {
	Brand   string
	Product int64
	At      int64
	Session string
}

// Order is an order with its lines as they stand (cancelled units taken
// out; lines with none left may be given and count nothing).
type Order struct {
	Brand                  string
	At                     int64
	Session, Country, City string
	Total                  *float64
	Lines                  []Line
}

// Line is a line of an order.
type Line struct {
	Product  int64
	Quantity int64
	Price    *float64
}

// microsOf is a unit price in Micros, rounded. Prices are at most
// svc.MaxAmount (10¹²), so it fits an int64 with room.
func microsOf(p float64) int64 { return int64(math.Round(p * Micros)) }

func lineValue(l Line) *big.Int {
	v := big.NewInt(microsOf(*l.Price))
	return v.Mul(v, big.NewInt(l.Quantity))
}

// Value returns the order's value in Micros: its lines' prices times
// units when every line left has a price (so that it follows
// cancellations), else its total_value, or without one the priced
// lines'; ok is false for an order with no line left, which counts
// nothing.
func (o *Order) Value() (v *big.Int, ok bool) {
	v = new(big.Int)
	priced := true
	for _, l := range o.Lines {
		if l.Quantity <= 0 {
			continue
		}
		ok = true
		if l.Price == nil {
			priced = false
			continue
		}
		v.Add(v, lineValue(l))
	}
	if !priced && o.Total != nil {
		v.SetInt64(microsOf(*o.Total))
	}
	return v, ok
}

// Delta is what a transaction changes in the rollups.
type Delta struct {
	// NoSessions leaves the sessions' rows and their orders out, for a
	// build that counts them in SQL (internal/sqlstore).
	NoSessions bool

	rows      map[Key]*change
	countries map[CountryKey]*CountryCounts
	cities    map[CityKey]int64
	sessions  map[[2]string]*Session
	orders    map[[2]string]*SessionOrders
	// leaving holds the sessions that lost a view (LeavingSessions).
	leaving map[[2]string]bool
}

// LeavingSessions returns the brands and ids of the sessions that lost a
// view, in key order: those of expired views are the only sessions the
// retention may leave with none (internal/sqlstore, DeleteExpired).
func (d *Delta) LeavingSessions() (brands, ids []string) {
	keys := make([][2]string, 0, len(d.leaving))
	for k := range d.leaving {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		brands, ids = append(brands, k[0]), append(ids, k[1])
	}
	return brands, ids
}

// SessionOrders is what a session's orders and carts add to its row: the
// lift's converted sessions and their revenue, and the funnel's sessions
// that carted, kept on the write path so that a page reads the sessions
// that bought rather than joining every order with every session
// (docs/dashboard.md, Rollups).
type SessionOrders struct {
	Orders  int64
	Revenue float64 // in the currency's unit, as the lift's statistics take it
	Carts   int64
}

type change struct {
	Row
	sessions []string // to add to the sketch
	stale    bool     // some views left: the sketch is made again from the events
}

func (d *Delta) row(k Key) *change {
	if d.rows == nil {
		d.rows = map[Key]*change{}
	}
	c := d.rows[k]
	if c == nil {
		c = &change{Row: Row{Key: k, Revenue: new(big.Int)}}
		d.rows[k] = c
	}
	return c
}

func (d *Delta) country(brand, country string, at int64) *CountryCounts {
	if d.countries == nil {
		d.countries = map[CountryKey]*CountryCounts{}
	}
	k := CountryKey{brand, country, Floor(at, Day)}
	c := d.countries[k]
	if c == nil {
		c = &CountryCounts{}
		d.countries[k] = c
	}
	return c
}

// session returns what the delta adds to a session's orders and carts.
func (d *Delta) session(brand, session string) *SessionOrders {
	if d.orders == nil {
		d.orders = map[[2]string]*SessionOrders{}
	}
	k := [2]string{brand, session}
	so := d.orders[k]
	if so == nil {
		so = &SessionOrders{}
		d.orders[k] = so
	}
	return so
}

// Empty reports whether the delta changes nothing.
func (d *Delta) Empty() bool {
	return len(d.rows) == 0 && len(d.countries) == 0 && len(d.cities) == 0 && len(d.sessions) == 0 && len(d.orders) == 0
}

// AddView counts a view in (sign 1) or out (sign -1). A view taken out
// marks its hours' sketches stale: a sketch cannot forget a session.
func (d *Delta) AddView(v View, sign int64) {
	h := Floor(v.At, Hour)
	for _, k := range []Key{{v.Brand, 0, h}, {v.Brand, v.Product, h}} {
		c := d.row(k)
		c.Views += sign
		if sign > 0 {
			c.LastAt = max(c.LastAt, v.At)
			if v.Session != "" {
				c.sessions = append(c.sessions, v.Session)
			}
		} else if v.Session != "" {
			c.stale = true
		}
	}
	if sign < 0 && v.Session != "" {
		if d.leaving == nil {
			d.leaving = map[[2]string]bool{}
		}
		d.leaving[[2]string{v.Brand, v.Session}] = true
	}
	d.country(v.Brand, v.Country, v.At).Views += sign
	if sign > 0 && v.Session != "" && !d.NoSessions {
		if d.sessions == nil {
			d.sessions = map[[2]string]*Session{}
		}
		sk := [2]string{v.Brand, v.Session}
		s := d.sessions[sk]
		switch {
		case s == nil:
			d.sessions[sk] = &Session{Brand: v.Brand, ID: v.Session, Arm: v.Arm, FirstAt: v.At, LastAt: v.At}
		case v.At < s.FirstAt:
			s.FirstAt, s.Arm = v.At, v.Arm
		}
		if s != nil && v.At > s.LastAt {
			s.LastAt = v.At
		}
	}
}

// AddCart counts an add-to-cart in or out.
func (d *Delta) AddCart(c Cart, sign int64) {
	h := Floor(c.At, Hour)
	for _, k := range []Key{{c.Brand, 0, h}, {c.Brand, c.Product, h}} {
		d.row(k).Carts += sign // LastAt is of views and orders
	}
	if c.Session != "" && !d.NoSessions { // a build counts them in SQL (sqlstore.RecountSessionCarts)
		d.session(c.Brand, c.Session).Carts += sign
	}
}

// AddOrder counts an order as it stands in or out: once for the brand and
// once for every product it has a line of.
func (d *Delta) AddOrder(o Order, sign int64) {
	value, ok := o.Value()
	if !ok {
		return
	}
	if o.Session != "" && !d.NoSessions { // a build counts them in SQL (internal/sqlstore)
		so := d.session(o.Brand, o.Session)
		v, _ := new(big.Rat).SetFrac(value, big.NewInt(Micros)).Float64()
		so.Orders += sign
		so.Revenue += float64(sign) * v
	}
	h := Floor(o.At, Hour)
	s := big.NewInt(sign)
	b := d.row(Key{o.Brand, 0, h})
	b.Purchases += sign
	b.Revenue.Add(b.Revenue, value.Mul(value, s))
	if sign > 0 {
		b.LastAt = max(b.LastAt, o.At)
	}
	seen := map[int64]bool{}
	for _, l := range o.Lines {
		if l.Quantity <= 0 {
			continue
		}
		b.Units += sign * l.Quantity
		p := d.row(Key{o.Brand, l.Product, h})
		if !seen[l.Product] {
			seen[l.Product] = true
			p.Purchases += sign
		}
		p.Units += sign * l.Quantity
		if l.Price != nil {
			p.PricedUnits += sign * l.Quantity
			p.Revenue.Add(p.Revenue, lineValue(l).Mul(lineValue(l), s))
		}
	}
	d.country(o.Brand, o.Country, o.At).Purchases += sign
	if o.City != "" {
		if d.cities == nil {
			d.cities = map[CityKey]int64{}
		}
		d.cities[CityKey{o.Brand, o.Country, o.City, Floor(o.At, Day)}] += sign
	}
}

// Tx is a store's transaction, as Apply writes the rollups in it.
type Tx interface {
	// HourRows returns the stored rows of the keys that have one.
	HourRows(ctx context.Context, keys []Key) (map[Key]*Row, error)
	// PutHourRows stores the rows as given, deleting the empty ones.
	PutHourRows(ctx context.Context, rows []*Row) error
	// AddCountries adds the counts to the stored ones.
	AddCountries(ctx context.Context, c map[CountryKey]*CountryCounts) error
	// PutSessions stores the sessions: a session already stored keeps the
	// arm of the earlier first view, and the later last view.
	PutSessions(ctx context.Context, s []*Session) error
	// AddCities adds the orders to the stored city rows, and deletes those
	// left with none.
	AddCities(ctx context.Context, c map[CityKey]int64) error
	// AddSessionOrders adds to the stored sessions' orders, revenue and
	// carts; a session without a row (no view yet) is in no arm and keeps
	// nothing.
	AddSessionOrders(ctx context.Context, o map[[2]string]*SessionOrders) error
	// HourSessions calls fn with the session id of every stored view of
	// the brand's hour, of one product or, with product 0, of all.
	HourSessions(ctx context.Context, k Key, fn func(session string)) error
}

// Deferring is a Tx whose hour rows' sketches take new viewers later, in
// a fold of the store's own (internal/postgres): a delta that only adds
// then adds its counts to the rows without reading them, and queues its
// viewers, rather than read, merge and write back a sketch of up to 16 KiB
// for each row each transaction (docs/decisions.md, Viewers folded in).
type Deferring interface {
	Tx
	// AddHourCounts adds the rows' counts to the stored ones, creating the
	// rows it lacks, and keeps the later LastAt; it leaves their viewers.
	AddHourCounts(ctx context.Context, rows []*Row) error
	// QueueViewers queues sessions[i] for the sketches of keys[i], a
	// product's hour, and of its brand's hour (a view adds its session to
	// both, so one row a view does).
	QueueViewers(ctx context.Context, keys []Key, sessions [][]string) error
}

// Folder adds queued sessions to their hour rows' sketches: a store's
// fold of what a Deferring transaction queued.
type Folder struct {
	rows     map[Key]*Row
	sketches map[Key]*hyperloglog.Sketch
}

// FoldKeys returns the keys whose rows a fold of sessions queued for the
// products' keys given writes: theirs and their brands', in SortKeys
// order, each once.
func FoldKeys(queued []Key) []Key {
	seen := make(map[Key]bool, 2*len(queued))
	var out []Key
	for _, k := range queued {
		for _, k := range []Key{{k.Brand, 0, k.Hour}, k} {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	SortKeys(out)
	return out
}

// NewFolder folds into the stored rows given (those of FoldKeys); a key
// without one (gone since, with its views) takes nothing.
func NewFolder(rows map[Key]*Row) *Folder {
	return &Folder{rows: rows, sketches: make(map[Key]*hyperloglog.Sketch)}
}

// Add adds a session queued for a product's hour to its sketch and to
// its brand's.
func (f *Folder) Add(k Key, session []byte) error {
	if err := f.add(Key{k.Brand, 0, k.Hour}, session); err != nil {
		return err
	}
	return f.add(k, session)
}

func (f *Folder) add(k Key, session []byte) error {
	r := f.rows[k]
	if r == nil || r.Views <= 0 { // views without a session leave no sketch, and none is left
		return nil
	}
	sk := f.sketches[k]
	if sk == nil {
		var err error
		if sk, err = Sketch(r.Viewers); err != nil {
			return err
		}
		f.sketches[k] = sk
	}
	sk.Insert(session)
	return nil
}

// Rows returns the rows whose sketches took sessions, in SortKeys order,
// their Viewers and ViewersSum set.
func (f *Folder) Rows() ([]*Row, error) {
	keys := make([]Key, 0, len(f.sketches))
	for k := range f.sketches {
		keys = append(keys, k)
	}
	SortKeys(keys)
	out := make([]*Row, len(keys))
	for i, k := range keys {
		r := f.rows[k]
		v, err := f.sketches[k].MarshalBinary()
		if err != nil {
			return nil, err
		}
		r.Viewers, r.ViewersSum = v, ViewersSum(v)
		out[i] = r
	}
	return out, nil
}

// sortedKeys returns the keys of the delta's hour rows in SortKeys order,
// the order a transaction writes and locks them in.
func (d *Delta) sortedKeys() []Key {
	keys := make([]Key, 0, len(d.rows))
	for k := range d.rows {
		keys = append(keys, k)
	}
	SortKeys(keys)
	return keys
}

// onlyAdds reports whether the delta's hour rows only grow: no event
// leaves them, so no sketch is made again.
func (d *Delta) onlyAdds() bool {
	for _, c := range d.rows {
		if c.stale || c.Views < 0 || c.Carts < 0 || c.Purchases < 0 || c.Units < 0 || c.PricedUnits < 0 || c.Revenue.Sign() < 0 {
			return false
		}
	}
	return true
}

// Apply writes the delta in tx. Keys are written in one order, so that
// two transactions of a shared store lock their rows in one order.
func Apply(ctx context.Context, tx Tx, d *Delta) error {
	if dt, ok := tx.(Deferring); ok && len(d.rows) > 0 && d.onlyAdds() {
		keys := d.sortedKeys()
		rows := make([]*Row, len(keys))
		var viewed []Key
		var sessions [][]string
		for i, k := range keys {
			c := d.rows[k]
			rows[i] = &c.Row
			if len(c.sessions) > 0 && k.Product != 0 { // a brand's are its products' (QueueViewers)
				viewed, sessions = append(viewed, k), append(sessions, c.sessions)
			}
		}
		if err := dt.AddHourCounts(ctx, rows); err != nil {
			return err
		}
		if len(viewed) > 0 {
			if err := dt.QueueViewers(ctx, viewed, sessions); err != nil {
				return err
			}
		}
		return applyRest(ctx, tx, d)
	}
	if len(d.rows) > 0 {
		keys := d.sortedKeys()
		stored, err := tx.HourRows(ctx, keys)
		if err != nil {
			return err
		}
		out := make([]*Row, 0, len(keys))
		for _, k := range keys {
			c := d.rows[k]
			r := stored[k]
			if r == nil {
				r = &Row{Key: k, Revenue: new(big.Int)}
			}
			r.Views += c.Views
			r.Carts += c.Carts
			r.Purchases += c.Purchases
			r.Units += c.Units
			r.PricedUnits += c.PricedUnits
			r.Revenue.Add(r.Revenue, c.Revenue)
			r.LastAt = max(r.LastAt, c.LastAt)
			switch {
			case c.stale:
				sk := hyperloglog.New14()
				n := 0
				if err := tx.HourSessions(ctx, k, func(s string) { sk.Insert([]byte(s)); n++ }); err != nil {
					return err
				}
				r.Viewers = nil
				if n > 0 {
					if r.Viewers, err = sk.MarshalBinary(); err != nil {
						return err
					}
				}
			case len(c.sessions) > 0:
				sk, err := Sketch(r.Viewers)
				if err != nil {
					return err
				}
				for _, s := range c.sessions {
					sk.Insert([]byte(s))
				}
				if r.Viewers, err = sk.MarshalBinary(); err != nil {
					return err
				}
			}
			if r.Views <= 0 {
				r.Viewers = nil // views without a session leave no sketch
			}
			out = append(out, r)
		}
		if err := tx.PutHourRows(ctx, out); err != nil {
			return err
		}
	}
	return applyRest(ctx, tx, d)
}

// applyRest writes what the delta changes beside the hour rows.
func applyRest(ctx context.Context, tx Tx, d *Delta) error {
	if len(d.countries) > 0 {
		if err := tx.AddCountries(ctx, d.countries); err != nil {
			return err
		}
	}
	if len(d.cities) > 0 {
		if err := tx.AddCities(ctx, d.cities); err != nil {
			return err
		}
	}
	if len(d.sessions) > 0 {
		s := make([]*Session, 0, len(d.sessions))
		for _, v := range d.sessions {
			s = append(s, v)
		}
		sort.Slice(s, func(i, j int) bool { return s[i].Brand < s[j].Brand || s[i].Brand == s[j].Brand && s[i].ID < s[j].ID })
		if err := tx.PutSessions(ctx, s); err != nil {
			return err
		}
	}
	if len(d.orders) > 0 { // after the sessions: a view and an order of one batch
		return tx.AddSessionOrders(ctx, d.orders)
	}
	return nil
}

// SortKeys sorts keys by brand, product and hour.
func SortKeys(keys []Key) {
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Brand != b.Brand {
			return a.Brand < b.Brand
		}
		if a.Product != b.Product {
			return a.Product < b.Product
		}
		return a.Hour < b.Hour
	})
}

// Sketch decodes a stored sketch; nil is an empty one.
func Sketch(b []byte) (*hyperloglog.Sketch, error) {
	sk := hyperloglog.New14()
	if len(b) == 0 {
		return sk, nil
	}
	if err := sk.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return sk, nil
}

// ViewersSum is the digest of a row's marshalled viewers that the stores
// keep beside them (rollup_hours.viewers_sum), written with them: a
// reading tells whether a day's merged viewers changed from the digests
// of its hours, without reading their sketches (16 KiB an hour for a
// busy brand). Two CRC-32s, 64 bits, never 0; 0 for no viewers.
func ViewersSum(viewers []byte) int64 {
	if len(viewers) == 0 {
		return 0
	}
	return int64(uint64(crc32.Checksum(viewers, castagnoli))<<32 | uint64(crc32.ChecksumIEEE(viewers)) | 1)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SketchError is the sketches' relative standard error: 1.04/√2¹⁴
// (precision 14, 16,384 registers). Below a few thousand sessions the
// sketch is sparse and its count all but exact.
const SketchError = 0.0081

// ProductsKey changes whenever a product of a brand is added or removed:
// a product is only ever added, or removed by a merge, which bumps the
// store's erasure version.
type ProductsKey struct {
	Version  int64 // the store's erasure version
	Products int64 // the brand's products
}

// TitlesMark is how far BrandTitles read a brand's titles: the store's
// erasure version, which a merge of two products bumps as it removes
// one, and its change feed's mark of its products' writes (SQLite's
// products.changed, PostgreSQL's snapshot), both kept in the database:
// every node sees a title another wrote. The zero mark: nothing read.
type TitlesMark struct {
	Erasures int64
	Changes  string
}

// Store is what a store keeps and answers of the rollups.
type Store interface {
	// RollupHours calls fn with each hour row of a brand (product "") or
	// of one of its products with an hour in [from, to), oldest first.
	RollupHours(ctx context.Context, brandID, productID string, from, to time.Time, fn func(Row) error) error
	// RollupHourCounts calls fn with the brand's own hour rows in [from,
	// to), oldest first, without their viewers.
	RollupHourCounts(ctx context.Context, brandID string, from, to time.Time, fn func(Row) error) error
	// RollupHourSums is RollupHours with each row's ViewersSum in place
	// of its viewers, but for a row written before the digests were kept,
	// whose viewers it reads.
	RollupHourSums(ctx context.Context, brandID, productID string, from, to time.Time, fn func(Row) error) error
	// RollupCountries returns the brand's country rows of the days in
	// [from, to).
	RollupCountries(ctx context.Context, brandID string, from, to time.Time) ([]CountryRow, error)
	// RollupCities returns the brand's city rows of the days in [from,
	// to): the orders that gave a city, per city and day.
	RollupCities(ctx context.Context, brandID string, from, to time.Time) ([]CityRow, error)
	// RollupFunnel returns the brand's sessions whose first view is in a
	// day of [from, to), and of those the ones that carted and bought.
	RollupFunnel(ctx context.Context, brandID string, from, to time.Time) (Funnel, error)
	// RollupArms calls sessions with the number of the brand's sessions
	// per arm of their first view, then order with the revenue of every
	// session with an arm that bought, and whether it saw the widget.
	RollupArms(ctx context.Context, brandID string, sessions func(arm string, n int64), order func(arm, session string, value float64, saw bool) error) error
	// RollupArmRevenues calls sessions as RollupArms does, then revenue
	// with how many of the sessions with an arm that bought had a revenue,
	// and how many of those saw the widget: the arms' revenues, a call per
	// distinct value (or a few) rather than per session.
	RollupArmRevenues(ctx context.Context, brandID string, sessions func(arm string, n int64), revenue func(arm string, value float64, n, saw int64) error) error
	// BrandTitles calls fn for the products of the brand with their
	// titles ("" without one) and returns the mark to read the next
	// changes from: with the zero mark, or whole (a product was removed
	// since after: its ref may come back), every product; else those
	// registered or written since after, by any process or node. A title
	// written while it reads is read now or the next time, never missed.
	BrandTitles(ctx context.Context, brandID string, after TitlesMark, fn func(ref int64, title string)) (next TitlesMark, whole bool, err error)
	// BrandProductIDs calls fn for every product of the brand whose ref
	// is above after, without its title: a brand's list of products reads
	// only these.
	BrandProductIDs(ctx context.Context, brandID string, after int64, fn func(ref int64, productID string)) error
	// BrandProductsKey returns what changes whenever a product of the
	// brand is added or removed.
	BrandProductsKey(ctx context.Context, brandID string) (ProductsKey, error)
	// ProductTitle returns the product's latest title, "" without one or
	// without the product.
	ProductTitle(ctx context.Context, brandID, productID string) (string, error)
	// BrandCurrency returns the currency most of the brand's orders give.
	BrandCurrency(ctx context.Context, brandID string) (string, error)
	// RebuildRollups builds the rollups from the stored events, a UTC day
	// per transaction; with resume, only what the first start of this
	// version has not built yet.
	RebuildRollups(ctx context.Context, resume bool, progress func(day time.Time, done, total int)) error
	// RollupsBuilt reports whether the first build is done.
	RollupsBuilt(ctx context.Context) (bool, error)
}
