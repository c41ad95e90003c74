// Package purchasefeed keeps each brand's recent purchases in memory and
// picks what its feed (the widget's toasts, the API's recent-activity)
// may show under the brand's privacy rules (docs/honesty.md): a delay, a
// window, a number of items, k purchases sharing a place before it is
// shown, and the brand's purchase threshold per product. It does no I/O:
// the tracker feeds it the purchases the store accepted, and rebuilds it
// from the store's reader with the counts.
//
// Only keyed orders enter it, and only coarsened times leave it: an order
// counts as placed at a point of its minute that a hash of its event id
// picks, and shows from a minute after that point plus the delay, so that
// polling the feed every second tells an order's minute, never its second
// (docs/honesty.md, Recent purchases).
package purchasefeed

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svc-project/svc"
)

// coarse returns the time an order is shown as placed: the start of the
// minute it was placed in, plus a point of that minute that depends only
// on the order's event id, never on its second. The event id is the key:
// its 62 random bits are known only to the order's sender, who knows when
// it ordered; being the order's own, the point is the same on every node
// and after every restart.
func coarse(order string, t time.Time) int64 {
	h := sha256.Sum256([]byte(order))
	j := binary.BigEndian.Uint64(h[:8]) % uint64(time.Minute)
	return t.Truncate(time.Minute).UnixNano() + int64(j)
}

// Feed holds the keyed purchases of the last svc.MaxRecentWindow, per
// brand, oldest first by their coarsened times. It is safe for concurrent
// use.
type Feed struct {
	mu     sync.RWMutex
	brands map[string]*brand
	orders map[string]string // order event id -> brand, for cancellations
	places map[place]uint32  // interned places; 0 is none
	list   []place           // the place of id i at i-1
}

type place struct{ country, city string }

// brand is one brand's purchases, oldest first; the lines of an order are
// next to each other (they share its time, and go in together).
type brand struct {
	id      string // the key in Feed.brands, which each of its orders names
	entries []entry
	version uint64 // bumped by every change, under the write lock
	// agg is the latest count of the window, reused by the reads of the
	// same second: the endpoint needs no key, and a brand with many
	// orders must not cost a pass over them on every request.
	agg atomic.Pointer[aggregate]
}

type entry struct {
	order   string
	product svc.ProductRef
	time    int64 // coarsened, Unix nanoseconds: a third of a time.Time, a feed holds a week of orders
	units   int64
	country uint32 // the country's place, 0 when none
	city    uint32 // the city's, 0 when none
}

// New returns an empty feed.
func New() *Feed {
	return &Feed{brands: map[string]*brand{}, orders: map[string]string{}, places: map[place]uint32{}}
}

func (f *Feed) intern(p place) uint32 {
	id, ok := f.places[p]
	if !ok {
		f.list = append(f.list, p)
		id = uint32(len(f.list))
		f.places[p] = id
	}
	return id
}

// Add records the products of an accepted order, all of one order (one
// brand, one time), or one product of it: an order's lines must be added
// one after the other, with no other order's between. An anonymous order
// is left out: anyone can send one, and the feed shows only real
// purchases (docs/security.md, Provenance).
func (f *Feed) Add(ps ...svc.RecentPurchase) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range ps {
		if p.Keyed {
			f.add(p)
		}
	}
}

func (f *Feed) add(p svc.RecentPurchase) {
	b := f.brands[p.BrandID]
	if b == nil {
		b = &brand{id: p.BrandID}
		f.brands[p.BrandID] = b
	}
	e := entry{order: p.Order, product: p.Product, time: coarse(p.Order, p.Time), units: p.Units}
	if p.Country != "" {
		e.country = f.intern(place{p.Country, ""})
		if p.City != "" {
			e.city = f.intern(place{p.Country, p.City})
		}
	}
	// Orders come mostly in time order; a backdated one is put in place,
	// after the lines of its own order.
	i := len(b.entries)
	for i > 0 && b.entries[i-1].time > e.time {
		i--
	}
	b.entries = slices.Insert(b.entries, i, e)
	b.version++
	f.orders[p.Order] = b.id
}

// Trim gives back the room that appends left in the brands' lists, after
// a load.
func (f *Feed) Trim() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.brands {
		if cap(b.entries)-len(b.entries) > len(b.entries)/16 {
			b.entries = slices.Clone(b.entries)
		}
	}
}

// Cancel takes units of the product out of the order with the event id
// given, the whole line when units is 0 or at least what is left of it. It
// reports whether the order's line was there.
func (f *Feed) Cancel(order string, product svc.ProductRef, units int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	brandID, ok := f.orders[order]
	if !ok {
		return false
	}
	b := f.brands[brandID]
	for i := range b.entries {
		e := &b.entries[i]
		if e.order != order || e.product != product {
			continue
		}
		b.version++
		if units > 0 && units < e.units {
			e.units -= units
			return true
		}
		b.entries = slices.Delete(b.entries, i, i+1)
		if !slices.ContainsFunc(b.entries, func(e entry) bool { return e.order == order }) {
			delete(f.orders, order)
		}
		return true
	}
	return false
}

// Sweep forgets the purchases before cut.
func (f *Feed) Sweep(cut time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, b := range f.brands {
		i, _ := slices.BinarySearchFunc(b.entries, cut.UnixNano(), func(e entry, t int64) int { return cmp.Compare(e.time, t) })
		if i == 0 {
			continue
		}
		for _, e := range b.entries[:i] {
			delete(f.orders, e.order) // its other lines go too: an order has one time
		}
		if i == len(b.entries) {
			delete(f.brands, id)
			continue
		}
		b.entries = slices.Delete(b.entries, 0, i)
		b.version++
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
	Product svc.ProductRef
	// Time is when the order is shown as placed: within a minute of when
	// it was, at a point that tells nothing of its second.
	Time          time.Time
	Country, City string // "" when withheld
}

// aggregate counts a brand's purchases shown in one second: those in
// entries[first:last], orders per product, and distinct orders per place.
type aggregate struct {
	sec           int64
	window, delay time.Duration
	version       uint64
	first, last   int
	perProduct    map[svc.ProductRef]int
	perPlace      map[uint32]int
}

// Recent returns the brand's purchases to show at now (to the second),
// newest first: of the product only, unless it is 0. A purchase is shown
// when its coarsened time is in (now-Window+1m, now-Delay-1m], which the
// time it was placed always is for a while, never before Delay has passed
// and never after Window has, and its product has at least MinPurchases
// orders there; its city when at least K of the brand's orders there share
// it, else its country under the same rule, else no place.
func (f *Feed) Recent(brandID string, product svc.ProductRef, r Rules, now time.Time) []Item {
	now = now.Truncate(time.Second)
	f.mu.RLock()
	defer f.mu.RUnlock()
	b := f.brands[brandID]
	if b == nil {
		return nil
	}
	a := b.agg.Load()
	if a == nil || a.sec != now.Unix() || a.window != r.Window || a.delay != r.Delay || a.version != b.version {
		a = b.count(now, r.Window, r.Delay)
		b.agg.Store(a)
	}
	var out []Item
	for i := a.last - 1; i >= a.first && len(out) < r.MaxItems; i-- {
		e := &b.entries[i]
		if product != 0 && e.product != product || a.perProduct[e.product] < r.MinPurchases {
			continue
		}
		it := Item{Product: e.product, Time: time.Unix(0, e.time).UTC()}
		switch {
		case e.country == 0:
		case e.city != 0 && a.perPlace[e.city] >= r.K:
			it.Country, it.City = f.place(e.city)
		case a.perPlace[e.country] >= r.K:
			it.Country, _ = f.place(e.country)
		}
		out = append(out, it)
	}
	return out
}

// count counts the purchases shown at now; called under the read lock.
func (b *brand) count(now time.Time, window, delay time.Duration) *aggregate {
	// A coarsened time is less than a minute from the true one, either way.
	lo, hi := now.Add(-window+time.Minute), now.Add(-delay-time.Minute)
	after := func(t time.Time) int {
		i, _ := slices.BinarySearchFunc(b.entries, t.UnixNano(), func(e entry, t int64) int {
			if e.time > t {
				return 1
			}
			return -1
		})
		return i
	}
	a := &aggregate{sec: now.Unix(), window: window, delay: delay, version: b.version,
		first: after(lo), perProduct: map[svc.ProductRef]int{}, perPlace: map[uint32]int{}}
	a.last = max(a.first, after(hi))
	for i := a.first; i < a.last; i++ {
		e := &b.entries[i]
		a.perProduct[e.product]++ // an order names a product once
		if i > a.first && b.entries[i-1].order == e.order || e.country == 0 {
			continue // the order's places are counted once
		}
		a.perPlace[e.country]++
		if e.city != 0 {
			a.perPlace[e.city]++
		}
	}
	return a
}

// place returns an interned place; called under the read lock.
func (f *Feed) place(id uint32) (country, city string) {
	p := f.list[id-1]
	return p.country, p.city
}
