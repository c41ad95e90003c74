package match

import (
	"cmp"
	"math"
	"slices"
)

// Offer methods: how a product at another brand was found to be the same.
const (
	MethodSKU   = "sku"
	MethodTitle = "title"
)

// Offer is the same product at another brand; Method says by which
// evidence: MethodGTIN, MethodMPN, MethodSKU or MethodTitle.
type Offer struct {
	Hit
}

// Offers finds the product at brands other than except: by GTIN, by part
// number and maker, by SKU, or by a title that the same matcher as Lookup
// finds inside each brand's own catalog (so "WH-1000XM5" is not that
// shop's "Charger for WH-1000XM5"). When the maker is known, a title
// offer must name it. When the query's own product is known (q.Own), a
// title offer must find it back (findsBack), and then has the confidence
// of an offer found both ways (Model.OfferLevels). At most one offer per
// brand, the surest first, at most limit.
func (c *Index) Offers(except string, q Query, sku string, limit int) []Offer {
	c.mu.RLock()
	defer c.mu.RUnlock()
	pq := c.prepareQuery(q)
	byBrand := map[uint32]Offer{}
	found := func(i uint32, method string) bool {
		e := &c.entries[i]
		if _, ok := byBrand[e.brand]; !ok && c.brandIDs[e.brand] != except {
			byBrand[e.brand] = Offer{Hit{Product: c.product(i), Confidence: 1, Method: method}}
		}
		return true
	}
	c.idEach(&c.byGTIN, gtinKey, pq.GTIN, func(i uint32) bool { return found(i, MethodGTIN) })
	c.idEach(&c.byMPN, mpnKey, pq.mpn, func(i uint32) bool {
		if c.sameMaker(pq, i) && !c.gtinClash(pq, i) {
			found(i, MethodMPN)
		}
		return true
	})
	if k := foldSKU(sku); k != "" {
		var same []uint32
		c.idEach(&c.bySKU, skuKey, k, func(i uint32) bool { same = append(same, i); return true })
		slices.Sort(same) // a brand's latest product with the SKU wins
		for _, i := range slices.Backward(same) {
			if !c.gtinClash(pq, i) {
				found(i, MethodSKU)
			}
		}
	}
	if len(pq.words) == 0 {
		return c.sortOffers(byBrand, limit)
	}
	var makerIDs []uint32
	for _, w := range Words(q.Maker) {
		id, ok := c.wordID(w)
		if !ok {
			return c.sortOffers(byBrand, limit) // no product names this maker
		}
		makerIDs = append(makerIDs, id)
	}
	for _, o := range c.titleOffers(pq, except, byBrand, makerIDs) {
		conf := o.level(DefaultModel)
		if conf <= 0 || conf < pq.MinConfidence {
			continue
		}
		byBrand[c.entries[o.i].brand] = Offer{Hit{Product: c.product(o.i), Confidence: round3(conf), Method: MethodTitle, Tier: o.tier}}
	}
	return c.sortOffers(byBrand, limit)
}

// titleOffer is a brand's product that a query's title finds there, and
// how it finds the query's own product back (findsBack).
type titleOffer struct {
	i    uint32
	tier string
	p    float64 // the calibration's probability
	back int
}

// level is the offer's confidence: of an offer found both ways, or of
// its lookup.
func (o *titleOffer) level(m *Model) float64 {
	if o.back == foundOwn {
		return m.OfferLevel(o.p)
	}
	return m.Level(o.p)
}

// titleOffers looks the query's title up in the brands that share its
// rarest words, but for except and those done, and keeps each answer
// that names the maker (makerIDs) and does not find another product of
// the query's own brand, nor nothing for a code tier's answer
// (findsBack). Answers no level puts at the query's least confidence are
// not looked back for.
func (c *Index) titleOffers(pq *query, except string, done map[uint32]Offer, makerIDs []uint32) []titleOffer {
	m := DefaultModel
	own, known := c.byRef.get(pq.Own)
	known = known && pq.Own != 0
	var out []titleOffer
	for _, b := range c.offerBrands(pq.words, except, done) {
		best, t, p := decide(c.assess(b, pq), m)
		if best == nil || max(m.Level(p), m.OfferLevel(p)) < pq.MinConfidence || !c.namesAll(&c.entries[best.i], makerIDs) {
			continue
		}
		back := ownUnknown
		if known {
			back = c.findsBack(own, best.i)
		}
		if back == foundOther || back == foundNone && t == TierCode {
			continue
		}
		out = append(out, titleOffer{i: best.i, tier: t, p: p, back: back})
	}
	return out
}

// OfferAnswer is a title offer before its confidence, for the trainer:
// the product, the tier that found it, the calibration's probability,
// and whether its title finds the query's own product back.
type OfferAnswer struct {
	Product
	Tier        string
	Probability float64
	FoundBack   bool
}

// OfferAnswers are the title offers Offers weighs for a query (q.Own
// known), at any confidence: what Model.OfferLevels are fitted on.
func (c *Index) OfferAnswers(except string, q Query) []OfferAnswer {
	c.mu.RLock()
	defer c.mu.RUnlock()
	pq := c.prepareQuery(q)
	pq.MinConfidence = 0
	var out []OfferAnswer
	for _, o := range c.titleOffers(pq, except, nil, nil) {
		out = append(out, OfferAnswer{Product: c.product(o.i), Tier: o.tier, Probability: o.p, FoundBack: o.back == foundOwn})
	}
	return out
}

// What a title offer's title finds in the page's own shop (findsBack).
const (
	ownUnknown = iota // the page's product is not known
	foundOwn          // the page's product
	foundNone         // nothing
	foundOther        // another product
)

// findsBack looks offer i's title up in the brand of the query's own
// product, entry own: two shops' listings are one product when each
// finds the other, and such an offer has the confidence of OfferLevels.
// Another product found there means the offer is nearer to it (a
// neighbour the offer's shop holds in place of the product), and is no
// offer. None
// found undoes a code tier's offer, whose code the own brand's other
// products share (the code names no one product there), but not a
// same-words one: that tier lets the product's title add words the
// query's lacks, and not the other way round (rules_same.go).
func (c *Index) findsBack(own, i uint32) int {
	e := &c.entries[own]
	back := c.prepareQuery(Query{Title: c.str(c.entries[i].title)})
	m := DefaultModel
	found, _, p := decide(c.assess(e.brand, back), m)
	switch {
	case found == nil || m.Level(p) <= 0:
		return foundNone
	case found.i == own || c.str(c.entries[found.i].title) == c.str(e.title):
		return foundOwn
	}
	return foundOther
}

// namesAll reports whether the entry's title has every word.
func (c *Index) namesAll(e *entry, ids []uint32) bool {
	for _, m := range ids {
		if _, ok := slices.BinarySearch(c.wordsOf(e), m); !ok {
			return false
		}
	}
	return true
}

// offerBrands returns the brands, other than except and those already
// offered, whose products share the most weight of the title's words, at
// most maxOfferBrands, from at most maxVisits postings.
func (c *Index) offerBrands(q []queryWord, except string, done map[uint32]Offer) []uint32 {
	type seed struct {
		id uint32
		n  int
	}
	var seeds []seed
	for _, w := range q {
		if w.known && c.df[w.id] > 0 {
			seeds = append(seeds, seed{w.id, int(c.df[w.id])})
		}
	}
	slices.SortFunc(seeds, func(x, y seed) int { return cmp.Compare(x.n, y.n) })
	// A brand's best word so far, by brand index (a dozen to a thousand
	// brands: a slice, where a map cost a quarter of an offers page).
	skip := make([]bool, len(c.brandIDs))
	for b := range skip {
		_, offered := done[uint32(b)]
		skip[b] = offered || c.brandIDs[b] == except
	}
	best := make([]float64, len(c.brandIDs))
	visits := 0
	n := float64(max(len(c.entries), 1))
	for _, s := range seeds {
		if visits >= maxVisits {
			break
		}
		wt := math.Log1p(n / float64(s.n)) // > 0: a word's products are at most all
		c.postings.list(s.id).sample(maxVisits-visits, func(i uint32) {
			visits++
			if b := c.entries[i].brand; !skip[b] {
				best[b] = max(best[b], wt)
			}
		})
	}
	var out []uint32
	for b, w := range best {
		if w > 0 {
			out = append(out, uint32(b))
		}
	}
	slices.SortFunc(out, func(x, y uint32) int { return cmp.Or(cmp.Compare(best[y], best[x]), cmp.Compare(x, y)) })
	return out[:min(len(out), maxOfferBrands)]
}

func (c *Index) sortOffers(byBrand map[uint32]Offer, limit int) []Offer {
	out := make([]Offer, 0, len(byBrand))
	for _, o := range byBrand {
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b Offer) int {
		if d := cmp.Compare(b.Confidence, a.Confidence); d != 0 {
			return d
		}
		return cmp.Compare(a.BrandID, b.BrandID)
	})
	return out[:min(len(out), limit)]
}
