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
	chartW, chartH = 600, 100
)

// SVG draws each series as a row of bars with its own scale, one panel
// above the other: purchases are a hundredth of views, and one scale
// would flatten them. The text is HTML around the drawing, not in it, so
// that it keeps the page's size at any width (an SVG's text scales with
// it); the drawing stretches to the width.
func (c chart) SVG() template.HTML {
	var b strings.Builder
	for _, s := range c.Series {
		peak := 0.0
		for _, v := range s.Values {
			peak = max(peak, v)
		}
		fmt.Fprintf(&b, `<div class="chart-series"><p class="chart-head"><span class="chart-name %s-key">%s</span> <span class="chart-scale">0 to %s</span></p>`,
			s.Class, template.HTMLEscapeString(s.Name), template.HTMLEscapeString(s.Format(peak)))
		fmt.Fprintf(&b, `<svg viewBox="0 0 %d %d" preserveAspectRatio="none" class="chart" role="img" aria-label="%s, %s (the table below has the numbers)">`,
			chartW, chartH, template.HTMLEscapeString(c.Title), template.HTMLEscapeString(s.Name))
		fmt.Fprintf(&b, `<line x1="0" y1="0.5" x2="%d" y2="0.5" class="chart-grid"/>`, chartW)
		n := len(s.Values)
		bw := float64(chartW) / float64(max(n, 1))
		for i, v := range s.Values {
			// Every step has a bar to hover, its title the value in words;
			// the table under the chart has them all for the keyboard and
			// screen readers.
			bh := 0.0
			if peak > 0 {
				bh = (v / peak) * float64(chartH-2)
			}
			fmt.Fprintf(&b, `<g><rect x="%.1f" y="0" width="%.1f" height="%d" class="chart-hit"/><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="%s"/><title>%s</title></g>`,
				float64(i)*bw, bw, chartH, float64(i)*bw+bw*0.1, float64(chartH)-bh, max(bw*0.8, 1), bh, s.Class, template.HTMLEscapeString(c.title(s, i)))
		}
		fmt.Fprintf(&b, `<line x1="0" y1="%d" x2="%d" y2="%d" class="chart-axis"/></svg></div>`, chartH, chartW, chartH)
	}
	if n := len(c.Labels); n > 0 {
		fmt.Fprintf(&b, `<p class="chart-x" aria-hidden="true"><span>%s</span><span>%s</span><span>%s</span></p>`,
			template.HTMLEscapeString(c.Labels[0]), template.HTMLEscapeString(c.Labels[n/2]), template.HTMLEscapeString(c.Labels[n-1]))
	}
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
