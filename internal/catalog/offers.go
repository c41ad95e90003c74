package catalog

import (
	"cmp"
	"slices"
)

// Offer methods: how a product at another brand was found to be the same.
const (
	MethodSKU   = "sku"
	MethodTitle = "title"
)

// Offer is the same product at another brand.
type Offer struct {
	Match
	Method string // MethodSKU or MethodTitle
}

// Offers finds the product at brands other than except: by SKU, or by a
// title that fits as well as ByTitle demands and, when the maker is known,
// names it. At most one offer per brand, the surest first, at most limit.
func (c *Catalog) Offers(except, title, maker, sku string, limit int) []Offer {
	c.mu.RLock()
	defer c.mu.RUnlock()
	byBrand := map[uint32]Offer{}
	keep := func(i uint32, o Offer) {
		e := &c.entries[i]
		if c.brandIDs[e.brand] == except {
			return
		}
		if cur, ok := byBrand[e.brand]; !ok || o.Confidence > cur.Confidence {
			byBrand[e.brand] = o
		}
	}
	if k := foldSKU(sku); k != "" {
		for _, i := range c.bySKU[k] {
			keep(i, Offer{Match: Match{Product: c.product(i), Confidence: 1}, Method: MethodSKU})
		}
	}
	if q := c.queryWords(title, nil); len(q) > 0 {
		var makerIDs []uint32
		for _, w := range Words(maker) {
			id, ok := c.vocab[w]
			if !ok {
				return c.sortOffers(byBrand, limit) // no product names this maker
			}
			makerIDs = append(makerIDs, id)
		}
		s := c.newScorer(0, false)
		for _, id := range c.rarest(q, (*postingList).len) {
			c.postings[id].all(maxCandidates, func(i uint32) {
				e := &c.entries[i]
				if _, done := byBrand[e.brand]; done && byBrand[e.brand].Method == MethodSKU {
					return
				}
				for _, m := range makerIDs {
					if _, ok := slices.BinarySearch(e.words, m); !ok {
						return
					}
				}
				if sc := s.score(q, e); sc >= MinConfidence {
					keep(i, Offer{Match: Match{Product: c.product(i), Confidence: round3(sc)}, Method: MethodTitle})
				}
			})
		}
	}
	return c.sortOffers(byBrand, limit)
}

func (c *Catalog) sortOffers(byBrand map[uint32]Offer, limit int) []Offer {
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
