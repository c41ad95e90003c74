package catalog

import (
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
	// seedWords is how many of a title's rarest words gather candidates: a
	// true product shares them, a typo in one is made up by the others.
	seedWords = 3
)

// Match is a product found for a title, and how sure the match is.
type Match struct {
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
}

func (c *Catalog) queryWords(title string, drop map[string]bool) []queryWord {
	var q []queryWord
	for _, w := range Words(title) {
		if drop[w] || slices.ContainsFunc(q, func(x queryWord) bool { return x.text == w }) {
			continue
		}
		id, ok := c.vocab[w]
		q = append(q, queryWord{text: w, id: id, known: ok && c.df[id] > 0, digit: hasDigit(w)})
	}
	return q
}

// scorer weighs words for one title, against one brand or all of them.
type scorer struct {
	c       *Catalog
	brand   uint32
	inBrand bool
	cache   map[uint32]wordStat
	fuzzy   map[fuzzyPair]float64 // Jaro–Winkler of a title's word and a product's
	maxIDF  float64
}

type fuzzyPair struct {
	query string
	word  uint32
}

type wordStat struct {
	weight float64
	// telling: inside a brand, the word is on at most half of its titles,
	// so the brand uses it to tell its products apart (a size, a color, a
	// model, "case").
	telling bool
}

func (c *Catalog) newScorer(brand uint32, inBrand bool) *scorer {
	return &scorer{c: c, brand: brand, inBrand: inBrand, cache: make(map[uint32]wordStat, 32),
		fuzzy: make(map[fuzzyPair]float64, 64), maxIDF: math.Log1p(float64(len(c.entries)) + 1)}
}

func (s *scorer) stat(id uint32) wordStat {
	if st, ok := s.cache[id]; ok {
		return st
	}
	c := s.c
	df := float64(max(c.df[id], 1))
	st := wordStat{weight: math.Log1p(float64(len(c.entries)) / df)}
	if s.inBrand {
		if n := c.postings[id].brand(s.brand, nil); n > 0 {
			share := float64(n) / float64(max(c.size[s.brand], 1))
			st.weight *= 1 - 0.95*min(share, 1)
			st.telling = share <= 0.5
		}
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
	var qLeft []queryWord
	used := make([]bool, len(e.words))
	for _, w := range q {
		if w.known {
			if j, ok := slices.BinarySearch(e.words, w.id); ok {
				used[j] = true
				wt := s.weight(w.id)
				shared += wt
				total += 2 * wt
				continue
			}
		}
		qLeft = append(qLeft, w)
	}
	var qDigit, eDigit, qTelling, eTelling, qKnown bool
	for _, w := range qLeft {
		best, bestJ := 0.0, -1
		if !w.known && !w.digit && len(w.text) >= 4 { // a word of the catalog is no typo
			for j, id := range e.words {
				if used[j] {
					continue
				}
				if sim := s.similarity(w.text, id); sim >= fuzzyMin && sim > best {
					best, bestJ = sim, j
				}
			}
		}
		if bestJ >= 0 {
			used[bestJ] = true
			wt := s.weight(e.words[bestJ])
			shared += best * wt
			total += 2 * wt
			continue
		}
		qDigit = qDigit || w.digit
		if w.known {
			qKnown = true
			qTelling = qTelling || s.stat(w.id).telling
		}
		total += s.queryWeight(w)
	}
	eLeft := false
	for j, id := range e.words {
		if !used[j] {
			eLeft = true
			eDigit = eDigit || hasDigit(s.c.wordText(id))
			eTelling = eTelling || s.stat(id).telling
			total += s.weight(id)
		}
	}
	switch {
	case total == 0, qDigit && eDigit:
		return 0
	case s.inBrand && (qTelling || eTelling):
		// One title has a word the brand tells its products apart by,
		// and the other lacks it: another size, color or model.
		return 0
	case !s.inBrand && qKnown && eLeft:
		// Each title has a product word the other lacks.
		return 0
	}
	return 2 * shared / total
}

func (c *Catalog) wordText(id uint32) string { return c.wordList[id] }

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
func (c *Catalog) ByTitle(brandID, title string, drop map[string]bool) (Match, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	b, ok := c.brands[brandID]
	if !ok {
		return Match{}, false
	}
	q := c.queryWords(title, drop)
	s := c.newScorer(b, true)
	seeds := c.rarest(q, func(pl *postingList) int { return pl.brand(b, nil) })
	hits := make(map[uint32]int, 64)
	for _, id := range seeds {
		c.postings[id].brand(b, func(i uint32) {
			if len(hits) < maxCandidates || hits[i] > 0 {
				hits[i]++
			}
		})
	}
	return c.best(q, s, strongest(hits))
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
func (c *Catalog) rarest(q []queryWord, n func(*postingList) int) []uint32 {
	type seed struct {
		id uint32
		n  int
	}
	var seeds []seed
	for _, w := range q {
		if !w.known {
			continue
		}
		if k := n(c.postings[w.id]); k > 0 {
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

func (c *Catalog) best(q []queryWord, s *scorer, cands []uint32) (Match, bool) {
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
		return Match{}, false
	}
	return Match{Product: c.product(bestI), Confidence: round3(best)}, true
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
