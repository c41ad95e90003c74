package svc

import (
	"bytes"
	"context"
	"time"
)

// The rules of a write, written once for every store: what a write's
// idempotency key is scoped to, what becomes of the write (replay, conflict,
// duplicate order, unknown product, accepted), what it does to the products
// it names, the lines it counts, and the price record of an order's
// product. A store looks up what Decide asks for, in its own way (row by
// row, or the whole batch at once), and persists what Decide says.

// IdempotencyKey names an idempotency key as it is stored: a brand's keys
// of one endpoint and one kind of sender (keyed or not) are apart, so that
// an anonymous view cannot claim a keyed purchase's key.
type IdempotencyKey struct {
	BrandID, Scope, Key string
}

// Event returns the brand and the meta of the write's event.
func (w *Write) Event() (brandID string, meta *EventMeta) {
	if w.View != nil {
		return w.View.BrandID, &w.View.Meta
	}
	if w.Cart != nil {
		return w.Cart.BrandID, &w.Cart.Meta
	}
	return w.Purchase.BrandID, &w.Purchase.Meta
}

// Key returns the write's idempotency key; its Key is "" when it has none.
func (w *Write) Key() IdempotencyKey {
	brandID, meta := w.Event()
	scope := "purchase"
	if w.View != nil {
		scope = "view"
	} else if w.Cart != nil {
		scope = "cart"
	}
	if meta.Keyed {
		scope += ":keyed"
	} else {
		scope += ":anonymous"
	}
	return IdempotencyKey{BrandID: brandID, Scope: scope, Key: w.IdempotencyKey}
}

// Answer is what an idempotency key answers: the first write's status and
// event id, with the hash of its body.
type Answer struct {
	Status, EventID string
	BodyHash        []byte
}

// WriteLookup is what Decide asks of a store, inside the transaction that
// persists the write. Every answer includes what the writes decided before
// it in the same batch did.
type WriteLookup interface {
	// Answer returns the answer of an idempotency key given by a write
	// received after since; ok is false when there is none.
	Answer(ctx context.Context, k IdempotencyKey, since time.Time) (a Answer, ok bool, err error)
	// Order returns the event id of the brand's stored order with the id,
	// sent keyed or not as keyed says; ok is false when there is none.
	Order(ctx context.Context, brandID, orderID string, keyed bool) (eventID string, ok bool, err error)
	PendingLookup
	ProductLookup
	NameLookup
}

// ProductLookup is what the rules of products ask of a store. Decide and
// EnsureProduct look up each product a write names once, in the order the
// write names them, and register it right after when it is missing, so
// that a store can note each line's product as it goes.
type ProductLookup interface {
	// Product returns the brand's product with the id, as stored; ok is
	// false when there is none.
	Product(ctx context.Context, brandID, productID string) (p Product, ok bool, err error)
	// RegisterProduct stores a new product (p.Ref is 0), received at at.
	RegisterProduct(ctx context.Context, p Product, at time.Time) error
	// UpdateProduct stores the attributes of p that set holds (nil where
	// unchanged); p is the product as it is after.
	UpdateProduct(ctx context.Context, p, set Product, at time.Time) error
}

// Decide decides what becomes of a write and sets its Result, all but the
// Lines, which the store sets with Lines once it knows the products' refs.
// It reports whether the store is to persist the event: false for a
// replay, a duplicate order, or a write refused with ECONFLICT or
// ENOTFOUND. Products are registered or updated through look as the write
// may; a write refused for an unknown product has changed nothing.
func Decide(ctx context.Context, w *Write, look WriteLookup) (accept bool, err error) {
	w.Result = WriteResult{}
	brandID, meta := w.Event()
	if w.IdempotencyKey != "" {
		a, ok, err := look.Answer(ctx, w.Key(), meta.ReceivedAt.Add(-IdempotencyTTL))
		switch {
		case err != nil:
			return false, err
		case ok && !bytes.Equal(a.BodyHash, w.BodyHash[:]):
			w.Result.Err = Errorf(ECONFLICT, "Idempotency-Key %q was used with another body in the last %s", w.IdempotencyKey, IdempotencyTTL)
			return false, nil
		case ok:
			w.Result = WriteResult{Status: a.Status, EventID: a.EventID, Replay: true}
			return false, nil
		}
	}
	if e := w.Purchase; e != nil {
		// A brand's keyed orders and anonymous ones are apart, as their
		// idempotency keys are: an anonymous order never makes the brand's
		// keyed order of the same id a duplicate, whoever sent it first. An
		// anonymous order repeating a keyed one is its duplicate.
		first, ok, err := look.Order(ctx, brandID, e.Order.OrderID, meta.Keyed)
		if err == nil && !ok && !meta.Keyed {
			first, ok, err = look.Order(ctx, brandID, e.Order.OrderID, true)
		}
		switch {
		case err != nil:
			return false, err
		case ok:
			w.Result.Status, w.Result.EventID = StatusDuplicate, first
			return false, nil
		}
	}
	// Names first: the order's lines then name the products they count,
	// which a refund that overtook the order names too.
	if err := resolveNames(ctx, look, w, meta.Keyed, meta.ReceivedAt); err != nil {
		return false, err
	}
	if e := w.Purchase; e != nil {
		// A refund that overtook the order takes out its units now.
		if err := TakeOutPending(ctx, look, e); err != nil {
			return false, err
		}
	}
	for i := range w.Products() {
		named := w.Product(i)
		found, err := resolveProduct(ctx, look, named, w.MayRegister, meta.Keyed, meta.ReceivedAt)
		if err != nil {
			return false, err
		}
		if !found {
			w.Result.Err = Errorf(ENOTFOUND, "product %q of brand %q not found, and the brand's catalog is closed to anonymous events", named.ProductID, brandID)
			return false, nil
		}
	}
	w.Result.Status, w.Result.EventID = StatusAccepted, meta.EventID
	return true, nil
}

// Remembers reports whether the write's idempotency key is to keep the
// write's answer: it has a key, and it was neither refused nor a replay.
func (w *Write) Remembers() bool {
	return w.IdempotencyKey != "" && w.Result.Err == nil && !w.Result.Replay
}

// Lines returns the lines an accepted write counts, given the refs of the
// products it names in order: a view's one product, an order's line by
// line (see LinesOf).
func (w *Write) Lines(refs []ProductRef) []Line {
	if v := w.View; v != nil {
		return []Line{{Product: refs[0], ProductID: v.Product.ProductID, Units: 1}}
	}
	if c := w.Cart; c != nil {
		return []Line{{Product: refs[0], ProductID: c.Product.ProductID, Units: c.Units()}}
	}
	return LinesOf(w.Purchase, refs)
}

// LinesOf sums an order's units per product, given each line's product
// reference: an order counts once for every product it contains.
func LinesOf(e *PurchaseEvent, refs []ProductRef) []Line {
	var lines []Line
	at := make(map[ProductRef]int, len(refs))
	for i, it := range e.Order.Items {
		j, ok := at[refs[i]]
		if !ok {
			j = len(lines)
			at[refs[i]] = j
			lines = append(lines, Line{Product: refs[i], ProductID: it.ProductID})
		}
		lines[j].Units += *it.Quantity
	}
	return lines
}

// Products returns how many products the write names: one for a view, and
// one per line of an order (a product may come more than once).
func (w *Write) Products() int {
	if w.View != nil || w.Cart != nil {
		return 1
	}
	return len(w.Purchase.Order.Items)
}

// Product returns the i-th product the write names, with the attributes
// it gives: a view's sku, title, url and identifiers, an order line's sku,
// title and identifiers (a GTIN as GTIN-14).
func (w *Write) Product(i int) Product {
	if v := w.View; v != nil {
		return Product{BrandID: v.BrandID, ProductID: v.Product.ProductID, SKU: v.Product.SKU, Title: v.Product.Title, URL: v.Product.URL,
			GTIN: normalGTIN(v.Product.GTIN), MPN: v.Product.MPN, Maker: v.Product.Brand}
	}
	if c := w.Cart; c != nil {
		return Product{BrandID: c.BrandID, ProductID: c.Product.ProductID, SKU: c.Product.SKU, Title: c.Product.Title, URL: c.Product.URL}
	}
	it := &w.Purchase.Order.Items[i]
	return Product{BrandID: w.Purchase.BrandID, ProductID: it.ProductID, SKU: it.SKU, Title: it.Title,
		GTIN: normalGTIN(it.GTIN), MPN: it.MPN, Maker: it.Brand}
}

// EnsureProduct registers p if the store has no such product and otherwise
// updates the attributes p gives, as a keyed event that may register
// products would: the operator's or the server's own product. The store's
// Product then answers with it.
func EnsureProduct(ctx context.Context, look ProductLookup, p Product, at time.Time) error {
	_, err := resolveProduct(ctx, look, p, true, true, at)
	return err
}

// resolveProduct looks up a product a write names. With register set, a
// missing product is registered and a stored one takes the attributes the
// write may set (Update); without it, nothing changes, and a missing
// product is not found. keyed is the write's provenance.
func resolveProduct(ctx context.Context, look ProductLookup, named Product, register, keyed bool, at time.Time) (found bool, err error) {
	stored, ok, err := look.Product(ctx, named.BrandID, named.ProductID)
	switch {
	case err != nil:
		return false, err
	case !ok && !register:
		return false, nil
	case !ok:
		named.Ref, named.Verified = 0, 0
		if keyed {
			named.Verified = named.Given()
		}
		return true, look.RegisterProduct(ctx, named, at)
	case register:
		if set, changed := stored.Update(named, keyed); changed {
			return true, look.UpdateProduct(ctx, stored, set, at)
		}
	}
	return true, nil
}

// Update gives p the attributes that named gives (not nil) and that differ
// from p's, as far as the sender may (docs/security.md, Provenance): a
// keyed sender sets them and makes them verified; an anonymous one sets
// only those no keyed event has set, which stay provisional. An attribute
// named does not give stays. It returns the attributes that changed or
// were newly verified, nil where none did, with set.Verified the
// attributes newly verified, so that a store writes only those, and
// whether any did.
func (p *Product) Update(named Product, keyed bool) (set Product, changed bool) {
	set = Product{Ref: p.Ref, BrandID: p.BrandID, ProductID: p.ProductID}
	if keyed {
		set.Verified = named.Given() &^ p.Verified
		p.Verified |= set.Verified
	} else {
		named = *named.unverified(p.Verified)
	}
	set.SKU = update(&p.SKU, named.SKU)
	set.Title = update(&p.Title, named.Title)
	set.URL = update(&p.URL, named.URL)
	set.GTIN = update(&p.GTIN, named.GTIN)
	set.MPN = update(&p.MPN, named.MPN)
	set.Maker = update(&p.Maker, named.Maker)
	if set.Verified != 0 {
		// A value newly verified is written even where it did not change:
		// what is verified is the value this event gave, whatever another
		// writer stored meanwhile.
		pa, sa := p.attrs(), set.attrs()
		for i := range pa {
			if set.Verified&pa[i].a != 0 {
				*sa[i].v = *pa[i].v
			}
		}
	}
	return set, set.Verified != 0 || set.SKU != nil || set.Title != nil || set.URL != nil || set.GTIN != nil || set.MPN != nil || set.Maker != nil
}

// update sets *stored to given when given is set and differs, and returns
// given then, else nil.
func update(stored **string, given *string) *string {
	if given == nil || *stored != nil && **stored == *given {
		return nil
	}
	*stored = given
	return given
}

// OrderLine is one stored line of an order, as a store reads it back.
type OrderLine struct {
	Order     int64 // the store's id of the order
	Product   ProductRef
	Time      time.Time
	Quantity  int64
	Currency  string  // the order's, "" when not given
	UnitPrice float64 // when Priced
	Priced    bool

	summed bool // into an earlier line of the same product
}

// PurchaseRecords turns the lines of orders, read with each order's lines
// together, into one PurchaseRecord per product of each order: the units
// summed, and the mean unit price (see MeanUnitPrice). Call Add for each
// line, then Flush once after the last.
type PurchaseRecords struct {
	Emit  func(order int64, r PurchaseRecord) error
	lines []OrderLine // of one order
}

// Add takes the next line.
func (s *PurchaseRecords) Add(l OrderLine) error {
	if len(s.lines) > 0 && s.lines[0].Order != l.Order {
		if err := s.Flush(); err != nil {
			return err
		}
	}
	s.lines = append(s.lines, l)
	return nil
}

// Flush emits the records of the order held.
func (s *PurchaseRecords) Flush() error {
	lines := s.lines
	s.lines = s.lines[:0]
	for i := range lines {
		l := &lines[i]
		if l.summed {
			continue
		}
		var sum priceSum
		for j := i; j < len(lines); j++ {
			if m := &lines[j]; m.Product == l.Product {
				m.summed = true
				sum.add(m.Quantity, m.UnitPrice, m.Priced)
			}
		}
		r := PurchaseRecord{Product: l.Product, Time: l.Time, Units: sum.units, Currency: l.Currency, UnitPrice: sum.mean()}
		if err := s.Emit(l.Order, r); err != nil {
			return err
		}
	}
	return nil
}

// MeanUnitPrice is the price record of an order's product: the
// quantity-weighted mean unit price of the order's lines of the product,
// nil unless every such line has a price.
func MeanUnitPrice(e *PurchaseEvent, productID string) *float64 {
	var sum priceSum
	for _, it := range e.Order.Items {
		if it.ProductID == productID {
			price := it.UnitPrice
			sum.add(*it.Quantity, deref(price), price != nil)
		}
	}
	return sum.mean()
}

// priceSum adds up the lines of one product of an order.
type priceSum struct {
	units    int64
	value    float64
	unpriced bool // a line has no price
}

func (s *priceSum) add(quantity int64, price float64, priced bool) {
	s.units += quantity
	s.value += float64(quantity) * price
	s.unpriced = s.unpriced || !priced
}

func (s *priceSum) mean() *float64 {
	if s.unpriced || s.units == 0 {
		return nil
	}
	mean := s.value / float64(s.units)
	return &mean
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}
