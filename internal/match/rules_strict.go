package match

import (
	"cmp"
	"slices"
)

// The strict matcher is the first way a title is matched, before the
// learned model: a weighted Sørensen–Dice coefficient of the two word
// sets, with vetoes, that must reach strictMin and lead the second
// product by strictMargin. It finds the variants of a shop's own title
// (a word left out, reordered, a typo, the shop's slogan) and refuses the
// near-misses that the shop tells its own products apart by: a word the
// brand puts on at most half of its titles that one title has and the
// other lacks (a colour, a size, "Ultra", "case"), or a word other shops
// use and this one never does. In catalogs written by other shops than
// the query's, almost every word is such a word, and the model takes over.
const (
	// strictMin keeps near-misses out: "iPhone 15 case" scores 0.80
	// against "iPhone 15" in the fixture catalog, the weakest true title
	// variants about 0.86.
	strictMin = 0.84
	// strictMargin is how far the best product must lead the second.
	strictMargin = 0.03
	// impliedShare: a product's word that a title lacks is no difference
	// when at least this share of the products with the title's rarest word
	// have it too ("apple" comes with "iphone").
	impliedShare = 0.9
	// minImpliedSample: a handful of products is too few to tell what
	// comes with a word.
	minImpliedSample = 5
	// seedWords is how many of a title's rarest words gather candidates.
	seedWords = 3
	// maxStrictCandidates bounds the products the strict matcher scores.
	maxStrictCandidates = 256
)

// strict holds what the strict matcher keeps for one title.
type strict struct {
	*scorer
	anchors []uint32
	implied map[uint32]bool
}

func (s *strict) anchorOn(q []queryWord) {
	s.anchors = s.c.rarest(q, postingList.len)
}

// impliedWord reports whether nearly every product with one of the anchors
// also has the word, over all brands: "apple" comes with "iphone", and
// "nike" with "air max", so a title that leaves the maker out still names
// the same product; "pro" does not come with "iphone".
func (s *strict) impliedWord(id uint32) bool {
	if v, ok := s.implied[id]; ok {
		return v
	}
	const sample = 256
	v := false
	for _, a := range s.anchors {
		if a == id {
			continue
		}
		with, all := 0, 0
		s.c.postings.list(a).sample(sample, func(i uint32) {
			all++
			if _, ok := slices.BinarySearch(s.c.wordsOf(&s.c.entries[i]), id); ok {
				with++
			}
		})
		if all >= minImpliedSample && float64(with) >= impliedShare*float64(all) {
			v = true
			break
		}
	}
	s.implied[id] = v
	return v
}

// score compares a title's words with a product's, 0 when they name
// different products.
func (s *strict) score(q []queryWord, e *entry) float64 {
	var shared, total float64
	var qDigit, qTelling, qKnown bool
	words := s.c.wordsOf(e)
	used := make([]bool, len(words))
	for _, w := range q {
		if w.known {
			if j, ok := slices.BinarySearch(words, w.id); ok {
				used[j] = true
				wt := s.weight(w.id)
				shared += wt * cmp.Or(w.sim, 1)
				total += 2 * wt
				continue
			}
		}
		if w.own {
			continue // the shop's name in its own result title
		}
		qDigit = qDigit || w.digit
		if w.known {
			qKnown = true
			qTelling = qTelling || s.stat(w.id).telling
		}
		total += s.queryWeight(w)
	}
	var eDigit, eLeft bool
	for j, id := range words {
		if !used[j] {
			eLeft = true
			eDigit = eDigit || hasDigit(s.c.wordText(id))
			total += s.weight(id)
		}
	}
	if total == 0 || qDigit && eDigit {
		return 0
	}
	score := 2 * shared / total
	if score < strictMin-strictMargin {
		// Too low to match or to stand in a match's way: the vetoes
		// below could only lower it.
		return score
	}
	switch {
	case s.inBrand && (qTelling || s.entryTelling(e, used)):
		// One title has a word the brand tells its products apart by,
		// and the other lacks it: another size, color or model.
		return 0
	case !s.inBrand && qKnown && eLeft:
		// Each title has a product word the other lacks.
		return 0
	}
	return score
}

// entryTelling reports whether the product has a word the title lacks that
// its brand tells products apart by, and that the title's words do not
// imply.
func (s *strict) entryTelling(e *entry, used []bool) bool {
	for j, id := range s.c.wordsOf(e) {
		if !used[j] && s.stat(id).telling && !s.impliedWord(id) {
			return true
		}
	}
	return false
}

// strictTitle finds the brand's product whose title the strict matcher
// takes for the query's, and its Dice score. q is the query's words, which
// it corrects for typos of this brand's words.
func (c *Index) strictTitle(b uint32, q []queryWord, sc *scorer) (uint32, float64, bool) {
	s := &strict{scorer: sc, implied: make(map[uint32]bool, 16)}
	s.anchorOn(q)
	seeds := c.rarest(q, func(pl postingList) int { return pl.brand(b, nil) })
	hits := sc.hits // empty: strictTitle runs once a scorer
	visits := 0
	for _, id := range seeds {
		visits += c.postings.list(id).brandUpTo(b, max(maxVisits-visits, 0), func(i uint32) {
			if len(hits) < maxStrictCandidates || hits[i] > 0 {
				hits[i]++
			}
		})
	}
	cands := strongest(hits)
	s.correct(q, cands)
	best, second := -1.0, -1.0
	var bestI uint32
	for _, i := range cands {
		switch v := s.score(q, &c.entries[i]); {
		case v > best:
			best, second, bestI = v, best, i
		case v > second:
			second = v
		}
	}
	if best < strictMin || best-second < strictMargin {
		return 0, 0, false
	}
	return bestI, best, true
}

// strongest keeps the candidates that hold the most of the seed words, or
// one fewer: a true product holds them all, or all but a mistyped one.
func strongest(hits map[uint32]int) []uint32 {
	most := 0
	for _, n := range hits {
		most = max(most, n)
	}
	out := make([]uint32, 0, len(hits))
	for i, n := range hits {
		if n >= most-1 || most == 1 {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// rarest returns the ids of up to seedWords of the title's known words with
// the fewest products, counted by n.
func (c *Index) rarest(q []queryWord, n func(postingList) int) []uint32 {
	type seed struct {
		id uint32
		n  int
	}
	var seeds []seed
	for _, w := range q {
		if !w.known {
			continue
		}
		if k := n(c.postings.list(w.id)); k > 0 {
			seeds = append(seeds, seed{w.id, k})
		}
	}
	slices.SortFunc(seeds, func(a, b seed) int { return a.n - b.n })
	out := make([]uint32, 0, seedWords)
	for _, s := range seeds[:min(len(seeds), seedWords)] {
		out = append(out, s.id)
	}
	return out
}
