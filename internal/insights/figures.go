package insights

import (
	"cmp"
	"context"
	"math"
	"math/big"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/axiomhq/hyperloglog"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/window"
)

// Source is the part of a store the figures are read from: its rollups.
type Source interface {
	rollup.Store
	rollup.WidgetStore
}

// Live is where a product's exact counts in windows ending now come from:
// the window engine of the tracker, which the widget's proof reads too.
type Live interface {
	// CountsOf sets out[i] to the product's counts in ws[i].
	CountsOf(ref svc.ProductRef, now time.Time, ws []window.Windows, out []window.Counts)
}

// Window is a span of whole hours, [From, To): what a figure counts.
// Every figure of the pages takes one, so that a date range is a
// parameter.
type Window struct{ From, To time.Time }

// hoursKept is how far back the brand's hourly rows are read: the 30 days
// and the 30 before, with the current hour.
const hoursKept = 61 * 24 * time.Hour

// End is the end of the hour that holds now: the windows of the pages
// end there, so that the current hour counts whole (docs/dashboard.md).
func End(now time.Time) time.Time { return now.UTC().Truncate(time.Hour).Add(time.Hour) }

// Figures are a brand's figures as its pages show them, computed from
// the rollups at At.
type Figures struct {
	BrandID  string
	At       time.Time
	Currency string
	// FromRollups is true: the figures were computed from the rollups,
	// never from the events (what the dashboard's timing test checks).
	FromRollups bool
	hours       []rollup.Row // the brand's own rows, oldest first, without their sketches
	// The windows asked for, each computed once per reading: a window's
	// viewers merge its hours' sketches, read again for it alone.
	windows struct {
		sync.Mutex
		m map[Window]Totals
	}

	src  Source
	days *dayCache // whole days' viewers, shared by the readings; nil: none
	ids  *idCache  // the brands' products, shared likewise; nil: none
	// The brands' titles, shared likewise; nil: read every time.
	titles *titleCache
	// The experiment's arms, read when first asked for: only the overview
	// and the experiment endpoint need them (a row per session that
	// bought).
	arms struct {
		sync.Mutex
		done        bool
		shown, held holdout.Arm
		saw, unseen holdout.Arm // sessions that saw the widget, and the others
	}
	products productsRead

	cache *Cache // the Cache that read them; nil: none
	holds int    // under cache.mu: the requests and the cache holding them
}

// Release says the caller is done with f, which it had from a Cache's
// Brand: once no one holds them, f's buffers go to the readings to come,
// and f must not be used again.
func (f *Figures) Release() {
	if c := f.cache; c != nil {
		c.mu.Lock()
		c.release(f)
		c.mu.Unlock()
	}
}

// productsRead are the brand's products with counts, as a reading keeps
// them: 44 bytes a product, where a ProductRow is 176 and a brand may have
// 100,000 (their garbage was most of a page's memory, bench/RESULTS.md). A
// ProductRow is made for the rows a page shows, one at a time for the CSV.
type productsRead struct {
	sync.Mutex
	refs []int64  // the brand's products (idCache's, shared)
	ids  []string // refs[i]'s id
	rows []packedCounts
	wide map[int]productCounts // by row position: rows[i] with a count past 2³²−1
	done bool
}

// productCounts are a product's counts.
type productCounts struct {
	at int32 // in productsRead's refs and ids
	// Views of the last 24 hours and 7 days, orders and units of the 7
	// days; the live counts (viewers of the hour, orders of the day).
	dayViews, weekViews, weekPurchases, weekUnits int64
	liveViewers, livePurchases                    int64
	live                                          LiveCounts
}

// packedCounts are productCounts in 32 bits each, as all but a giant's
// fit; a row with one that does not is wide, and kept whole apart.
type packedCounts struct {
	at   int32
	n    [9]uint32
	wide bool
}

// pack packs c; ok is false when a count does not fit.
func pack(c productCounts) (p packedCounts, ok bool) {
	n := [9]int64{c.dayViews, c.weekViews, c.weekPurchases, c.weekUnits, c.liveViewers, c.livePurchases,
		c.live.Viewers5, c.live.Views30, c.live.Purchases30}
	p.at = c.at
	for i, v := range n {
		if v < 0 || v > math.MaxUint32 {
			return packedCounts{at: c.at, wide: true}, false
		}
		p.n[i] = uint32(v)
	}
	return p, true
}

// get returns the counts of rows[i].
func (p *productsRead) get(i int) productCounts {
	r := &p.rows[i]
	if r.wide {
		return p.wide[i]
	}
	n := &r.n
	return productCounts{at: r.at, dayViews: int64(n[0]), weekViews: int64(n[1]), weekPurchases: int64(n[2]), weekUnits: int64(n[3]),
		liveViewers: int64(n[4]), livePurchases: int64(n[5]),
		live: LiveCounts{Viewers5: int64(n[6]), Views30: int64(n[7]), Purchases30: int64(n[8])}}
}

// row makes the ProductRow of c, without its title.
func (f *Figures) row(c *productCounts) ProductRow {
	p := &f.products
	return ProductRow{Ref: p.refs[c.at], ProductID: p.ids[c.at],
		Day:         Totals{Views: c.dayViews, Purchases: c.livePurchases},
		Week:        Totals{Views: c.weekViews, Purchases: c.weekPurchases, Units: c.weekUnits},
		LiveViewers: c.liveViewers, LivePurchases: c.livePurchases, Trend: trendOf(c)}
}

// loadFigures reads the brand's hour rows without their sketches: a
// brand's 1,464 hours of sketches are 23 MB to read, decode and merge,
// and a page shows the viewers of one window and the one before
// (Totals).
func loadFigures(ctx context.Context, src Source, brandID string, now time.Time) (*Figures, error) {
	// Sized at once, for the most rows the 61 days hold: appended, they
	// allocated 4 times theirs as the slice grew.
	f := &Figures{BrandID: brandID, At: now, FromRollups: true, src: src, hours: make([]rollup.Row, 0, hoursKept/time.Hour)}
	end := End(now)
	err := src.RollupHourCounts(ctx, brandID, end.Add(-hoursKept), end, func(r rollup.Row) error {
		f.hours = append(f.hours, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if f.Currency, err = src.BrandCurrency(ctx, brandID); err != nil {
		return nil, err
	}
	return f, nil
}

// money turns Micros into the currency's unit, for ratios; the sum
// itself stays exact in the store.
func moneyFloat(micros *big.Int) float64 {
	v, _ := new(big.Rat).SetFrac(micros, big.NewInt(rollup.Micros)).Float64()
	return v
}

// moneyOf turns Micros into a Money: its double-double is the decimal
// sum to about 32 digits, so the page prints the store's exact sum to the
// cent at any size the bounds allow.
func moneyOf(micros *big.Int) Money {
	x := new(big.Float).SetPrec(256).SetInt(micros)
	x.Quo(x, new(big.Float).SetPrec(256).SetInt64(rollup.Micros))
	hi, _ := x.Float64()
	lo, _ := x.Sub(x, new(big.Float).SetFloat64(hi)).Float64()
	return Money{hi, lo}
}

// tally adds rows up; its viewers are their sketches merged.
type tally struct {
	t       Totals
	revenue big.Int
	sk      *hyperloglog.Sketch
}

// add counts a row in, but its viewers (merge).
func (a *tally) add(r rollup.Row) {
	a.t.Views += r.Views
	a.t.Carts += r.Carts
	a.t.Purchases += r.Purchases
	a.t.Units += r.Units
	a.revenue.Add(&a.revenue, r.Revenue)
}

// merge adds viewers; sk is left as it is.
func (a *tally) merge(sk *hyperloglog.Sketch) error {
	if a.sk == nil {
		a.sk = sk.Clone()
		return nil
	}
	return a.sk.Merge(sk)
}

func (a *tally) totals() Totals {
	t := a.t
	if a.sk != nil {
		t.Viewers = int64(a.sk.Estimate())
	}
	t.Revenue = moneyOf(&a.revenue)
	return t
}

// pageWindows are the overview's periods at now, each followed by the
// one before it: today, 7 days and 30 days.
func pageWindows(now time.Time) []Window {
	end := End(now)
	midnight := end.Add(-time.Nanosecond).Truncate(24 * time.Hour)
	day := 24 * time.Hour
	w := []Window{{midnight, end}, {midnight.Add(-day), end.Add(-day)}}
	for _, days := range []int{7, 30} {
		span := time.Duration(days) * day
		w = append(w, Window{end.Add(-span), end}, Window{end.Add(-2 * span), end.Add(-span)})
	}
	return w
}

// windowsKept bounds the windows a reading keeps: custom ranges are many.
const windowsKept = 64

// Totals returns the brand's figures over the window, computed once per
// reading (two requests for one window wait for one computation).
func (f *Figures) Totals(ctx context.Context, w Window) (Totals, error) {
	c := &f.windows
	c.Lock()
	defer c.Unlock()
	if t, ok := c.m[w]; ok {
		return t, nil
	}
	t, err := f.ProductTotals(ctx, "", w)
	if err != nil {
		return t, err
	}
	if c.m == nil || len(c.m) == windowsKept {
		c.m = map[Window]Totals{}
	}
	c.m[w] = t
	return t, nil
}

// Counts returns the brand's figures over a window within the 61 days,
// but its viewers, from the rows read: no sketch is read.
func (f *Figures) Counts(w Window) Totals {
	var a tally
	for _, r := range f.hoursIn(w) {
		a.add(r)
	}
	return a.totals()
}

// hoursIn returns the rows read of the window's hours, a part of f.hours
// (oldest first): not a copy.
func (f *Figures) hoursIn(w Window) []rollup.Row {
	at := func(t time.Time) int {
		i, _ := slices.BinarySearchFunc(f.hours, t.UnixMilli(), func(r rollup.Row, hour int64) int { return cmp.Compare(r.Hour, hour) })
		return i
	}
	return f.hours[at(w.From):max(at(w.From), at(w.To))]
}

// ProductTotals reads one product's figures (the brand's with "") over
// any window. The viewers of each day's hours come merged from the
// reading's day cache, when it has one, keyed by the digests of their
// sketches: the sketches are read only for the hours of a day whose
// merge the cache lacks.
func (f *Figures) ProductTotals(ctx context.Context, productID string, w Window) (Totals, error) {
	var a tally
	if f.days == nil {
		err := f.src.RollupHours(ctx, f.BrandID, productID, w.From, w.To, func(r rollup.Row) error {
			a.add(r)
			return a.mergeBytes(r.Viewers)
		})
		return a.totals(), err
	}
	var hours []hourSum // those with viewers, oldest first
	if productID == "" {
		// Sized at once, as a brand has views about every hour (appended,
		// the slice allocated about 4 times its size as it grew); not a
		// product, which may have a few, and the digest reads each.
		hours = make([]hourSum, 0, max(0, min(w.To.Sub(w.From), hoursKept)/time.Hour))
	}
	err := f.src.RollupHourSums(ctx, f.BrandID, productID, w.From, w.To, func(r rollup.Row) error {
		a.add(r)
		if r.ViewersSum == 0 && len(r.Viewers) > 0 { // written before the digests
			r.ViewersSum = rollup.ViewersSum(r.Viewers)
		}
		if r.ViewersSum != 0 {
			hours = append(hours, hourSum{r.Hour, r.ViewersSum, r.Views, r.Viewers})
		}
		return nil
	})
	if err != nil {
		return a.totals(), err
	}
	// A span is the hours of one UTC day, but the current hour, which
	// changes with every view and is a span of its own, not kept: merged,
	// or read and merged.
	current := rollup.Floor(f.At.UnixMilli(), rollup.Hour)
	for len(hours) > 0 {
		day := rollup.Floor(hours[0].hour, rollup.Day)
		n := 1
		for n < len(hours) && rollup.Floor(hours[n].hour, rollup.Day) == day && hours[n].hour != current {
			n++
		}
		sk, err := f.days.merged(ctx, f, productID, hours[:n], hours[0].hour != current)
		if err != nil {
			return a.totals(), err
		}
		if err := a.merge(sk); err != nil {
			return a.totals(), err
		}
		hours = hours[n:]
	}
	return a.totals(), nil
}

// hourSum is an hour's viewers as ProductTotals reads them: their digest,
// the hour's views, and the sketch where it came with it.
type hourSum struct {
	hour, sum, views int64
	viewers          []byte
}

// mergeBytes adds a stored sketch's viewers.
func (a *tally) mergeBytes(viewers []byte) error {
	if len(viewers) == 0 {
		return nil
	}
	sk, err := rollup.Sketch(viewers)
	if err != nil {
		return err
	}
	return a.merge(sk)
}

// Overview returns today so far (UTC) against the same hours of
// yesterday, and the last 7 and 30 days against the 7 and 30 before, in
// whole hours: each ends with the current hour.
func (f *Figures) Overview(ctx context.Context) ([]Period, error) {
	w := pageWindows(f.At)
	var out []Period
	for i, name := range []string{"Today", "Last 7 days", "Last 30 days"} {
		cur, before := w[2*i], w[2*i+1]
		p := Period{Name: name, From: cur.From, To: f.At}
		var err error
		if p.Current, err = f.Totals(ctx, cur); err != nil {
			return nil, err
		}
		if p.Earlier, err = f.Totals(ctx, before); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// seriesOf returns n steps of the given length ending with the one that
// holds at, from hour rows.
func seriesOf(rows []rollup.Row, at time.Time, step time.Duration, n int) []Point {
	end := at.UTC().Truncate(step).Add(step)
	start := end.Add(-time.Duration(n) * step)
	out := make([]Point, n)
	for i := range out {
		out[i].At = start.Add(time.Duration(i) * step)
	}
	revenue := make([]*big.Int, n)
	priced := make([]int64, n)
	s, ms := start.UnixMilli(), step.Milliseconds()
	for _, r := range rows {
		if r.Hour < s {
			continue
		}
		i := int((r.Hour - s) / ms)
		if i >= n {
			continue
		}
		out[i].Views += r.Views
		out[i].Purchases += r.Purchases
		out[i].Units += r.Units
		if r.PricedUnits > 0 {
			if revenue[i] == nil {
				revenue[i] = new(big.Int)
			}
			revenue[i].Add(revenue[i], r.Revenue)
			priced[i] += r.PricedUnits
		}
	}
	for i := range out {
		if priced[i] > 0 {
			out[i].Price = moneyFloat(revenue[i]) / float64(priced[i])
			out[i].HasPrice = true
		}
	}
	return out
}

// Series returns the brand's n steps ending with the one that holds At:
// hourly for 48 hours or daily for 30 days.
func (f *Figures) Series(step time.Duration, n int) []Point {
	return seriesOf(f.hours, f.At, step, n)
}

// Experiment measures the brand's holdout experiment, reading its arms
// once per Figures.
func (f *Figures) Experiment(ctx context.Context, percent int) (holdout.Experiment, error) {
	a := &f.arms
	a.Lock()
	defer a.Unlock()
	if !a.done {
		// Each revenue and how many sessions had it (each session counted
		// once, rollup_sessions' key) go to its arm and to saw or unseen
		// as a run (holdout.Revenue), sorted below, read in a row per
		// distinct revenue (100,000 orders took 130 ms read a session a
		// row; a value per session, 4 MB a reading).
		sessions := map[string]int64{}
		var shown, held, saw, unseen []holdout.Revenue
		err := f.src.RollupArmRevenues(ctx, f.BrandID, func(arm string, n int64) { sessions[arm] = n }, func(arm string, v float64, n, seen int64) error {
			switch arm {
			case holdout.ArmShown:
				shown = append(shown, holdout.Revenue{Value: v, Sessions: n})
			case holdout.ArmHeldOut:
				held = append(held, holdout.Revenue{Value: v, Sessions: n})
			}
			saw = append(saw, holdout.Revenue{Value: v, Sessions: seen})
			unseen = append(unseen, holdout.Revenue{Value: v, Sessions: n - seen})
			return nil
		})
		if err != nil {
			return holdout.Experiment{}, err
		}
		seen, err := f.src.WidgetSeen(ctx, f.BrandID)
		if err != nil {
			return holdout.Experiment{}, err
		}
		var all int64
		for _, n := range sessions {
			all += n
		}
		// A session that saw the widget may outlive its views by minutes
		// (docs/dashboard.md): never more than every session.
		seen = min(seen, all)
		a.saw = holdout.Arm{Sessions: seen, Revenues: holdout.Sorted(saw)}
		a.unseen = holdout.Arm{Sessions: all - seen, Revenues: holdout.Sorted(unseen)}
		a.saw.Sessions = max(a.saw.Sessions, a.saw.Converted())
		a.unseen.Sessions = max(a.unseen.Sessions, a.unseen.Converted())
		a.shown = holdout.Arm{Sessions: sessions[holdout.ArmShown], Revenues: holdout.Sorted(shown)}
		a.held = holdout.Arm{Sessions: sessions[holdout.ArmHeldOut], Revenues: holdout.Sorted(held)}
		a.done = true
	}
	return holdout.Measure(f.BrandID, percent, f.Currency, f.At, a.shown, a.held), nil
}

// LastEvent is the time of the brand's newest view or order in the 61
// days, zero without any.
func (f *Figures) LastEvent() time.Time {
	var last int64
	for _, r := range f.hours {
		last = max(last, r.LastAt)
	}
	if last == 0 {
		return time.Time{}
	}
	return time.UnixMilli(last).UTC()
}

// productWindows are the windows of a product's row, as Products reads
// them: the 7 days; the live counts (viewers of the hour, orders of the
// day); the views of the day; and the real-time panel's (LiveWindows).
var productWindows = []window.Windows{{Views: 7 * 24 * time.Hour, Purchases: 7 * 24 * time.Hour},
	{Views: time.Hour, Purchases: 24 * time.Hour}, {Views: 24 * time.Hour, Purchases: 7 * 24 * time.Hour},
	LiveWindows[0], LiveWindows[1]}

// LiveWindows are the real-time panel's: viewers of 5 minutes, views and
// orders of 30.
var LiveWindows = []window.Windows{{Views: 5 * time.Minute, Purchases: 30 * time.Minute}, {Views: 30 * time.Minute, Purchases: 30 * time.Minute}}

// LiveCounts are a product's in LiveWindows: its viewers of 5 minutes,
// its views and orders of 30.
type LiveCounts struct{ Viewers5, Views30, Purchases30 int64 }

func liveCounts(c5, c30 window.Counts) LiveCounts {
	return LiveCounts{Viewers5: c5.Viewers, Views30: c30.Views, Purchases30: c30.Purchases}
}

// EachLive calls fn with each product of the brand that has counts in
// LiveWindows at now, and those counts. At the reading's own time, they
// are those Products read with its own: the overview counts each product
// once.
func (f *Figures) EachLive(ctx context.Context, live Live, now time.Time, fn func(productID string, c LiveCounts)) error {
	if now.Equal(f.At) {
		p, err := f.counted(ctx, live)
		if err != nil {
			return err
		}
		for i := range p.rows {
			if c := p.get(i); c.live != (LiveCounts{}) {
				fn(p.ids[c.at], c.live)
			}
		}
		return nil
	}
	cache := f.ids
	if cache == nil {
		cache = &idCache{}
	}
	refs, ids, err := cache.products(ctx, f.src, f.BrandID)
	if err != nil {
		return err
	}
	var c [2]window.Counts
	for i, ref := range refs {
		live.CountsOf(svc.ProductRef(ref), now, LiveWindows, c[:])
		if lc := liveCounts(c[0], c[1]); lc != (LiveCounts{}) {
			fn(ids[i], lc)
		}
	}
	return nil
}

// counted returns every product of the brand seen in the last 7 days, in
// the order of their ids, with the exact counts of the windows ending now
// (live), read once per Figures.
func (f *Figures) counted(ctx context.Context, live Live) (*productsRead, error) {
	p := &f.products
	p.Lock()
	defer p.Unlock()
	if p.done {
		return p, nil
	}
	cache := f.ids
	if cache == nil {
		cache = &idCache{}
	}
	refs, ids, err := cache.products(ctx, f.src, f.BrandID)
	if err != nil {
		return nil, err
	}
	// Sized at once (appended, the rows allocated 4 times theirs as the
	// slice grew), from a reading released when one was.
	out := buffer[packedCounts](f.cache.countPool(), len(refs))
	var c [5]window.Counts
	for i, ref := range refs {
		live.CountsOf(svc.ProductRef(ref), f.At, productWindows, c[:])
		w, live1, d := c[0], c[1], c[2]
		if w.Views == 0 && w.Purchases == 0 {
			continue
		}
		counts := productCounts{at: int32(i), dayViews: d.Views,
			weekViews: w.Views, weekPurchases: w.Purchases, weekUnits: w.Units,
			liveViewers: live1.Viewers, livePurchases: live1.Purchases, live: liveCounts(c[3], c[4])}
		packed, ok := pack(counts)
		if !ok {
			if p.wide == nil {
				p.wide = map[int]productCounts{}
			}
			p.wide[len(out)] = counts
		}
		out = append(out, packed)
	}
	p.refs, p.ids, p.rows, p.done = refs, ids, out, true
	return p, nil
}

// EachProduct calls fn with every product of the brand seen in the last 7
// days, in the order of their ids, with the exact counts of the windows
// ending now (live), read once per Figures, until fn returns false. Their
// titles are not read: Titled reads those of the rows a page shows (a
// brand may have 100,000).
func (f *Figures) EachProduct(ctx context.Context, live Live, fn func(ProductRow) bool) error {
	p, err := f.counted(ctx, live)
	if err != nil {
		return err
	}
	for i := range p.rows {
		c := p.get(i)
		if !fn(f.row(&c)) {
			break
		}
	}
	return nil
}

// Ranking returns the first n products of two rankings of the brand's
// products, without titles: Top's, and trending (views in the last 24
// hours above the 6 days' mean) by trend, ties in the order of the
// products' ids. A page shows 10 of each: picking them costs a pass over
// the rows, not a sort of them all.
func (f *Figures) Ranking(ctx context.Context, live Live, n int) (top, trending []ProductRow, err error) {
	p, err := f.counted(ctx, live)
	if err != nil {
		return nil, nil, err
	}
	// Trending needs a baseline: a product with no views in the 6 days
	// before is new, not trending (else a new brand's trending is its top).
	isTrending := func(i int) bool {
		c := p.get(i)
		return c.dayViews > 0 && c.weekViews != c.dayViews && trendOf(&c) > 1
	}
	byTrend := func(i, j int) int {
		x, y := p.get(i), p.get(j)
		return cmp.Compare(trendOf(&y), trendOf(&x))
	}
	byTop := func(i, j int) int {
		x, y := p.get(i), p.get(j)
		return topOrder(&x, &y)
	}
	for _, i := range firstOf(len(p.rows), n, isTrending, byTrend) {
		c := p.get(i)
		trending = append(trending, f.row(&c))
	}
	for _, i := range firstOf(len(p.rows), n, func(int) bool { return true }, byTop) {
		c := p.get(i)
		top = append(top, f.row(&c))
	}
	return top, trending, nil
}

// trendOf is ProductRow.Trend of c.
func trendOf(c *productCounts) float64 {
	before := float64(c.weekViews-c.dayViews) / 6
	return (float64(c.dayViews) + 1) / (before + 1)
}

// EachTop calls fn with every product of the brand seen in the last 7
// days, titled, by purchases then views over 7 days, ties in the order of
// the products' ids, until fn returns false: the products' CSV. The rows
// are made one at a time (100,000 ProductRows were 18 MB a request), and
// titled a chunk at a time (their refs and titles were 2.4 MB).
func (f *Figures) EachTop(ctx context.Context, live Live, fn func(*ProductRow) bool) error {
	p, err := f.counted(ctx, live)
	if err != nil {
		return err
	}
	// The keys sorted in a slice of their own: through indexes into the
	// rows, each comparison read two rows far apart (bench/RESULTS.md).
	pool := f.cache.keyPool()
	keys := buffer[topKey](pool, len(p.rows))
	defer recycle(pool, keys)
	for i := range p.rows {
		c := p.get(i)
		keys = append(keys, topKey{c.weekPurchases, c.weekViews, int32(i)})
	}
	slices.SortFunc(keys, func(x, y topKey) int {
		return cmp.Or(cmp.Compare(y.purchases, x.purchases), cmp.Compare(y.views, x.views), cmp.Compare(x.row, y.row))
	})
	titles, err := f.titleList(ctx, len(keys))
	if err != nil {
		return err
	}
	var refs [titlesChunk]int64
	var chunk [titlesChunk]string
	var r ProductRow // one for every row: fn's pointer would move each to the heap
	for len(keys) > 0 {
		n := min(len(keys), titlesChunk)
		for k, key := range keys[:n] {
			refs[k] = p.refs[p.rows[key.row].at]
		}
		titles.lookup(refs[:n], chunk[:n])
		for k, key := range keys[:n] {
			c := p.get(int(key.row))
			r = f.row(&c)
			r.Title = chunk[k]
			if !fn(&r) {
				return nil
			}
		}
		keys = keys[n:]
	}
	return nil
}

// topKey is a product's place in EachTop's order: its purchases and
// views over 7 days, and its row in productsRead's rows.
type topKey struct {
	purchases, views int64
	row              int32
}

// titlesChunk is how many rows EachTop titles at a time.
const titlesChunk = 256

// topOrder orders products by purchases, then views over 7 days, most
// first.
func topOrder(x, y *productCounts) int {
	return cmp.Or(cmp.Compare(y.weekPurchases, x.weekPurchases), cmp.Compare(y.weekViews, x.weekViews))
}

// firstOf returns the indexes of the first n of rows 0 to len-1 that
// keep, in the order of compare, ties in the rows' own order: a stable
// sort's first n, in a pass over the rows.
func firstOf(rows, n int, keep func(i int) bool, compare func(i, j int) int) []int {
	if n <= 0 {
		return nil
	}
	out := make([]int, 0, n+1)
	for i := range rows {
		if !keep(i) || len(out) == n && compare(i, out[n-1]) >= 0 {
			continue
		}
		// After every row that it does not come before: stable.
		k := sort.Search(len(out), func(k int) bool { return compare(i, out[k]) < 0 })
		out = slices.Insert(out, k, i)
		if len(out) > n {
			out = out[:n]
		}
	}
	return out
}

// titlesOneByOne is how many rows Titled reads one by one; more, and it
// reads every title of the brand.
const titlesOneByOne = 64

// Titled sets the titles of rows, from the store: a few one by one, more
// from the brand's titles, kept across readings while they do not change
// (titleCache).
func (f *Figures) Titled(ctx context.Context, rows []ProductRow) error {
	if len(rows) <= titlesOneByOne {
		for i := range rows {
			t, err := f.ProductTitle(ctx, rows[i].ProductID)
			if err != nil {
				return err
			}
			rows[i].Title = t
		}
		return nil
	}
	titles, err := f.titleList(ctx, len(rows))
	if err != nil {
		return err
	}
	refs, out := make([]int64, len(rows)), make([]string, len(rows))
	for i := range rows {
		refs[i] = rows[i].Ref
	}
	titles.lookup(refs, out)
	for i := range out {
		rows[i].Title = out[i]
	}
	return nil
}

// titleList returns the brand's titles, kept across readings while they
// do not change (titleCache); size is about how many are needed.
func (f *Figures) titleList(ctx context.Context, size int) (*brandTitles, error) {
	cache := f.titles
	if cache == nil {
		cache = &titleCache{}
	}
	return cache.brand(ctx, f.src, f.BrandID, size)
}

// ProductTitle returns a product's latest title, "" without one.
func (f *Figures) ProductTitle(ctx context.Context, productID string) (string, error) {
	return f.src.ProductTitle(ctx, f.BrandID, productID)
}

// Product is one product's figures: its hourly rows over the 30 days.
type Product struct {
	ProductID, Title string
	At               time.Time
	hours            []rollup.Row // without their sketches
	week             Totals
}

// Product reads one product's rollups: its hours of 30 days without their
// sketches, and the viewers of its 7 days through the day cache (a top
// product's hours are dense sketches: 30 days of them were 11 MB a
// reading).
func (f *Figures) Product(ctx context.Context, productID string) (*Product, error) {
	end := End(f.At)
	p := &Product{ProductID: productID, At: f.At}
	err := f.src.RollupHourSums(ctx, f.BrandID, productID, end.Add(-30*24*time.Hour), end, func(r rollup.Row) error {
		r.Viewers = nil
		p.hours = append(p.hours, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p.week, err = f.ProductTotals(ctx, productID, Window{end.Add(-7 * 24 * time.Hour), end}); err != nil {
		return nil, err
	}
	p.Title, err = f.src.ProductTitle(ctx, f.BrandID, productID)
	return p, err
}

// Week is the product's last 7 days, to the current hour.
func (p *Product) Week() Totals { return p.week }

// Series returns the product's n steps ending with the one that holds At.
func (p *Product) Series(step time.Duration, n int) []Point {
	return seriesOf(p.hours, p.At, step, n)
}
