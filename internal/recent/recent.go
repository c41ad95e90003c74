// Package recent keeps each brand's recent purchases in memory and picks
// what its feed may show under the brand's privacy rules (docs/honesty.md):
// a delay, a window, a number of items, k purchases sharing a place before
// it is shown, and the brand's purchase threshold per product. It does no
// I/O: the tracker feeds it the purchases the store accepted, and rebuilds
// it from the store with the counts.
package recent

import (
	"slices"
	"sync"
	"time"

	"github.com/svc-project/svc"
)

// Feed holds the purchases of the last svc.MaxRecentWindow, per brand,
// oldest first. It is safe for concurrent use.
type Feed struct {
	mu     sync.RWMutex
	brands map[string][]svc.RecentPurchase
}

// New returns an empty feed.
func New() *Feed { return &Feed{brands: map[string][]svc.RecentPurchase{}} }

// Add records one product of an accepted order.
func (f *Feed) Add(p svc.RecentPurchase) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ps := f.brands[p.BrandID]
	// Orders come mostly in time order; a backdated one is put in place.
	i := len(ps)
	for i > 0 && ps[i-1].Time.After(p.Time) {
		i--
	}
	f.brands[p.BrandID] = slices.Insert(ps, i, p)
}

// Cancel takes units of the product out of the brand's order, the whole
// line when units is 0 or at least what is left of it. It reports whether
// the order's line was there.
func (f *Feed) Cancel(brandID, order string, product svc.ProductRef, units int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	ps := f.brands[brandID]
	for i := range ps {
		p := &ps[i]
		if p.Order != order || p.Product != product {
			continue
		}
		if units > 0 && units < p.Units {
			p.Units -= units
		} else {
			f.brands[brandID] = slices.Delete(ps, i, i+1)
		}
		return true
	}
	return false
}

// Sweep forgets the purchases before cut.
func (f *Feed) Sweep(cut time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for b, ps := range f.brands {
		i, _ := slices.BinarySearchFunc(ps, cut, func(p svc.RecentPurchase, t time.Time) int { return p.Time.Compare(t) })
		switch {
		case i == len(ps):
			delete(f.brands, b)
		case i > 0:
			f.brands[b] = slices.Delete(ps, 0, i)
		}
	}
}

// Rules are what decide which purchases a brand's feed shows.
type Rules struct {
	svc.RecentSettings     // as stored: every field set
	MinPurchases       int // the brand's purchase threshold, per product
}

// Item is a purchase the feed may show, with its place as far as the
// rules allow.
type Item struct {
	Product         svc.ProductRef
	Time            time.Time
	Country, City   string // "" when withheld
	OrdersOfProduct int
}

// Recent returns the brand's purchases to show at now, newest first: of
// the product only, unless it is 0. A purchase is shown when it is in
// (now-Window, now-Delay] and its product has at least MinPurchases orders
// there; its city when at least K of the brand's orders there share it,
// else its country under the same rule, else no place.
func (f *Feed) Recent(brandID string, product svc.ProductRef, r Rules, now time.Time) []Item {
	lo, hi := now.Add(-r.Window), now.Add(-r.Delay)
	f.mu.RLock()
	ps := f.brands[brandID]
	first, _ := slices.BinarySearchFunc(ps, lo, func(p svc.RecentPurchase, t time.Time) int {
		if p.Time.After(t) {
			return 1
		}
		return -1
	})
	last, _ := slices.BinarySearchFunc(ps, hi, func(p svc.RecentPurchase, t time.Time) int {
		if p.Time.After(t) {
			return 1
		}
		return -1
	})
	shown := slices.Clone(ps[first:max(first, last)])
	f.mu.RUnlock()

	type place struct{ country, city string }
	perProduct := map[svc.ProductRef]int{}
	seen := map[string]bool{}
	orders := map[place]int{} // distinct orders per city, and per country under city ""
	for _, p := range shown {
		perProduct[p.Product]++ // an order names a product once
		if seen[p.Order] || p.Country == "" {
			continue
		}
		seen[p.Order] = true
		orders[place{p.Country, ""}]++
		if p.City != "" {
			orders[place{p.Country, p.City}]++
		}
	}
	var out []Item
	for i := len(shown) - 1; i >= 0 && len(out) < r.MaxItems; i-- {
		p := &shown[i]
		if product != 0 && p.Product != product || perProduct[p.Product] < r.MinPurchases {
			continue
		}
		it := Item{Product: p.Product, Time: p.Time, OrdersOfProduct: perProduct[p.Product]}
		switch {
		case p.Country == "":
		case p.City != "" && orders[place{p.Country, p.City}] >= r.K:
			it.Country, it.City = p.Country, p.City
		case orders[place{p.Country, ""}] >= r.K:
			it.Country = p.Country
		}
		out = append(out, it)
	}
	return out
}
