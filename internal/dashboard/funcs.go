package dashboard

import (
	"errors"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/insights"
)

// productList is a table of products of a brand.
type productList struct {
	Brand string
	Rows  []insights.ProductRow
}

func asError(err error, e **svc.Error) bool { return errors.As(err, e) }

var funcs = template.FuncMap{
	"int":     formatInt,
	"money":   money,
	"change":  change,
	"percent": func(v float64) string { return strconv.FormatFloat(100*v, 'f', 2, 64) + "%" },
	"points":  func(v float64) string { return signed(100*v, 2) + " pts" },
	"signed":  func(v float64) string { return signed(v, 2) },
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"brandPath": brandPath,
	"productPath": func(brand, product string) string {
		return brandPath(brand) + "products/" + pathEscape(product)
	},
	"dict2":  func(brand string, rows []insights.ProductRow) productList { return productList{brand, rows} },
	"trend":  func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "×" },
	"count":  inWords,
	"fewer":  fewer,
	"perDay": perDay,
	"share":  share,
	"rate":   rateText,
	"int64":  func(n int) int64 { return int64(n) },
	// trendOf is a product's trend, "new" without views in the 6 days
	// before: a ratio needs a baseline.
	"trendOf": func(r insights.ProductRow) string {
		if r.Week.Views-r.Day.Views <= 0 {
			return "new"
		}
		return strconv.FormatFloat(r.Trend, 'f', 1, 64) + "×"
	},
	"has": slices.Contains[[]string],
}

func pathEscape(s string) string { return strings.ReplaceAll(template.URLQueryEscaper(s), "+", "%20") }

// formatInt writes thousands with thin separators: 12,345.
func formatInt(n int64) string { return groupDigits(strconv.FormatInt(n, 10)) }

// groupDigits separates the thousands of a whole number written in digits,
// with a sign or not.
func groupDigits(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// money writes an amount, a float64 or a sum (insights.Money), to the cent
// from its own decimal digits, never through an integer: an order within
// the bounds reaches 5×10²⁰, past int64 (docs/dashboard.md, Money).
func money(v any, currency string) string {
	var text string
	switch x := v.(type) {
	case insights.Money:
		text = x.Text(2)
	case float64:
		text = strconv.FormatFloat(x, 'f', 2, 64)
	default:
		panic(fmt.Sprintf("money of a %T", v)) // a template's mistake, found by its tests
	}
	whole, cents, _ := strings.Cut(text, ".")
	if whole == "-0" {
		whole = "0"
	}
	s := groupDigits(whole) + "." + cents
	if currency != "" {
		s += " " + currency
	}
	return s
}

func signed(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if v > 0 {
		return "+" + s
	}
	return s
}

// change is the change of a figure against the period before: "+12%",
// "−5%", "new" when there was none before, "–" when both are zero.
func change(cur, before any) string {
	c, b := toFloat(cur), toFloat(before)
	switch {
	case b == 0 && c == 0:
		return "–"
	case b == 0:
		return "new"
	}
	return signed(math.Round(100*(c-b)/b), 0) + "%"
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case int:
		return float64(x)
	case insights.Money:
		return x.Float64()
	}
	return 0
}
