// Package prices keeps the unit prices paid for each product lately, for
// price insight: their median, lowest and highest in one currency.
package prices

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/svc-project/svc"
)

// History is the unit prices paid per product. It is safe for concurrent
// use. Few products have any, and it has a lock of its own, so that
// recording a price never waits for matching, nor matching for a sweep.
type History struct {
	mu        sync.RWMutex
	byProduct map[svc.ProductRef]*series
	// gen counts the cuts (saved.go). A series of an older generation may
	// be a cut's, which is encoded while the history goes on: it is copied
	// before it changes.
	gen uint64
}

// series are one product's unit prices, in the order they were added.
type series struct {
	points    []point
	sorted    bool // by time: most are added in order
	lastMilli int64
	gen       uint64 // the history's when the series was made
}

// writable returns the product's series, copied first if a cut may hold
// it; called under the write lock.
func (h *History) writable(ref svc.ProductRef, s *series) *series {
	if s.gen == h.gen {
		return s
	}
	c := *s
	c.points, c.gen = slices.Clone(s.points), h.gen
	h.byProduct[ref] = &c
	return &c
}

// point is one purchased line's unit price.
type point struct {
	at       int64 // unix milliseconds
	price    float64
	currency [3]byte
}

// Window is how far back the prices paid are kept: price insight's
// window (docs/enrichment.md, Price).
const Window = 30 * 24 * time.Hour

// Learn records the price one order paid for a product, if it has one
// and is inside the Window ending now.
func (h *History) Learn(r svc.PurchaseRecord, now time.Time) {
	if r.UnitPrice != nil && r.Currency != "" && r.Time.After(now.Add(-Window)) {
		h.Add(r.Product, r.Time, r.Currency, *r.UnitPrice)
	}
}

// Cancel replaces the price an order's line paid with what a
// cancellation left of it, if the order is inside the Window ending now.
func (h *History) Cancel(r svc.CancelRecord, now time.Time) {
	if r.Currency == "" || !r.Time.After(now.Add(-Window)) {
		return
	}
	if r.PriceBefore != nil {
		h.Remove(r.Product, r.Time, r.Currency, *r.PriceBefore)
	}
	if r.PriceAfter != nil {
		h.Add(r.Product, r.Time, r.Currency, *r.PriceAfter)
	}
}

// New returns an empty history.
func New() *History {
	return &History{byProduct: make(map[svc.ProductRef]*series)}
}

// Add records the unit price one order paid for a product. A currency that
// is not a three-letter code, or a price that is negative or not a number,
// is not recorded.
func (h *History) Add(ref svc.ProductRef, at time.Time, currency string, unitPrice float64) {
	if len(currency) != 3 || math.IsNaN(unitPrice) || unitPrice < 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.byProduct[ref]
	if s == nil {
		s = &series{sorted: true, gen: h.gen}
		h.byProduct[ref] = s
	}
	s = h.writable(ref, s)
	ms := at.UnixMilli()
	if ms < s.lastMilli {
		s.sorted = false
	}
	s.lastMilli = max(s.lastMilli, ms)
	s.points = append(s.points, point{at: ms, price: unitPrice, currency: [3]byte([]byte(currency))})
}

// Stats summarises the unit prices paid for a product.
type Stats struct {
	Purchases        int // priced purchases behind the figures
	Median, Min, Max float64
}

// Stats returns the unit prices paid for a product at or after since, in
// one currency.
func (h *History) Stats(ref svc.ProductRef, since time.Time, currency string) Stats {
	if len(currency) != 3 {
		return Stats{}
	}
	cur, from := [3]byte([]byte(currency)), since.UnixMilli()
	var ps []float64
	h.mu.RLock()
	if s := h.byProduct[ref]; s != nil {
		for _, p := range s.points {
			if p.at >= from && p.currency == cur {
				ps = append(ps, p.price)
			}
		}
	}
	h.mu.RUnlock()
	if len(ps) == 0 {
		return Stats{}
	}
	slices.Sort(ps)
	n := len(ps)
	median := ps[n/2]
	if n%2 == 0 {
		median = (ps[n/2-1] + ps[n/2]) / 2
	}
	return Stats{Purchases: n, Median: median, Min: ps[0], Max: ps[n-1]}
}

// Sweep forgets prices paid before the cutoff.
func (h *History) Sweep(before time.Time) {
	cut := before.UnixMilli()
	h.mu.Lock()
	defer h.mu.Unlock()
	for ref, s := range h.byProduct {
		if !s.sorted {
			s = h.writable(ref, s)
			slices.SortFunc(s.points, func(a, b point) int { return cmp.Compare(a.at, b.at) })
			s.sorted = true
		}
		j, _ := slices.BinarySearchFunc(s.points, cut, func(p point, t int64) int { return cmp.Compare(p.at, t) })
		switch {
		case j == len(s.points):
			delete(h.byProduct, ref)
		case j > 0:
			s = h.writable(ref, s)
			s.points = slices.Clip(append(s.points[:0], s.points[j:]...))
		}
	}
}

// Remove forgets one unit price recorded for a product at at, in the
// currency: an order's price that a cancellation or a refund changed.
func (h *History) Remove(ref svc.ProductRef, at time.Time, currency string, unitPrice float64) {
	if len(currency) != 3 {
		return
	}
	ms, cur := at.UnixMilli(), [3]byte([]byte(currency))
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.byProduct[ref]
	if s == nil {
		return
	}
	for i, p := range s.points {
		if p.at == ms && p.currency == cur && p.price == unitPrice {
			s = h.writable(ref, s)
			s.points = slices.Delete(s.points, i, i+1)
			break
		}
	}
	if len(s.points) == 0 {
		delete(h.byProduct, ref)
	}
}
