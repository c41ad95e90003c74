package insights

import (
	"cmp"
	"context"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/axiomhq/hyperloglog"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/lift"
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
	Counts(ref svc.ProductRef, now time.Time, views, purchases time.Duration) window.Counts
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
	windows     map[Window]Totals

	src Source
	// The experiment's arms, read when first asked for: only the overview
	// and the experiment endpoint need them, and they are most of a
	// reading (a join of the brand's orders with its sessions).
	arms struct {
		sync.Mutex
		done        bool
		shown, held lift.Arm
		saw, unseen lift.Arm // sessions that saw the widget, and the others
	}
	products struct {
		sync.Mutex
		rows, top, trending []ProductRow
		done                bool
	}
}

// loadFigures reads the brand's rollups. The windows the pages show are
// added up as the rows stream by, one sketch decoded at a time: a brand's
// 1,464 hours of sketches are 23 MB, which a page should not hold.
func loadFigures(ctx context.Context, src Source, brandID string, now time.Time) (*Figures, error) {
	f := &Figures{BrandID: brandID, At: now, FromRollups: true, src: src}
	end := End(now)
	wins := pageWindows(now)
	tallies := make([]tally, len(wins))
	err := src.RollupHours(ctx, brandID, "", end.Add(-hoursKept), end, func(r rollup.Row) error {
		sk, err := rollup.Sketch(r.Viewers)
		if err != nil {
			return err
		}
		for i, w := range wins {
			if w.holds(r.Hour) {
				if err := tallies[i].add(r, sk); err != nil {
					return err
				}
			}
		}
		r.Viewers = nil
		f.hours = append(f.hours, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	f.windows = make(map[Window]Totals, len(wins))
	for i, w := range wins {
		f.windows[w] = tallies[i].totals()
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

func (a *tally) add(r rollup.Row, sk *hyperloglog.Sketch) error {
	a.t.Views += r.Views
	a.t.Carts += r.Carts
	a.t.Purchases += r.Purchases
	a.t.Units += r.Units
	a.revenue.Add(&a.revenue, r.Revenue)
	if len(r.Viewers) == 0 {
		return nil
	}
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

func (w Window) holds(hour int64) bool { return hour >= w.From.UnixMilli() && hour < w.To.UnixMilli() }

// pageWindows are the windows the pages show at now: the overview's
// periods and those before them, and the operator's last 24 hours and
// 7 days.
func pageWindows(now time.Time) []Window {
	end := End(now)
	midnight := end.Add(-time.Nanosecond).Truncate(24 * time.Hour)
	day := 24 * time.Hour
	w := []Window{{midnight, end}, {midnight.Add(-day), end.Add(-day)}, {end.Add(-day), end}}
	for _, days := range []int{7, 30} {
		span := time.Duration(days) * day
		w = append(w, Window{end.Add(-span), end}, Window{end.Add(-2 * span), end.Add(-span)})
	}
	return w
}

// Totals returns the brand's figures over the window: those of the pages
// as read, any other from the store again.
func (f *Figures) Totals(ctx context.Context, w Window) (Totals, error) {
	if t, ok := f.windows[w]; ok {
		return t, nil
	}
	return f.ProductTotals(ctx, "", w)
}

// ProductTotals reads one product's figures (the brand's with "") over
// any window.
func (f *Figures) ProductTotals(ctx context.Context, productID string, w Window) (Totals, error) {
	var a tally
	err := f.src.RollupHours(ctx, f.BrandID, productID, w.From, w.To, func(r rollup.Row) error {
		sk, err := rollup.Sketch(r.Viewers)
		if err != nil {
			return err
		}
		return a.add(r, sk)
	})
	return a.totals(), err
}

// Overview returns today so far (UTC) against the same hours of
// yesterday, and the last 7 and 30 days against the 7 and 30 before, in
// whole hours: each ends with the current hour.
func (f *Figures) Overview() []Period {
	w := pageWindows(f.At)
	out := []Period{{Name: "Today", From: w[0].From, To: f.At, Current: f.windows[w[0]], Earlier: f.windows[w[1]]}}
	for i, days := range []int{7, 30} {
		cur, before := w[3+2*i], w[4+2*i]
		out = append(out, Period{Name: "Last " + strconv.Itoa(days) + " days", From: cur.From, To: f.At,
			Current: f.windows[cur], Earlier: f.windows[before]})
	}
	return out
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
func (f *Figures) Experiment(ctx context.Context, holdout int) (Experiment, error) {
	a := &f.arms
	a.Lock()
	defer a.Unlock()
	if !a.done {
		sessions := map[string]int64{}
		revenue := map[string]map[string]float64{} // arm, session
		saw := map[string]bool{}
		err := f.src.RollupArms(ctx, f.BrandID, func(arm string, n int64) { sessions[arm] = n }, func(arm, session string, v float64, seen bool) error {
			if revenue[arm] == nil {
				revenue[arm] = map[string]float64{}
			}
			revenue[arm][session] += v
			if seen {
				saw[session] = true
			}
			return nil
		})
		if err != nil {
			return Experiment{}, err
		}
		seen, err := f.src.WidgetSeen(ctx, f.BrandID)
		if err != nil {
			return Experiment{}, err
		}
		var all int64
		for _, n := range sessions {
			all += n
		}
		// A session that saw the widget may outlive its views by minutes
		// (docs/dashboard.md): never more than every session.
		seen = min(seen, all)
		a.saw, a.unseen = lift.Arm{Sessions: seen}, lift.Arm{Sessions: all - seen}
		for _, m := range revenue {
			for s, v := range m {
				if saw[s] {
					a.saw.Revenues = append(a.saw.Revenues, v)
				} else {
					a.unseen.Revenues = append(a.unseen.Revenues, v)
				}
			}
		}
		sort.Float64s(a.saw.Revenues)
		sort.Float64s(a.unseen.Revenues)
		a.saw.Sessions = max(a.saw.Sessions, a.saw.Converted())
		a.unseen.Sessions = max(a.unseen.Sessions, a.unseen.Converted())
		arm := func(name string) lift.Arm {
			x := lift.Arm{Sessions: sessions[name]}
			for _, v := range revenue[name] {
				x.Revenues = append(x.Revenues, v)
			}
			// The bootstrap draws by index: the same data, the same order.
			sort.Float64s(x.Revenues)
			return x
		}
		a.shown, a.held = arm(svc.ArmShown), arm(svc.ArmHeldOut)
		a.done = true
	}
	return experimentOf(f.BrandID, holdout, f.Currency, f.At, a.shown, a.held), nil
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

// Products returns every product of the brand seen in the last 7 days,
// with the exact counts of the windows ending now (live), read once per
// Figures.
func (f *Figures) Products(ctx context.Context, live Live) ([]ProductRow, error) {
	p := &f.products
	p.Lock()
	defer p.Unlock()
	if p.done {
		return p.rows, nil
	}
	var out []ProductRow
	day, week := 24*time.Hour, 7*24*time.Hour
	err := f.src.BrandProducts(ctx, f.BrandID, func(ref int64, id, title string) {
		r := svc.ProductRef(ref)
		w := live.Counts(r, f.At, week, week)
		if w.Views == 0 && w.Purchases == 0 {
			return
		}
		live1 := live.Counts(r, f.At, time.Hour, day)
		d := live.Counts(r, f.At, day, week)
		row := ProductRow{Ref: ref, ProductID: id, Title: title,
			Day:  Totals{Views: d.Views, Purchases: live1.Purchases},
			Week: Totals{Views: w.Views, Purchases: w.Purchases, Units: w.Units}, LiveViewers: live1.Viewers, LivePurchases: live1.Purchases}
		before := float64(row.Week.Views-row.Day.Views) / 6
		row.Trend = (float64(row.Day.Views) + 1) / (before + 1)
		out = append(out, row)
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ProductID < out[j].ProductID })
	// Ranked once per reading: sorting 100,000 rows at every page was most
	// of a cached overview.
	p.top = slices.Clone(out)
	slices.SortStableFunc(p.top, func(x, y ProductRow) int {
		return cmp.Or(cmp.Compare(y.Week.Purchases, x.Week.Purchases), cmp.Compare(y.Week.Views, x.Week.Views))
	})
	// Trending needs a baseline: a product with no views in the 6 days
	// before is new, not trending (else a new brand's trending is its top).
	p.trending = slices.DeleteFunc(slices.Clone(out), func(r ProductRow) bool { return r.Day.Views == 0 || r.Week.Views == r.Day.Views || r.Trend <= 1 })
	slices.SortStableFunc(p.trending, func(x, y ProductRow) int { return cmp.Compare(y.Trend, x.Trend) })
	p.rows, p.done = out, true
	return out, nil
}

// Ranking returns the products as Products does, and the same ranked:
// top by purchases then views over 7 days, and trending (views in the
// last 24 hours above the 6 days' mean) by trend.
func (f *Figures) Ranking(ctx context.Context, live Live) (rows, top, trending []ProductRow, err error) {
	if _, err := f.Products(ctx, live); err != nil {
		return nil, nil, nil, err
	}
	p := &f.products
	p.Lock()
	defer p.Unlock()
	return p.rows, p.top, p.trending, nil
}

// Product is one product's figures: its hourly rows over the 30 days.
type Product struct {
	ProductID, Title string
	At               time.Time
	hours            []rollup.Row // without their sketches
	week             Totals
}

// Product reads one product's rollups.
func (f *Figures) Product(ctx context.Context, productID string) (*Product, error) {
	end := End(f.At)
	p := &Product{ProductID: productID, At: f.At}
	week := Window{end.Add(-7 * 24 * time.Hour), end}
	var a tally
	err := f.src.RollupHours(ctx, f.BrandID, productID, end.Add(-30*24*time.Hour), end, func(r rollup.Row) error {
		if week.holds(r.Hour) {
			sk, err := rollup.Sketch(r.Viewers)
			if err != nil {
				return err
			}
			if err := a.add(r, sk); err != nil {
				return err
			}
		}
		r.Viewers = nil
		p.hours = append(p.hours, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.week = a.totals()
	p.Title, err = f.src.ProductTitle(ctx, f.BrandID, productID)
	return p, err
}

// Week is the product's last 7 days, to the current hour.
func (p *Product) Week() Totals { return p.week }

// Series returns the product's n steps ending with the one that holds At.
func (p *Product) Series(step time.Duration, n int) []Point {
	return seriesOf(p.hours, p.At, step, n)
}
