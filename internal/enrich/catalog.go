package enrich

import (
	"sync/atomic"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
	"github.com/svc-project/svc/internal/prices"
)

// PriceWindow is how far back price insight looks (docs/enrichment.md, Price).
const PriceWindow = prices.Window

// Catalog gathers what enrichment reads besides the counts: the products
// indexed for matching, with their verified attributes only; the unit
// prices paid in the last PriceWindow; and the brands by the domains their
// pages live on. The core feeds it what it commits (it is the tracker's
// Config.Catalog), and it builds the brands' directory from the Brands it
// is asked with. It is safe for concurrent use.
type Catalog struct {
	index  *match.Index
	prices atomic.Pointer[prices.History] // swapped whole by a load
	dir    atomic.Pointer[directory]
}

// directory is the brands by domain of one version of the brands.
type directory struct {
	version int64
	dir     *match.Directory
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	c := &Catalog{index: match.New()}
	c.prices.Store(prices.New())
	return c
}

// Load fills the index at a start or a recount, parsing on every core:
// fill puts every stored product (snapshot.Loader), as Learn is given it.
func (c *Catalog) Load(fill func(put func(*svc.Product)) error) error {
	return c.index.Load(fill)
}

// Learn indexes a stored product. The core gives it with its verified
// attributes only (svc.Product.VerifiedOnly), which is all shoppers and
// other brands may see of it (docs/security.md, Provenance); keyed says a
// keyed event named it, whose page binds to it (match.Index.PutKeyed).
// It takes a copy: a pointer through the core's interface would move every
// committed product to the heap.
func (c *Catalog) Learn(p svc.Product, keyed bool) {
	if keyed {
		c.index.PutKeyed(&p)
	} else {
		c.index.Put(&p)
	}
}

// LearnPrice records the price one order paid for a product, if it has one
// and is inside the PriceWindow ending now.
func (c *Catalog) LearnPrice(r svc.PurchaseRecord, now time.Time) { c.prices.Load().Learn(r, now) }

// Cancel replaces the price an order's line paid with what a cancellation
// left of it.
func (c *Catalog) Cancel(r svc.CancelRecord, now time.Time) { c.prices.Load().Cancel(r, now) }

// PriceHistory is the prices paid, which a snapshot of the counts keeps.
func (c *Catalog) PriceHistory() *prices.History { return c.prices.Load() }

// SetPriceHistory puts h in place of the prices paid: a start or a
// recount fills a history aside, and swaps it in whole with the counts,
// so that no reader sees one half filled, and a recount that fails leaves
// the prices as they were.
func (c *Catalog) SetPriceHistory(h *prices.History) { c.prices.Store(h) }

// Sweep frees the prices older than the PriceWindow ending now.
func (c *Catalog) Sweep(now time.Time) { c.prices.Load().Sweep(now.Add(-PriceWindow)) }

// Product returns a product with its verified attributes, as last learnt.
func (c *Catalog) Product(ref svc.ProductRef) (*svc.Product, bool) {
	p, ok := c.index.ByRef(ref)
	if !ok {
		return nil, false
	}
	return &svc.Product{Ref: p.Ref, BrandID: p.BrandID, ProductID: p.ProductID, Title: orNull(p.Title), URL: orNull(p.URL)}, true
}

// Prices returns the statistics of a product's unit prices in the currency
// over the PriceWindow ending now.
func (c *Catalog) Prices(ref svc.ProductRef, currency string, now time.Time) prices.Stats {
	return c.prices.Load().Stats(ref, now.Add(-PriceWindow), currency)
}

// directory returns the brands by domain, built again when the brands'
// version moved.
func (c *Catalog) directory(b Brands) *match.Directory {
	version, all := b.Brands()
	if d := c.dir.Load(); d != nil && d.version == version {
		return d.dir
	}
	d := &directory{version: version, dir: match.NewDirectory(all)}
	c.dir.Store(d)
	return d.dir
}
