package prices

import (
	"math"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

func TestStats(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	h := New()
	const a, b svc.ProductRef = 1, 2
	// Out of time order, as a feed may bring them.
	h.Add(a, t0.Add(3*time.Hour), "EUR", 30)
	h.Add(a, t0.Add(1*time.Hour), "EUR", 10)
	h.Add(a, t0.Add(2*time.Hour), "EUR", 20)
	h.Add(a, t0.Add(4*time.Hour), "EUR", 50)
	h.Add(a, t0.Add(4*time.Hour), "USD", 1000)
	h.Add(b, t0, "EUR", 7)
	// Not recorded.
	h.Add(a, t0, "EURO", 1)
	h.Add(a, t0, "EUR", -1)
	h.Add(a, t0, "EUR", math.NaN())

	for _, tc := range []struct {
		name     string
		ref      svc.ProductRef
		since    time.Time
		currency string
		want     Stats
	}{
		{"even count: the mean of the middle two", a, t0, "EUR", Stats{Purchases: 4, Median: 25, Min: 10, Max: 50}},
		{"odd count", a, t0.Add(2 * time.Hour), "EUR", Stats{Purchases: 3, Median: 30, Min: 20, Max: 50}},
		{"since is inclusive", a, t0.Add(4 * time.Hour), "EUR", Stats{Purchases: 1, Median: 50, Min: 50, Max: 50}},
		{"one currency only", a, t0, "USD", Stats{Purchases: 1, Median: 1000, Min: 1000, Max: 1000}},
		{"no price in the currency", a, t0, "GBP", Stats{}},
		{"a bad currency", a, t0, "EURO", Stats{}},
		{"another product", b, t0, "EUR", Stats{Purchases: 1, Median: 7, Min: 7, Max: 7}},
		{"an unknown product", 3, t0, "EUR", Stats{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := h.Stats(tc.ref, tc.since, tc.currency); got != tc.want {
				t.Errorf("Stats = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSweep(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	h := New()
	h.Add(1, t0.Add(2*time.Hour), "EUR", 20)
	h.Add(1, t0, "EUR", 10) // out of order: the sweep must sort first
	h.Add(1, t0.Add(3*time.Hour), "EUR", 30)
	h.Add(2, t0, "EUR", 5)

	h.Sweep(t0.Add(time.Hour))
	if got, want := h.Stats(1, time.Time{}, "EUR"), (Stats{Purchases: 2, Median: 25, Min: 20, Max: 30}); got != want {
		t.Errorf("after a sweep: %+v, want %+v", got, want)
	}
	if got := h.Stats(2, time.Time{}, "EUR"); got != (Stats{}) {
		t.Errorf("a product whose prices all aged out: %+v", got)
	}
	if _, ok := h.byProduct[2]; ok {
		t.Error("a product with no prices left is still held")
	}
}
