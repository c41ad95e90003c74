package insights

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/svc-project/svc/internal/rollup"
)

// SeriesIn returns the brand's steps (an hour or a day) of the window,
// from the rows read with the figures when the window is among them, else
// from the store.
func (f *Figures) SeriesIn(ctx context.Context, w Window, step time.Duration) ([]Point, error) {
	last := w.To.Add(-time.Nanosecond)
	n := int(last.Truncate(step).Add(step).Sub(w.From.Truncate(step)) / step)
	if n <= 0 {
		return nil, nil
	}
	var rows []rollup.Row
	if w.From.Before(End(f.At).Add(-hoursKept)) {
		err := f.src.RollupHours(ctx, f.BrandID, "", w.From, w.To, func(r rollup.Row) error {
			r.Viewers = nil
			rows = append(rows, r)
			return nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		rows = f.hoursIn(w)
	}
	return seriesOf(rows, last, step, n), nil
}

// Country is one country's share of a window's views and orders.
type Country struct {
	Country          string // "" for those that gave none
	Views, Purchases int64
}

// Countries returns the brand's countries over the UTC days that the
// window touches, most views first. Countries with fewer than k views
// and fewer than k orders are added into one row named "*", so that a
// row never points at a handful of shoppers (the recent feed's k).
func (f *Figures) Countries(ctx context.Context, w Window, k int64) ([]Country, error) {
	from := w.From.UTC().Truncate(24 * time.Hour)
	rows, err := f.src.RollupCountries(ctx, f.BrandID, from, w.To)
	if err != nil {
		return nil, err
	}
	by := map[string]*Country{}
	for _, r := range rows {
		c := by[r.Country]
		if c == nil {
			c = &Country{Country: r.Country}
			by[r.Country] = c
		}
		c.Views += r.Views
		c.Purchases += r.Purchases
	}
	var out []Country
	other := Country{Country: "*"}
	for _, c := range by {
		if c.Country != "" && c.Views < k && c.Purchases < k {
			other.Views += c.Views
			other.Purchases += c.Purchases
			continue
		}
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Views != out[j].Views {
			return out[i].Views > out[j].Views
		}
		return out[i].Country < out[j].Country
	})
	if other.Views > 0 || other.Purchases > 0 {
		out = append(out, other)
	}
	return out, nil
}

// City is one city's orders over a window.
type City struct {
	Country, City string // City "*" for the cities added together
	Purchases     int64
}

// Cities returns the orders that gave a city, per city, over the UTC days
// that the window touches, most orders first. Cities with fewer than k
// orders are added into one row with City "*": the recent feed names a
// city only when k orders share it, and neither does this table.
func (f *Figures) Cities(ctx context.Context, w Window, k int64) ([]City, error) {
	rows, err := f.src.RollupCities(ctx, f.BrandID, w.From.UTC().Truncate(24*time.Hour), w.To)
	if err != nil {
		return nil, err
	}
	by := map[[2]string]int64{}
	for _, r := range rows {
		by[[2]string{r.Country, r.City}] += r.Purchases
	}
	var out []City
	other := City{City: "*"}
	for c, n := range by {
		if n < k {
			other.Purchases += n
			continue
		}
		out = append(out, City{c[0], c[1], n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Purchases != out[j].Purchases {
			return out[i].Purchases > out[j].Purchases
		}
		return out[i].Country+"\x00"+out[i].City < out[j].Country+"\x00"+out[j].City
	})
	if other.Purchases > 0 {
		out = append(out, other)
	}
	return out, nil
}

// Funnel is the sessions first seen in a window's days, and of those the
// ones that added to a cart and that bought, with the conversion of each
// step from the one before and from the first.
type Funnel struct {
	Steps []FunnelStep
}

// FunnelStep is one step of the funnel.
type FunnelStep struct {
	Name     string
	Sessions int64
	// FromPrevious and FromFirst are the step's sessions over the step
	// before's and the first's; NaN when that step has none. FromPrevious
	// is NaN too when this step has more sessions than the one before:
	// each step is counted on its own (a shop that reports no carts has
	// sessions that buy without one), and 2,900% of the step before
	// would read as a conversion.
	FromPrevious, FromFirst float64
}

// Funnel returns the funnel of the sessions whose first view falls in a
// UTC day that the window touches.
func (f *Figures) Funnel(ctx context.Context, w Window) (Funnel, error) {
	r, err := f.src.RollupFunnel(ctx, f.BrandID, w.From.UTC().Truncate(24*time.Hour), w.To)
	if err != nil {
		return Funnel{}, err
	}
	return funnelSteps(r), nil
}

// funnelSteps are the steps of the funnel r, with their shares.
func funnelSteps(r rollup.Funnel) Funnel {
	n := []int64{r.Sessions, r.Carted, r.Bought}
	var out Funnel
	for i, name := range []string{"Viewed", "Added to cart", "Bought"} {
		s := FunnelStep{Name: name, Sessions: n[i], FromPrevious: ratio(n[i], n[max(i-1, 0)]), FromFirst: ratio(n[i], n[0])}
		if n[i] > n[max(i-1, 0)] {
			s.FromPrevious = math.NaN()
		}
		out.Steps = append(out.Steps, s)
	}
	return out
}

func ratio(n, of int64) float64 {
	if of == 0 {
		return math.NaN()
	}
	return float64(n) / float64(of)
}
