package match

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
	Hit
	Method string // MethodSKU or MethodTitle
}

// Offers finds the product at brands other than except: by SKU, or by a
// title that fits as ByTitle demands, judged inside each brand's own
// catalog (so "WH-1000XM5" is not that shop's "Charger for WH-1000XM5"),
// and, when the maker is known, names it. At most one offer per brand, the
// surest first, at most limit.
func (c *Index) Offers(except, title, maker, sku string, limit int) []Offer {
	c.mu.RLock()
	defer c.mu.RUnlock()
	byBrand := map[uint32]Offer{}
	if k := foldSKU(sku); k != "" {
		var same []uint32
		if i, ok := c.skuHead(k); ok {
			for same = append(same, i); c.skuNext[i] != 0; same = append(same, i) {
				i = c.skuNext[i] - 1
			}
		}
		slices.Sort(same) // a brand's latest product with the SKU wins
		for _, i := range same {
			if e := &c.entries[i]; c.brandIDs[e.brand] != except {
				byBrand[e.brand] = Offer{Hit: Hit{Product: c.product(i), Confidence: 1}, Method: MethodSKU}
			}
		}
	}
	q := c.queryWords(title, nil)
	if len(q) == 0 {
		return c.sortOffers(byBrand, limit)
	}
	var makerIDs []uint32
	for _, w := range Words(maker) {
		id, ok := c.wordID(w)
		if !ok {
			return c.sortOffers(byBrand, limit) // no product names this maker
		}
		makerIDs = append(makerIDs, id)
	}
	// Candidates by brand, each product once.
	cands := map[uint32][]uint32{}
	seen := map[uint32]bool{}
	for _, id := range c.rarest(q, postingList.len) {
		c.postings.list(id).sample(maxCandidates, func(i uint32) {
			e := &c.entries[i]
			if seen[i] || c.brandIDs[e.brand] == except || byBrand[e.brand].Method == MethodSKU {
				return
			}
			seen[i] = true
			for _, m := range makerIDs {
				if _, ok := slices.BinarySearch(c.wordsOf(e), m); !ok {
					return
				}
			}
			cands[e.brand] = append(cands[e.brand], i)
		})
	}
	for b, list := range cands {
		s := c.newScorer(b, true)
		s.anchorOn(q)
		if m, ok := c.best(q, s, list); ok {
			byBrand[b] = Offer{Hit: m, Method: MethodTitle}
		}
	}
	return c.sortOffers(byBrand, limit)
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
