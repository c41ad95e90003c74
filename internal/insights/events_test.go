package insights

import (
	"context"
	"sort"
	"strconv"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
)

// The figures as the dashboard computed them before the rollups, from
// every stored event of the brand: the reference the rollups' figures are
// tested against (figures_test.go).

// Exporter is the part of a store the figures are read from.
type Exporter interface {
	ExportEvents(ctx context.Context, brandID string, fn func(svc.ExportedEvent) error) error
}

type view struct {
	at      int64 // unix seconds
	product string
	session string
	arm     string
}

type line struct {
	product  string
	units    int64
	price    float64
	hasPrice bool
}

type order struct {
	at      int64
	session string
	value   Money
	lines   []line
}

// Data is a brand's stored events, as read at Loaded.
type Data struct {
	BrandID string
	Loaded  time.Time
	// Currency is the one most of the brand's orders give; revenue adds
	// order values whatever their currency (docs/dashboard.md, Limits).
	Currency string
	Titles   map[string]string // product id to its latest title
	views    []view            // oldest first
	carts    []view            // add-to-carts, oldest first
	orders   []order           // oldest first
}

// Load reads every stored event of the brand.
func Load(ctx context.Context, store Exporter, brandID string, now time.Time) (*Data, error) {
	d := &Data{BrandID: brandID, Loaded: now, Titles: map[string]string{}}
	currencies := map[string]int{}
	err := store.ExportEvents(ctx, brandID, func(e svc.ExportedEvent) error {
		if v := e.View; v != nil {
			d.views = append(d.views, view{at: v.Meta.Time.Unix(), product: v.Product.ProductID, session: deref(v.Context.SessionID), arm: v.Meta.Arm})
			if v.Product.Title != nil {
				d.Titles[v.Product.ProductID] = *v.Product.Title
			}
			return nil
		}
		if c := e.Cart; c != nil {
			d.carts = append(d.carts, view{at: c.Meta.Time.Unix(), product: c.Product.ProductID, session: deref(c.Context.SessionID), arm: c.Meta.Arm})
			return nil
		}
		p := e.Purchase
		if p == nil {
			return nil
		}
		o := order{at: p.Meta.Time.Unix(), session: deref(p.Context.SessionID)}
		var sum Money
		priced := true
		for _, it := range p.Order.Items {
			l := line{product: it.ProductID, units: 1}
			if it.Quantity != nil {
				l.units = *it.Quantity
			}
			if it.UnitPrice != nil {
				l.price, l.hasPrice = *it.UnitPrice, true
				sum.AddLine(l.price, l.units)
			} else {
				priced = false
			}
			if it.Title != nil {
				if _, ok := d.Titles[it.ProductID]; !ok {
					d.Titles[it.ProductID] = *it.Title
				}
			}
			o.lines = append(o.lines, l)
		}
		// The lines' prices when every line has one: they follow a
		// cancellation, which leaves total_value as it came.
		o.value = sum
		if !priced && p.Order.TotalValue != nil {
			o.value = Money{}
			o.value.Add(*p.Order.TotalValue)
		}
		if p.Order.Currency != nil {
			currencies[*p.Order.Currency]++
		}
		d.orders = append(d.orders, o)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Exported oldest first per kind already; sorted again in case a
	// store orders ties otherwise.
	sort.SliceStable(d.views, func(i, j int) bool { return d.views[i].at < d.views[j].at })
	sort.SliceStable(d.carts, func(i, j int) bool { return d.carts[i].at < d.carts[j].at })
	sort.SliceStable(d.orders, func(i, j int) bool { return d.orders[i].at < d.orders[j].at })
	best := 0
	for c, n := range currencies {
		if n > best || n == best && c < d.Currency {
			d.Currency, best = c, n
		}
	}
	return d, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Totals returns the figures of (from, to], as the proof's windows
// count, of one product or, with product "", of the whole brand. A product's revenue is its lines'
// prices times units.
func (d *Data) Totals(product string, from, to time.Time) Totals {
	var t Totals
	f, u := from.Unix(), to.Unix()
	sessions := map[string]struct{}{}
	for _, v := range d.views {
		if v.at <= f || v.at > u || product != "" && v.product != product {
			continue
		}
		t.Views++
		if v.session != "" {
			sessions[v.session] = struct{}{}
		}
	}
	t.Viewers = int64(len(sessions))
	for _, c := range d.carts {
		if c.at > f && c.at <= u && (product == "" || c.product == product) {
			t.Carts++
		}
	}
	for _, o := range d.orders {
		if o.at <= f || o.at > u {
			continue
		}
		if product == "" {
			t.Purchases++
			t.Revenue.AddMoney(o.value)
			for _, l := range o.lines {
				t.Units += l.units
			}
			continue
		}
		found := false
		for _, l := range o.lines {
			if l.product == product {
				found = true
				t.Units += l.units
				if l.hasPrice {
					t.Revenue.AddLine(l.price, l.units)
				}
			}
		}
		if found {
			t.Purchases++
		}
	}
	return t
}

// Overview returns today so far (UTC) against the same hours of
// yesterday, and the last 7 and 30 days against the 7 and 30 before.
func (d *Data) Overview(now time.Time) []Period {
	now = now.UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	out := []Period{{Name: "Today", From: midnight, To: now,
		Current: d.Totals("", midnight, now), Earlier: d.Totals("", midnight.Add(-24*time.Hour), now.Add(-24*time.Hour))}}
	for _, days := range []int{7, 30} {
		span := time.Duration(days) * 24 * time.Hour
		from := now.Add(-span)
		out = append(out, Period{Name: "Last " + strconv.Itoa(days) + " days", From: from, To: now,
			Current: d.Totals("", from, now), Earlier: d.Totals("", from.Add(-span), from)})
	}
	return out
}

// Series returns n steps of the given length ending with the one that
// holds now, of a product or, with "", of the brand: hourly for 48 hours
// or daily for 30 days.
func (d *Data) Series(product string, now time.Time, step time.Duration, n int) []Point {
	end := now.UTC().Truncate(step).Add(step)
	start := end.Add(-time.Duration(n) * step)
	out := make([]Point, n)
	for i := range out {
		out[i].At = start.Add(time.Duration(i) * step)
	}
	s, sec := start.Unix(), int64(step/time.Second)
	idx := func(at int64) int {
		if at < s {
			return -1
		}
		if i := int((at - s) / sec); i < n {
			return i
		}
		return -1
	}
	for _, v := range d.views {
		if i := idx(v.at); i >= 0 && (product == "" || v.product == product) {
			out[i].Views++
		}
	}
	units := make([]float64, n)
	paid := make([]Money, n)
	for _, o := range d.orders {
		i := idx(o.at)
		if i < 0 {
			continue
		}
		found := false
		for _, l := range o.lines {
			if product != "" && l.product != product {
				continue
			}
			found = true
			out[i].Units += l.units
			if l.hasPrice {
				paid[i].AddLine(l.price, l.units)
				units[i] += float64(l.units)
			}
		}
		if found {
			out[i].Purchases++
		}
	}
	for i := range out {
		if units[i] > 0 {
			out[i].Price = paid[i].Float64() / units[i]
			out[i].HasPrice = true
		}
	}
	return out
}

// Products returns every product seen in the last 7 days.
func (d *Data) Products(now time.Time) []ProductRow {
	seen := map[string]bool{}
	weekAgo := now.Add(-7 * 24 * time.Hour).Unix()
	for _, v := range d.views {
		if v.at >= weekAgo {
			seen[v.product] = true
		}
	}
	for _, o := range d.orders {
		if o.at >= weekAgo {
			for _, l := range o.lines {
				seen[l.product] = true
			}
		}
	}
	out := make([]ProductRow, 0, len(seen))
	day := 24 * time.Hour
	for id := range seen {
		r := ProductRow{ProductID: id, Title: d.Titles[id],
			Day: d.Totals(id, now.Add(-day), now), Week: d.Totals(id, now.Add(-7*day), now)}
		before := float64(r.Week.Views-r.Day.Views) / 6
		r.Trend = (float64(r.Day.Views) + 1) / (before + 1)
		r.LiveViewers = d.Totals(id, now.Add(-time.Hour), now).Viewers
		r.LivePurchases = r.Day.Purchases
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ProductID < out[j].ProductID })
	return out
}

// Arms returns the sessions of the holdout experiment: each session with
// an arm is in the arm of its first view, and converted if it made an
// order, whose values make its revenue. Orders of sessions never seen in
// a view are in no arm.
func (d *Data) Arms() (shown, heldOut holdout.Arm) {
	arm := map[string]string{}
	for _, v := range d.views {
		if v.session != "" && v.arm != "" {
			if _, ok := arm[v.session]; !ok {
				arm[v.session] = v.arm
			}
		}
	}
	revenue := map[string]*Money{}
	for _, o := range d.orders {
		if _, ok := arm[o.session]; ok {
			if revenue[o.session] == nil {
				revenue[o.session] = &Money{}
			}
			revenue[o.session].AddMoney(o.value)
		}
	}
	for s, a := range arm {
		m, bought := revenue[s]
		var r float64 // the statistics' own arithmetic is float64 (internal/lift)
		if bought {
			r = m.Float64()
		}
		switch a {
		case holdout.ArmShown:
			shown.Sessions++
			if bought {
				shown.Revenues = append(shown.Revenues, holdout.Revenue{Value: r, Sessions: 1})
			}
		case holdout.ArmHeldOut:
			heldOut.Sessions++
			if bought {
				heldOut.Revenues = append(heldOut.Revenues, holdout.Revenue{Value: r, Sessions: 1})
			}
		}
	}
	// Map order is random; the bootstrap draws by index, so the same data
	// must give the same order.
	shown.Revenues, heldOut.Revenues = holdout.Sorted(shown.Revenues), holdout.Sorted(heldOut.Revenues)
	return shown, heldOut
}

// LastEvent is the time of the brand's newest view or order, zero without any.
func (d *Data) LastEvent() time.Time {
	var last int64
	if n := len(d.views); n > 0 {
		last = d.views[n-1].at
	}
	if n := len(d.orders); n > 0 && d.orders[n-1].at > last {
		last = d.orders[n-1].at
	}
	if last == 0 {
		return time.Time{}
	}
	return time.Unix(last, 0).UTC()
}

// Experiment measures the brand's holdout experiment over its stored
// events.
func (d *Data) Experiment(percent int) holdout.Experiment {
	shown, held := d.Arms()
	return holdout.Measure(d.BrandID, percent, d.Currency, d.Loaded, shown, held)
}
