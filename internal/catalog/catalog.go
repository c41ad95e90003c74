// Package catalog holds every product's title, address and recent prices,
// indexed so that a page or a search result finds its product: by canonical
// URL, or by title within a brand, and the same product at other brands
// (DESIGN 7). It lives in memory, fed by the tracker as events commit.
package catalog

import (
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/urlcanon"
)

// Catalog is safe for concurrent use.
type Catalog struct {
	mu       sync.RWMutex
	vocab    map[string]uint32 // word → id
	wordList []string          // id → word
	df       []int32           // id → products whose title has the word
	entries  []entry
	byRef    refIndex
	byURL    map[string]uint32   // canonical URL → entry
	bySKU    map[string][]uint32 // folded SKU → entries of any brand
	brands   map[string]uint32   // brand id → index
	brandIDs []string
	size     []int32                 // brand index → products
	postings map[uint32]*postingList // word id → products with it
}

type entry struct {
	ref            svc.ProductRef
	brand          uint32
	productID      string
	title, url     string
	sku            string
	canonURL       string
	words          []uint32 // of the title, sorted, unique
	prices         []pricePoint
	pricesSorted   bool
	lastPriceMilli int64
}

// New returns an empty catalog.
func New() *Catalog {
	return &Catalog{
		vocab:    make(map[string]uint32),
		byRef:    refIndex{sparse: make(map[svc.ProductRef]uint32)},
		byURL:    make(map[string]uint32),
		bySKU:    make(map[string][]uint32),
		brands:   make(map[string]uint32),
		postings: make(map[uint32]*postingList),
	}
}

// Put adds a product or updates the attributes it gives (nil ones are kept),
// as the store does with the latest values seen in events.
func (c *Catalog) Put(p *svc.Product) {
	c.mu.RLock()
	i, ok := c.byRef.get(p.Ref)
	same := ok && c.entries[i].same(p)
	c.mu.RUnlock()
	if same {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok = c.byRef.get(p.Ref)
	if !ok {
		b, known := c.brands[p.BrandID]
		if !known {
			b = uint32(len(c.brandIDs))
			c.brands[p.BrandID] = b
			c.brandIDs = append(c.brandIDs, p.BrandID)
			c.size = append(c.size, 0)
		}
		i = uint32(len(c.entries))
		c.entries = append(c.entries, entry{ref: p.Ref, brand: b, productID: p.ProductID})
		c.byRef.set(p.Ref, i)
		c.size[b]++
	}
	e := &c.entries[i]
	if p.Title != nil && *p.Title != e.title {
		c.unindexWords(i)
		e.title = *p.Title
		c.indexWords(i)
	}
	if p.URL != nil && *p.URL != e.url {
		if e.canonURL != "" && c.byURL[e.canonURL] == i {
			delete(c.byURL, e.canonURL)
		}
		e.url = *p.URL
		e.canonURL, _ = urlcanon.URL(e.url)
		if e.canonURL != "" {
			c.byURL[e.canonURL] = i
		}
	}
	if p.SKU != nil && foldSKU(*p.SKU) != e.sku {
		if e.sku != "" {
			c.bySKU[e.sku] = slices.DeleteFunc(c.bySKU[e.sku], func(j uint32) bool { return j == i })
		}
		e.sku = foldSKU(*p.SKU)
		if e.sku != "" {
			c.bySKU[e.sku] = append(c.bySKU[e.sku], i)
		}
	}
}

func (e *entry) same(p *svc.Product) bool {
	return (p.Title == nil || *p.Title == e.title) && (p.URL == nil || *p.URL == e.url) &&
		(p.SKU == nil || foldSKU(*p.SKU) == e.sku)
}

// foldSKU makes "ABC-123 " and "abc-123" one SKU.
func foldSKU(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func (c *Catalog) indexWords(i uint32) {
	e := &c.entries[i]
	e.words = e.words[:0]
	for _, w := range Words(e.title) {
		id, ok := c.vocab[w]
		if !ok {
			id = uint32(len(c.df))
			c.vocab[w] = id
			c.wordList = append(c.wordList, w)
			c.df = append(c.df, 0)
		}
		e.words = append(e.words, id)
	}
	slices.Sort(e.words)
	e.words = slices.Compact(e.words)
	for _, id := range e.words {
		c.df[id]++
		pl := c.postings[id]
		if pl == nil {
			pl = new(postingList)
			c.postings[id] = pl
		}
		pl.add(posting(e.brand, i))
	}
}

func (c *Catalog) unindexWords(i uint32) {
	e := &c.entries[i]
	for _, id := range e.words {
		c.df[id]--
		c.postings[id].remove(posting(e.brand, i))
	}
	e.words = e.words[:0]
}

// Len returns how many products the catalog holds.
func (c *Catalog) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// Product is a product as a match reports it.
type Product struct {
	Ref       svc.ProductRef
	BrandID   string
	ProductID string
	Title     string // "" when no event gave one
	URL       string
	SKU       string // folded: lower case, trimmed
}

func (c *Catalog) product(i uint32) Product {
	e := &c.entries[i]
	return Product{Ref: e.ref, BrandID: c.brandIDs[e.brand], ProductID: e.productID, Title: e.title, URL: e.url, SKU: e.sku}
}

// ByURL finds the product whose page has the canonical address.
func (c *Catalog) ByURL(canonical string) (Product, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	i, ok := c.byURL[canonical]
	if !ok {
		return Product{}, false
	}
	return c.product(i), true
}

// pricePoint is one purchased line's unit price.
type pricePoint struct {
	at       int64 // unix milliseconds
	price    float64
	currency [3]byte
}

// AddPrice records the unit price one order paid for a product.
func (c *Catalog) AddPrice(ref svc.ProductRef, at time.Time, currency string, unitPrice float64) {
	if len(currency) != 3 || math.IsNaN(unitPrice) || unitPrice < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.byRef.get(ref)
	if !ok {
		return
	}
	e := &c.entries[i]
	ms := at.UnixMilli()
	if ms < e.lastPriceMilli {
		e.pricesSorted = false
	}
	e.lastPriceMilli = max(e.lastPriceMilli, ms)
	e.prices = append(e.prices, pricePoint{at: ms, price: unitPrice, currency: [3]byte([]byte(currency))})
}

// PriceStats summarises the unit prices paid for a product.
type PriceStats struct {
	Purchases        int // priced purchases behind the figures
	Median, Min, Max float64
}

// Prices returns the unit prices paid for a product at or after since, in
// one currency.
func (c *Catalog) Prices(ref svc.ProductRef, since time.Time, currency string) PriceStats {
	c.mu.RLock()
	defer c.mu.RUnlock()
	i, ok := c.byRef.get(ref)
	if !ok || len(currency) != 3 {
		return PriceStats{}
	}
	cur, from := [3]byte([]byte(currency)), since.UnixMilli()
	var ps []float64
	for _, p := range c.entries[i].prices {
		if p.at >= from && p.currency == cur {
			ps = append(ps, p.price)
		}
	}
	if len(ps) == 0 {
		return PriceStats{}
	}
	slices.Sort(ps)
	n := len(ps)
	median := ps[n/2]
	if n%2 == 0 {
		median = (ps[n/2-1] + ps[n/2]) / 2
	}
	return PriceStats{Purchases: n, Median: median, Min: ps[0], Max: ps[n-1]}
}

// ClearPrices forgets every price, before they are loaded again from the
// store after an erasure.
func (c *Catalog) ClearPrices() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.entries {
		c.entries[i].prices, c.entries[i].lastPriceMilli = nil, 0
	}
}

// Sweep forgets prices paid before the cutoff.
func (c *Catalog) Sweep(before time.Time) {
	cut := before.UnixMilli()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.entries {
		e := &c.entries[i]
		if len(e.prices) == 0 {
			continue
		}
		if !e.pricesSorted {
			slices.SortFunc(e.prices, func(a, b pricePoint) int { return int(a.at - b.at) })
			e.pricesSorted = true
		}
		j, _ := slices.BinarySearchFunc(e.prices, cut, func(p pricePoint, t int64) int {
			switch {
			case p.at < t:
				return -1
			case p.at > t:
				return 1
			}
			return 0
		})
		if j > 0 {
			e.prices = slices.Clip(append(e.prices[:0], e.prices[j:]...))
		}
	}
}

// refIndex finds a product's entry by its store reference. Stores number
// products from a sequence, so a slice indexed by reference costs 4 bytes a
// product where a map costs ten times that; a reference far beyond the
// numbers seen goes to a map instead.
type refIndex struct {
	dense  []uint32 // entry + 1; 0 is none
	sparse map[svc.ProductRef]uint32
}

func (x *refIndex) get(ref svc.ProductRef) (uint32, bool) {
	if ref >= 0 && ref < svc.ProductRef(len(x.dense)) {
		if e := x.dense[ref]; e > 0 {
			return e - 1, true
		}
	}
	i, ok := x.sparse[ref] // set before the slice reached it
	return i, ok
}

func (x *refIndex) set(ref svc.ProductRef, i uint32) {
	if ref >= 0 && ref < svc.ProductRef(2*len(x.dense)+1024) {
		for svc.ProductRef(len(x.dense)) <= ref {
			x.dense = append(x.dense, 0)
		}
		x.dense[ref] = i + 1
		return
	}
	x.sparse[ref] = i
}
