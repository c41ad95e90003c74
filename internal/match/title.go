package match

import (
	"cmp"
	"math"
	"slices"

	"github.com/adrg/strutil/metrics"
)

// Matching a title is a weighted Sørensen–Dice over the titles' words:
// twice the weight of the words both share over the weight of all words of
// both. A word weighs its inverse document frequency, ln(1 + N/df), so "15"
// and "iphone" tell more than "black"; inside one brand a word weighs less
// the more of that brand's titles have it, so a shop's own name or the maker
// it sells tells nothing. Words no product title has (a shop's slogan, "buy",
// "online") weigh nothing, unless they carry a number. Two words that differ
// by a typo count as shared in proportion to their Jaro–Winkler similarity,
// never words with digits: "15" and "16" are different phones. When both
// titles have a number the other lacks, they are different products.
const (
	// MinConfidence keeps near-misses out: "iPhone 15 case" scores 0.80
	// against "iPhone 15" in the fixture catalog, the weakest true title
	// variants about 0.86.
	MinConfidence = 0.84
	// minMargin is how far the best product must lead the second: two
	// products that fit a title equally well (a tee in black and in white,
	// for "tee") are no match at all.
	minMargin = 0.03
	// fuzzyMin is the Jaro–Winkler similarity above which two words of four
	// letters or more are taken for one word with a typo.
	fuzzyMin = 0.92
	// maxCandidates bounds the products scored for one title.
	maxCandidates = 4096
	// impliedShare: a product's word that a title lacks is no difference
	// when at least this share of the products with the title's rarest word
	// have it too.
	impliedShare = 0.9
	// minImpliedSample: a handful of products is too few to tell what
	// comes with a word.
	minImpliedSample = 5
	// seedWords is how many of a title's rarest words gather candidates: a
	// true product shares them, a typo in one is made up by the others.
	seedWords = 3
)

// Hit is a product found for a title or an address, and how sure the match is.
type Hit struct {
	Product
	Confidence float64 // 0 to 1
}

var jaroWinkler = metrics.NewJaroWinkler()

// queryWord is one word of a title being matched.
type queryWord struct {
	text  string
	id    uint32
	known bool // some product's title has it
	digit bool
	own   bool    // a word of the shop's own name: noise unless the product has it
	sim   float64 // for a corrected typo, its similarity to the word it became
}

func (c *Index) queryWords(title string, own map[string]bool) []queryWord {
	var q []queryWord
	for _, w := range Words(title) {
		if slices.ContainsFunc(q, func(x queryWord) bool { return x.text == w }) {
			continue
		}
		id, ok := c.wordID(w)
		q = append(q, queryWord{text: w, id: id, known: ok && c.df[id] > 0, digit: hasDigit(w), own: own[w]})
	}
	return q
}

// correct replaces each word no product has by the candidates' word it is
// a typo of, if any: "chagrer" is "charger", in every candidate alike, so a
// mistyped accessory word still tells a charger from the phone.
func (s *scorer) correct(q []queryWord, cands []uint32) {
	for k := range q {
		w := &q[k]
		if w.known || w.digit || w.own || len(w.text) < 4 {
			continue
		}
		best, bestID := 0.0, uint32(0)
		for _, i := range cands {
			for _, id := range s.c.wordsOf(&s.c.entries[i]) {
				if sim := s.similarity(w.text, id); sim >= fuzzyMin && sim > best {
					best, bestID = sim, id
				}
			}
		}
		if best > 0 {
			w.text, w.id, w.known, w.sim = s.c.wordText(bestID), bestID, true, best
		}
	}
}

// scorer weighs words for one title, against one brand or all of them.
type scorer struct {
	c       *Index
	brand   uint32
	inBrand bool
	cache   map[uint32]wordStat
	fuzzy   map[fuzzyPair]float64 // Jaro–Winkler of a title's word and a product's
	maxIDF  float64
	// anchors are the title's rarest catalog words; implied remembers
	// which words nearly always come with one of them.
	anchors []uint32
	implied map[uint32]bool
}

type fuzzyPair struct {
	query string
	word  uint32
}

type wordStat struct {
	weight float64
	// telling: inside a brand, the word is on at most half of its titles,
	// so the brand uses it to tell its products apart (a size, a color, a
	// model, "case"); or the word names products at other brands and none
	// at this one ("Ultra" at a shop that sells no Ultra).
	telling bool
}

func (c *Index) newScorer(brand uint32, inBrand bool) *scorer {
	return &scorer{c: c, brand: brand, inBrand: inBrand, cache: make(map[uint32]wordStat, 32),
		fuzzy: make(map[fuzzyPair]float64, 64), maxIDF: math.Log1p(float64(len(c.entries)) + 1),
		implied: make(map[uint32]bool, 16)}
}

// anchorOn takes the title's rarest catalog words as anchors.
func (s *scorer) anchorOn(q []queryWord) {
	s.anchors = s.c.rarest(q, postingList.len)
}

// impliedWord reports whether nearly every product with one of the anchors
// also has the word, over all brands: "apple" comes with "iphone", and
// "nike" with "air max", so a title that leaves the maker out still names
// the same product; "pro" does not come with "iphone".
func (s *scorer) impliedWord(id uint32) bool {
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

func (s *scorer) stat(id uint32) wordStat {
	if st, ok := s.cache[id]; ok {
		return st
	}
	c := s.c
	df := float64(max(c.df[id], 1))
	st := wordStat{weight: math.Log1p(float64(len(c.entries)) / df)}
	if s.inBrand {
		n := c.postings.list(id).brand(s.brand, nil)
		share := float64(n) / float64(max(c.size[s.brand], 1))
		st.weight *= 1 - 0.95*min(share, 1)
		st.telling = share <= 0.5
	}
	s.cache[id] = st
	return st
}

func (s *scorer) weight(id uint32) float64 { return s.stat(id).weight }

func (s *scorer) queryWeight(q queryWord) float64 {
	switch {
	case q.known:
		return s.weight(q.id)
	case q.digit:
		return s.maxIDF
	}
	return 0
}

// score compares a title's words with a product's, 0 when they name
// different products.
func (s *scorer) score(q []queryWord, e *entry) float64 {
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
	if score < MinConfidence-minMargin {
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
func (s *scorer) entryTelling(e *entry, used []bool) bool {
	for j, id := range s.c.wordsOf(e) {
		if !used[j] && s.stat(id).telling && !s.impliedWord(id) {
			return true
		}
	}
	return false
}

func (c *Index) wordText(id uint32) string { return c.str(c.wordList[id]) }

// similarity is the Jaro–Winkler similarity of a title's word and a catalog
// word, 0 for words too unlike in length or with digits; remembered, as one
// title's words meet the same catalog words in many products.
func (s *scorer) similarity(q string, id uint32) float64 {
	k := fuzzyPair{q, id}
	if sim, ok := s.fuzzy[k]; ok {
		return sim
	}
	t, sim := s.c.wordText(id), 0.0
	if d := len(t) - len(q); d >= -2 && d <= 2 && len(t) >= 4 && !hasDigit(t) {
		sim = jaroWinkler.Compare(q, t)
	}
	s.fuzzy[k] = sim
	return sim
}

// ByTitle finds the brand's product whose title fits the given one, or
// nothing when none fits well enough or two fit equally well. Words in drop
// (the shop's own name, say) are left out of the title.
func (c *Index) ByTitle(brandID, title string, drop map[string]bool) (Hit, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	b, ok := c.brands[brandID]
	if !ok {
		return Hit{}, false
	}
	q := c.queryWords(title, drop)
	s := c.newScorer(b, true)
	s.anchorOn(q)
	seeds := c.rarest(q, func(pl postingList) int { return pl.brand(b, nil) })
	hits := make(map[uint32]int, 64)
	for _, id := range seeds {
		c.postings.list(id).brand(b, func(i uint32) {
			if len(hits) < maxCandidates || hits[i] > 0 {
				hits[i]++
			}
		})
	}
	cands := strongest(hits)
	s.correct(q, cands)
	return c.best(q, s, cands)
}

// strongest keeps the candidates that hold the most of the seed words, or
// one fewer: a true product holds them all, or all but a mistyped one, and
// the products that come closest to it are among these too.
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

func (c *Index) best(q []queryWord, s *scorer, cands []uint32) (Hit, bool) {
	best, second := -1.0, -1.0
	var bestI uint32
	for _, i := range cands {
		sc := s.score(q, &c.entries[i])
		switch {
		case sc > best:
			best, second, bestI = sc, best, i
		case sc > second:
			second = sc
		}
	}
	if best < MinConfidence || best-second < minMargin {
		return Hit{}, false
	}
	return Hit{Product: c.product(bestI), Confidence: round3(best)}, true
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
