package dashboard

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/svc-project/svc/internal/insights"
)

// chart is a bar chart drawn as inline SVG on the server: no script and
// no library, and a table with the same numbers for those who cannot see
// it (and for screen readers, which the SVG's label points to).
type chart struct {
	Title  string
	Series []chartSeries
	Labels []string    // one per step
	Starts []time.Time // the steps' starts
}

type chartSeries struct {
	Name   string
	Class  string // the CSS class that colours it
	Values []float64
	Format func(float64) string
	Noun   string // the words key of a count ("views"), "" for an amount
}

// title is a bar's value in words: "Nov 21: 1 purchase".
func (c chart) title(s chartSeries, i int) string {
	if s.Noun != "" {
		return c.label(i) + ": " + inWords(int64(s.Values[i]), s.Noun)
	}
	return c.label(i) + ": " + s.Name + " " + s.Format(s.Values[i])
}

// Row is one step of the table alternative.
type chartRow struct {
	Label  string
	Values []string
}

// Rows returns the table alternative.
func (c chart) Rows() []chartRow {
	out := make([]chartRow, len(c.Labels))
	for i, l := range c.Labels {
		out[i].Label = l
		for _, s := range c.Series {
			out[i].Values = append(out[i].Values, s.Format(s.Values[i]))
		}
	}
	return out
}

const (
	chartW, chartH = 600, 110
	chartPad       = 18
)

// SVG draws each series as a row of bars with its own scale, one panel
// above the other: purchases are a hundredth of views, and one scale
// would flatten them.
func (c chart) SVG() template.HTML {
	var b strings.Builder
	h := len(c.Series) * (chartH + chartPad)
	fmt.Fprintf(&b, `<svg viewBox="0 0 %d %d" class="chart" role="img" aria-label="%s (the table below has the numbers)">`,
		chartW, h, template.HTMLEscapeString(c.Title))
	for si, s := range c.Series {
		top := si * (chartH + chartPad)
		peak := 0.0
		for _, v := range s.Values {
			peak = max(peak, v)
		}
		fmt.Fprintf(&b, `<text x="0" y="%d" class="chart-label">%s</text>`, top+12, template.HTMLEscapeString(s.Name))
		// The axis' values: the peak at the top, 0 at the base.
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="chart-tick" text-anchor="end">%s</text><text x="%d" y="%d" class="chart-tick" text-anchor="end">0</text>`,
			chartW, top+12, template.HTMLEscapeString(s.Format(peak)), chartW, top+chartH-2)
		fmt.Fprintf(&b, `<line x1="0" y1="%d" x2="%d" y2="%d" class="chart-grid"/>`, top+20, chartW, top+20)
		n := len(s.Values)
		bw := float64(chartW) / float64(max(n, 1))
		base := float64(top + chartH)
		for i, v := range s.Values {
			if v <= 0 || peak == 0 {
				continue
			}
			bh := (v / peak) * float64(chartH-20)
			// The title is the bar's value on hover; the table under the
			// chart has them all for the keyboard and screen readers.
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="%s"><title>%s</title></rect>`,
				float64(i)*bw+1, base-bh, max(bw-2, 1), bh, s.Class, template.HTMLEscapeString(c.title(s, i)))
		}
		fmt.Fprintf(&b, `<line x1="0" y1="%.0f" x2="%d" y2="%.0f" class="chart-axis"/>`, base, chartW, base)
	}
	if n := len(c.Labels); n > 0 {
		fmt.Fprintf(&b, `<text x="0" y="%d" class="chart-tick">%s</text><text x="%d" y="%d" class="chart-tick" text-anchor="middle">%s</text><text x="%d" y="%d" class="chart-tick" text-anchor="end">%s</text>`,
			h-2, template.HTMLEscapeString(c.Labels[0]), chartW/2, h-2, template.HTMLEscapeString(c.Labels[n/2]),
			chartW, h-2, template.HTMLEscapeString(c.Labels[n-1]))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text in it is escaped above
}

func (c chart) label(i int) string {
	if i < len(c.Labels) {
		return c.Labels[i]
	}
	return ""
}

func count(v float64) string { return formatInt(int64(v)) }

func seriesChart(title string, points []insights.Point, layout string) chart {
	c := chart{Title: title, Series: []chartSeries{{Name: "Views", Class: "bar-views", Format: count, Noun: "views"}, {Name: "Purchases", Class: "bar-purchases", Format: count, Noun: "purchases"}}}
	for _, p := range points {
		c.Labels = append(c.Labels, p.At.Format(layout))
		c.Starts = append(c.Starts, p.At)
		c.Series[0].Values = append(c.Series[0].Values, float64(p.Views))
		c.Series[1].Values = append(c.Series[1].Values, float64(p.Purchases))
	}
	return c
}

func priceChart(title string, points []insights.Point, currency string) chart {
	c := chart{Title: title, Series: []chartSeries{{Name: "Mean unit price", Class: "bar-price", Format: func(v float64) string {
		if v == 0 {
			return "–"
		}
		return money(v, currency)
	}}}}
	for _, p := range points {
		c.Labels = append(c.Labels, p.At.Format("Jan 2"))
		c.Series[0].Values = append(c.Series[0].Values, p.Price)
	}
	return c
}
