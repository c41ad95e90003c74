package insights

import (
	"context"
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
		for _, r := range f.hours {
			if w.holds(r.Hour) {
				rows = append(rows, r)
			}
		}
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
