package tracker

import (
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/prices"
	"github.com/svc-project/svc/internal/purchasefeed"
	"github.com/svc-project/svc/internal/snapshot"
	"github.com/svc-project/svc/internal/window"
)

// Catalog is what the core feeds beside the counts, for enrichment and the
// recent purchases' titles: every product the store holds, with its
// verified attributes only (what shoppers may see), and the unit prices
// paid. internal/enrich's Catalog is the one; the core only calls
// it, on the commit path, from other nodes' events, and at a load.
type Catalog interface {
	snapshot.Catalog      // filled at a start or a recount
	purchasefeed.Products // read back for the recent purchases
	Learn(p svc.Product, keyed bool)
	LearnPrice(r svc.PurchaseRecord, now time.Time)
	Cancel(r svc.CancelRecord, now time.Time) // the price a cancellation changed
	PriceHistory() *prices.History            // which a snapshot keeps
	SetPriceHistory(h *prices.History)        // filled aside by a load, swapped in whole
	Sweep(now time.Time)
}

// Counts returns a product's counts in the windows ending now.
func (t *Tracker) Counts(ref svc.ProductRef, now time.Time, views, purchases time.Duration) window.Counts {
	return t.engine.Load().Counts(ref, now, views, purchases)
}

// CountsOf sets out[i] to a product's counts in the windows ws[i] ending
// now, as Counts does for each, under one look-up of the product.
func (t *Tracker) CountsOf(ref svc.ProductRef, now time.Time, ws []window.Windows, out []window.Counts) {
	t.engine.Load().CountsOf(ref, now, ws, out)
}

// learnProduct puts a stored product into the ref index and, with its
// verified attributes only, the catalog, which shoppers and other brands
// see through (docs/security.md, Provenance); keyed says a keyed event
// named it, whose page binds to it.
func (t *Tracker) learnProduct(p *svc.Product, keyed bool) {
	t.products.Put(p.BrandID, p.ProductID, p.Ref)
	for _, n := range p.Names { // a proof by any of its names reads the product
		t.products.Put(p.BrandID, n, p.Ref)
	}
	t.cat.Learn(*p.VerifiedOnly(), keyed)
}

// learnPurchaseLine records the price one order paid for a product.
func (t *Tracker) learnPurchaseLine(r svc.PurchaseRecord) {
	t.cat.LearnPrice(r, t.cfg.Now())
}

// learnWrite feeds the ref index and the catalog from a committed event: the product's
// latest attributes, as the store keeps them, and the prices paid.
func (t *Tracker) learnWrite(w *svc.Write) {
	r := &w.Result
	_, meta := w.Event()
	// named is the i-th product of the write, with the verified
	// attributes it gave: a keyed event's are, an anonymous event's are at
	// most provisional (svc.Product.Update), and an event that may not
	// register changes no attribute.
	named := func(i int, ref svc.ProductRef) *svc.Product {
		p := w.Product(i)
		if !w.MayRegister || !meta.Keyed {
			p = svc.Product{BrandID: p.BrandID, ProductID: p.ProductID}
		}
		p.Ref, p.Verified = ref, p.Given()
		return &p
	}
	if w.View != nil || w.Cart != nil {
		t.learnProduct(named(0, r.Lines[0].Product), meta.Keyed)
		t.learnNames(w, map[string]svc.ProductRef{r.Lines[0].ProductID: r.Lines[0].Product})
		return
	}
	e := w.Purchase
	refs := make(map[string]svc.ProductRef, len(r.Lines))
	for _, l := range r.Lines {
		refs[l.ProductID] = l.Product
	}
	for i, it := range e.Order.Items {
		t.learnProduct(named(i, refs[it.ProductID]), meta.Keyed)
	}
	t.learnNames(w, refs)
	currency := ""
	if e.Order.Currency != nil {
		currency = *e.Order.Currency
	}
	for _, l := range r.Lines {
		t.learnPurchaseLine(svc.PurchaseRecord{Product: l.Product, Time: e.Meta.Time, Units: l.Units,
			Currency: currency, UnitPrice: svc.MeanUnitPrice(e, l.ProductID)})
	}
}

// learnNames puts the names a committed write registered into the ref
// index, and logs the claims it gave that another product holds: the
// operator decides (docs/decisions.md, A product's names).
func (t *Tracker) learnNames(w *svc.Write, refs map[string]svc.ProductRef) {
	for _, n := range w.Result.Names {
		if ref, ok := refs[n.ProductID]; ok {
			t.products.Put(n.BrandID, n.Name, ref)
		}
	}
	for _, c := range w.Result.NameConflicts {
		brandID, _ := w.Event()
		t.cfg.Logger.Warn("a name of a product is another product's: the first claim keeps it",
			"brand", brandID, "name", c.Name, "product", c.ProductID, "owner", c.Owner,
			"if_one_product", "svc products merge --brand "+brandID+" --into "+c.Owner+" --from "+c.ProductID)
	}
}
