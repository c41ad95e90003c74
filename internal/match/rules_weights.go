package match

import (
	"math"
	"slices"
	"sync"

	"github.com/adrg/strutil/metrics"
)

// A title's words weigh their inverse document frequency, ln(1 + N/df),
// so "15" and "iphone" tell more than "black"; inside one brand a word
// weighs less the more of that brand's titles have it, so a shop's own name
// or the maker it sells tells little. Words no product title has (a shop's
// slogan, "buy", "online") weigh nothing, unless they carry a number. Two
// words that differ by a typo count as shared in proportion to their
// Jaro–Winkler similarity, never words with digits. How the shares of
// words combine with the other evidence is in features_evidence.go and rules_lookup.go.
const (
	// fuzzyMin is the Jaro–Winkler similarity above which two words of four
	// letters or more are taken for one word with a typo.
	fuzzyMin = 0.92
)

// Hit is a product found for a title or an address, and how sure the match is.
type Hit struct {
	Product
	Confidence float64 // 0 to 1
	Method     string  // MethodGTIN, MethodMPN, MethodSKU or MethodTitle
	// Tier is the rule that found a title match (TierStrict, TierCode,
	// TierSame), "" for the model alone.
	Tier string
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
	hits    map[uint32]int // the strict matcher's products, by words shared
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

// scorers keeps scorers, and so their maps, from one title to the next:
// a request weighs one title against each brand, and the maps were half
// of what a product page's offers allocated (bench/RESULTS.md).
var scorers = sync.Pool{New: func() any {
	return &scorer{cache: make(map[uint32]wordStat, 32), fuzzy: make(map[fuzzyPair]float64, 64), hits: make(map[uint32]int, 64)}
}}

// newScorer returns a scorer of the brand's words, or of every brand's;
// release gives it back.
func (c *Index) newScorer(brand uint32, inBrand bool) *scorer {
	s := scorers.Get().(*scorer)
	s.c, s.brand, s.inBrand, s.maxIDF = c, brand, inBrand, math.Log1p(float64(len(c.entries))+1)
	return s
}

// maxPooledEntries: a scorer whose maps grew past it (a title of many
// words over a flooded catalog) is left to the collector, so that the
// pool holds no large maps.
const maxPooledEntries = 4096

func (s *scorer) release() {
	if len(s.cache) > maxPooledEntries || len(s.fuzzy) > maxPooledEntries || len(s.hits) > maxPooledEntries {
		return
	}
	clear(s.cache)
	clear(s.fuzzy)
	clear(s.hits)
	s.c = nil
	scorers.Put(s)
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
