package match

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/svc-project/svc"
)

// Bounds of the work for one title: a brand that holds a quarter of a
// million products with one title must not make a request slow.
const (
	// maxVisits is how many postings gathering candidates reads, rarest
	// words first.
	maxVisits = 4096
	// maxScored is how many of the gathered products are scored in full.
	maxScored = 48
	// maxOfferBrands is how many other brands are searched for offers.
	maxOfferBrands = 24
	// genericCodes: a code more of the gathered products have is no
	// product's own.
	genericCodes = 3
)

// DefaultMinConfidence is the confidence below which a title match is
// not given (docs/enrichment.md, Matching): a wrong match is worse than
// none.
const DefaultMinConfidence = 0.85

// Query is what is known of a product to find: its title, and the maker's
// identifiers when the page gives them.
type Query struct {
	Title string
	GTIN  string // GTIN-14 (svc.GTIN14), "" if unknown
	MPN   string
	Maker string
	// Drop are words of the shop's own name: noise in its own titles.
	Drop map[string]bool
	// MinConfidence is the least confidence of a title match; 0 means
	// DefaultMinConfidence.
	MinConfidence float64
	// Own is the product the query is the title of, in the brand Offers
	// leaves out (a product page's own product), 0 if none: a title
	// offer must find it back there (Offers).
	Own svc.ProductRef
}

// prepared query
type query struct {
	Query
	words  []queryWord
	facts  facts
	nwords int
	mpn    string // folded for comparison
	maker  string
}

func foldID(s string) string { return squeeze(fold(strings.TrimSpace(s))) }

func (c *Index) prepareQuery(q Query) *query {
	pq := &query{Query: q, facts: analyze(q.Title), mpn: foldID(q.MPN), maker: foldID(q.Maker)}
	pq.words = c.queryWords(q.Title, q.Drop)
	for _, w := range pq.words {
		if !w.own {
			pq.nwords++
		}
	}
	if pq.MinConfidence <= 0 {
		pq.MinConfidence = DefaultMinConfidence
	}
	return pq
}

// ByTitle finds the brand's product whose title fits the given one, or
// nothing when none fits surely enough. Words in drop (the shop's own name,
// say) are left out of the title.
func (c *Index) ByTitle(brandID, title string, drop map[string]bool) (Hit, bool) {
	return c.Lookup(brandID, Query{Title: title, Drop: drop})
}

// Lookup finds the brand's product a query names: by its GTIN, by its
// maker's part number, else by its title (MethodTitle), with the
// confidence of the model (rules_model.go).
func (c *Index) Lookup(brandID string, q Query) (Hit, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	b, ok := c.brands[brandID]
	if !ok {
		return Hit{}, false
	}
	pq := c.prepareQuery(q)
	if h, ok := c.byIdentifier(b, pq); ok {
		return h, true
	}
	return c.titleIn(b, pq, DefaultModel)
}

// gather returns the brand's products that share the most weight of the
// title's words, at most maxScored, read from at most maxVisits postings.
func (c *Index) gather(b uint32, q []queryWord) []uint32 {
	type seed struct {
		id uint32
		n  int
	}
	seeds := make([]seed, 0, len(q))
	for _, w := range q {
		if !w.known {
			continue
		}
		if n := c.postings.list(w.id).brand(b, nil); n > 0 {
			seeds = append(seeds, seed{w.id, n})
		}
	}
	slices.SortFunc(seeds, func(x, y seed) int { return cmp.Compare(x.n, y.n) })
	acc := accums.Get().(*accum)
	defer accums.Put(acc)
	acc.reset()
	size := float64(max(c.size[b], 1))
	visits := 0
	for _, s := range seeds {
		if visits >= maxVisits {
			break
		}
		wt := math.Log1p(size / float64(s.n))
		visits += c.postings.list(s.id).brandUpTo(b, maxVisits-visits, func(i uint32) { acc.add(i, wt) })
	}
	return topScored(acc)
}

// accum sums the weight of each gathered entry: an open-addressing table
// of twice maxVisits slots, reused through a pool, as a Go map of up to
// 4,096 entries made at each brand was a fifth of an offers page's
// instructions.
type accum struct {
	keys [accumSlots]uint32 // entry + 1; 0 is free
	vals [accumSlots]float64
	used []int // slots in use, in the order taken
}

const accumSlots = 2 * maxVisits // a power of two, at most half full

var accums = sync.Pool{New: func() any { return new(accum) }}

func (a *accum) reset() {
	for _, k := range a.used {
		a.keys[k] = 0
	}
	a.used = a.used[:0]
}

func (a *accum) add(i uint32, w float64) {
	for k := int(i*0x9e3779b9>>19) & (accumSlots - 1); ; k = (k + 1) & (accumSlots - 1) {
		switch a.keys[k] {
		case i + 1:
			a.vals[k] += w
			return
		case 0:
			a.keys[k], a.vals[k] = i+1, w
			a.used = append(a.used, k)
			return
		}
	}
}

// topScored returns the maxScored entries of most weight, ties to the
// first entry: a bounded heap, as a brand's thousands of products with
// one title must not be sorted whole.
func topScored(acc *accum) []uint32 {
	type weighed struct {
		i uint32
		w float64
	}
	worse := func(x, y weighed) bool { return x.w < y.w || x.w == y.w && x.i > y.i }
	h := make([]weighed, 0, maxScored) // a min-heap by worse
	down := func(k int) {
		for {
			l, m := 2*k+1, k
			if l < len(h) && worse(h[l], h[m]) {
				m = l
			}
			if r := l + 1; r < len(h) && worse(h[r], h[m]) {
				m = r
			}
			if m == k {
				return
			}
			h[k], h[m] = h[m], h[k]
			k = m
		}
	}
	for _, k := range acc.used {
		x := weighed{acc.keys[k] - 1, acc.vals[k]}
		switch {
		case len(h) < maxScored:
			h = append(h, x)
			for k := len(h) - 1; k > 0 && worse(h[k], h[(k-1)/2]); k = (k - 1) / 2 {
				h[k], h[(k-1)/2] = h[(k-1)/2], h[k]
			}
		case worse(h[0], x):
			h[0] = x
			down(0)
		}
	}
	slices.SortFunc(h, func(x, y weighed) int { return cmp.Or(cmp.Compare(y.w, x.w), cmp.Compare(x.i, y.i)) })
	out := make([]uint32, len(h))
	for k := range h {
		out[k] = h[k].i
	}
	return out
}

// Candidate is a product scored against a title, for the trainer and the
// evaluation.
type Candidate struct {
	Product
	Features [numFeatures]float64
	Vetoed   string // the difference that rules it out, "" if none
	Strict   bool   // the strict matcher takes it (rules_strict.go)
	Same     bool   // it has the query's words but soft ones (rules_same.go)
	// Tier is the tier that answers with it (TierStrict, TierCode,
	// TierSame), "" if none does.
	Tier string
}

// Candidates returns the brand's products gathered for a title, each with
// its features, as Lookup weighs them.
func (c *Index) Candidates(brandID, title string) []Candidate {
	c.mu.RLock()
	defer c.mu.RUnlock()
	b, ok := c.brands[brandID]
	if !ok {
		return nil
	}
	list := c.assess(b, c.prepareQuery(Query{Title: title}))
	picked, t := tier(list)
	var out []Candidate
	for k, a := range list {
		cand := Candidate{Product: c.product(a.i), Features: a.x, Vetoed: a.vetoed, Strict: a.strict, Same: a.same}
		if k == picked {
			cand.Tier = t
		}
		out = append(out, cand)
	}
	return out
}

// assessed is one candidate for a title, weighed.
type assessed struct {
	i      uint32
	x      [numFeatures]float64
	vetoed string
	strict bool
	same   bool // sameWords with the query
}

// assess weighs the brand's candidates for a query: the one product the
// strict matcher takes, if any, or the products gathered for the model.
func (c *Index) assess(b uint32, pq *query) []assessed {
	if len(pq.words) == 0 {
		return nil
	}
	s := c.newScorer(b, true)
	defer s.release()
	words := slices.Clone(pq.words) // corrected for this brand's words
	if i, _, ok := c.strictTitle(b, words, s); ok && !c.identifierClash(pq, i) {
		x, _ := c.features(s, pq, words, i, c.factsOf(i), func(string) bool { return false })
		return []assessed{{i: i, x: x, strict: true}}
	}
	cands := c.gather(b, pq.words)
	copy(words, pq.words)
	s.correct(words, cands)
	facts := make([]*facts, len(cands)) // the cache's, shared: never changed
	for k, i := range cands {
		facts[k] = c.factsOf(i)
	}
	// A code that more than genericCodes of the candidates have names a
	// technology or a line ("gddr5", "802.11n"), not one product.
	counts := map[string]int{}
	generic := func(code string) bool {
		n, ok := counts[code]
		if !ok {
			for k := range facts {
				if containsCode(facts[k].squeezed, code) {
					n++
				}
			}
			counts[code] = n
		}
		return n > genericCodes
	}
	out := make([]assessed, 0, len(cands))
	ruledOut := make([]bool, len(cands))
	for k, i := range cands {
		x, vetoed := c.features(s, pq, words, i, facts[k], generic)
		out = append(out, assessed{i: i, x: x, vetoed: vetoed})
		ruledOut[k] = vetoed != ""
	}
	// A code held by one product of those not ruled out names it.
	unique := uniqueCodes(&pq.facts, facts, ruledOut)
	sames, firstSame, listings := 0, -1, 0 // two are no answer: the rest need not be compared
	for k, i := range cands {
		a := &out[k]
		// Titles the same but for a colour one of them names are two
		// variants of the model the code names (the shop sells another
		// colour); titles written independently differ by more. Unless
		// the title without the colour has no word the other lacks, or
		// none where the colour stands (colourInPlace): a shop that sells
		// one colour need not name it (a word in place of the colour may
		// be one we do not know: "Pistachio").
		if unique[k] && (a.x[fColourOne] == 0 || !c.fewApart(words, i) || c.colourAdded(words, i, len(pq.facts.colours) > 0) ||
			!colourInPlace(&pq.facts, facts[k]) && !colourInPlace(facts[k], &pq.facts)) && !twoMakers(&pq.facts, facts[k]) {
			a.x[fCodeUnique] = 1
		}
		// A code that this product alone holds tells it from its siblings.
		if a.vetoed == "" && !unique[k] && c.sibling(s, words, i, cands) {
			a.vetoed = "sibling"
		}
		// The sibling rule tells a shop's own titles apart by a word one
		// has; a soft word tells nothing apart, but a part number may.
		vetoed := a.vetoed
		if vetoed == "model" && spelledOut(&pq.facts, facts[k]) {
			vetoed = ""
		}
		if vetoed != "" && vetoed != "sibling" || sames == 2 {
			continue
		}
		same, code, alone := sameAdding(&pq.facts, facts[k])
		if same && alone {
			same = !anotherHasWords(&pq.facts, facts, k)
		}
		if same && (vetoed == "" || !code) {
			// Listings of one title (but for case and punctuation) are one
			// product, the first the answer; more than genericCodes of
			// them are a catalog flooded with one title, no answer.
			if firstSame >= 0 && sameTitle(facts[firstSame], facts[k]) {
				if listings++; listings >= genericCodes {
					out[firstSame].same, sames = false, 2
				}
				continue
			}
			a.same = true
			sames++
			if firstSame < 0 {
				firstSame = k
			}
		}
	}
	return out
}

// anotherHasWords reports whether another of the gathered products than
// k has the query's words but function and soft words: a query that names
// no colour, or no kind of accessory, may then be that one, in another
// colour ("… black", "… dark grey") or in none, or with something more
// ("… with strap").
func anotherHasWords(q *facts, facts []*facts, k int) bool {
	for j := range facts {
		if j != k && hasWordsOf(facts[j], q) {
			return true
		}
	}
	return false
}

// hasWordsOf reports whether a title has a query's words but function
// and soft words, a word behind a soft word run into it counting as there
// ("new-pendaflex" for "pendaflex").
func hasWordsOf(p, q *facts) bool {
	for _, l := range lackedTokens(q, p) {
		if !stopWords[l.token] && !softWords[l.token] && !gluedTo(l.token, p) {
			return false
		}
	}
	return true
}

// gluedTo reports whether a word is behind a soft word in one of a
// title's tokens ("expo" in "new-expo").
func gluedTo(w string, f *facts) bool {
	for _, s := range spans(f) {
		if t := f.squeezed[s[0]:s[1]]; len(t) > len(w) && glued(t, w) {
			return true
		}
	}
	return false
}

// sameTitle reports whether two titles have the same words in the same
// order.
func sameTitle(a, b *facts) bool { return a.squeezed == b.squeezed && slices.Equal(a.bounds, b.bounds) }

// twoMakers reports whether each title starts with a word the other
// lacks, of letters alone: two makers of one chip ("visiontek radeon
// hd6770" and "xfx ati radeon hd6770").
func twoMakers(a, b *facts) bool {
	first := func(x, y *facts) bool {
		s := spans(x)
		if len(s) == 0 {
			return false
		}
		t := x.squeezed[s[0][0]:s[0][1]]
		return !hasDigit(t) && !softWords[t] && !editionWords[t] && alignedAt(y, t) < 0 && !gluedIn(t, y)
	}
	return first(a, b) && first(b, a) && !oneMaker(a, b)
}

// oneMaker reports whether the first words of two titles are one maker's
// name written short in one of them, two or three letters: the initials
// of the other's first two words, the second a word of letters that is
// no model or edition word ("wd" and "western digital"), or its letters
// in order within the other's first word, which it starts ("hik" and
// "hikvision", "srm" and "sram", "ph" and "philips"). Not "lg" and
// "logitech", "hp" and "hyperx", nor "asus" and "asustor".
func oneMaker(a, b *facts) bool {
	short := func(x, y *facts) bool {
		sx, sy := spans(x), spans(y)
		if len(sx) == 0 || len(sy) == 0 {
			return false
		}
		t, w := x.squeezed[sx[0][0]:sx[0][1]], y.squeezed[sy[0][0]:sy[0][1]]
		if len(t) < 2 || len(t) > 3 || len(t) >= len(w) || t[0] != w[0] {
			return false
		}
		if len(t) == 2 && len(sy) > 1 {
			second := y.squeezed[sy[1][0]:sy[1][1]]
			if t[1] == second[0] && len(second) >= 3 && !hasDigit(second) && !modelWords[second] && !editionWords[second] {
				return true
			}
		}
		return t[1] == w[1] && subsequence(t, w)
	}
	return short(a, b) || short(b, a)
}

// subsequence reports whether the letters of t stand in w in order.
func subsequence(t, w string) bool {
	k := 0
	for i := 0; i < len(w) && k < len(t); i++ {
		if w[i] == t[k] {
			k++
		}
	}
	return k == len(t)
}

// gluedIn reports whether a token is one of a title's behind a soft word.
func gluedIn(t string, f *facts) bool {
	for _, s := range spans(f) {
		if w := f.squeezed[s[0]:s[1]]; len(w) < len(t) && glued(t, w) {
			return true
		}
	}
	return false
}

// features works out the evidence for a title and entry i, and whether a
// difference rules the pair out.
func (c *Index) features(s *scorer, pq *query, words []queryWord, i uint32, pf *facts, generic func(string) bool) (x [numFeatures]float64, vetoed string) {
	e := &c.entries[i]
	if c.identifierClash(pq, i) {
		return x, "identifier"
	}
	vetoed = veto(&pq.facts, pf)
	x[fCoverQuery], x[fCoverProd] = s.shares(words, e)
	pairFeatures(&x, &pq.facts, pf, pq.nwords, int(e.nwords), generic)
	return x, vetoed
}

// titleIn finds the brand's product whose title fits the query's best,
// if the model is sure enough of it.
func (c *Index) titleIn(b uint32, pq *query, m *Model) (Hit, bool) {
	list := c.assess(b, pq)
	bestA, t, p := decide(list, m)
	conf := m.Level(p)
	if bestA == nil || conf <= 0 {
		return Hit{}, false
	}
	if conf < pq.MinConfidence {
		return Hit{}, false
	}
	return Hit{Product: c.product(bestA.i), Confidence: round3(conf), Method: MethodTitle, Tier: t}, true
}

// Tiers of a title answer, tried in this order before the model.
const (
	TierStrict = "strict" // the strict matcher's product (rules_strict.go)
	TierCode   = "code"   // the one product with a distinctive code of the query's
	TierSame   = "same"   // the one product with the query's words but soft ones (rules_same.go)
)

// tier picks the candidate a tier answers with, if any: the strict
// matcher's product, else the one product that holds a distinctive code of
// the query's (the code tier), else the one product with the query's words
// but for soft ones: two such products, even of one title, are no answer.
func tier(list []assessed) (int, string) {
	uniqueK, sameK := -1, -1
	uniques, sames := 0, 0
	for k := range list {
		a := &list[k]
		if a.same {
			sames++
			sameK = k
		}
		if a.vetoed != "" {
			continue
		}
		if a.strict {
			return k, TierStrict
		}
		if a.x[fCodeUnique] == 1 {
			uniques++
			uniqueK = k
		}
	}
	switch {
	case uniques == 1:
		return uniqueK, TierCode
	case sames == 1:
		return sameK, TierSame
	}
	return -1, ""
}

// decide picks the answer among a query's assessed candidates, and the
// calibration's probability that it is right (before the levels): a
// tier's product, at the calibration's probability for the tier, the
// answer's score and its lead over the best other product not ruled
// out. The model ranks but answers alone nowhere: its best product
// without a tier is a near-twin too often (`powercore 20000` for
// `powercore 10000`), and the calibration is fitted on the tiers' answers.
func decide(list []assessed, m *Model) (*assessed, string, float64) {
	k, t := tier(list)
	if k < 0 {
		return nil, "", 0
	}
	score, lead := answer(len(list), k, func(j int) float64 { return m.Score(&list[j].x) },
		func(j int) bool { return list[j].vetoed != "" })
	in := m.Inputs(t, &list[k].x, score, lead)
	return &list[k], t, m.Probability(&in)
}

// answer is the score of candidate k of n, a tier's answer, and its lead
// over the best other candidate not ruled out (MaxLead's cap applies
// later; none other gives an infinite lead).
func answer(n, k int, score func(int) float64, ruledOut func(int) bool) (float64, float64) {
	rival := math.Inf(-1)
	for j := range n {
		if j != k && !ruledOut(j) {
			rival = max(rival, score(j))
		}
	}
	s := score(k)
	return s, s - rival
}

// Answer is the calibration's inputs of the answer Lookup gives among a
// title's candidates (Candidates), for the trainer: which candidate, -1
// if no tier answers.
func (m *Model) Answer(cands []Candidate) (int, [numInputs]float64) {
	for k := range cands {
		if t := cands[k].Tier; t != "" {
			score, lead := answer(len(cands), k, func(j int) float64 { return m.Score(&cands[j].Features) },
				func(j int) bool { return cands[j].Vetoed != "" })
			return k, m.Inputs(t, &cands[k].Features, score, lead)
		}
	}
	return -1, [numInputs]float64{}
}

// fewApart reports whether a title and entry i differ by at most two
// words on each side.
func (c *Index) fewApart(q []queryWord, i uint32) bool {
	const most = 2
	qOnly, pOnly := c.apart(q, i)
	return qOnly <= most && pOnly <= most
}

// colourAdded reports whether, of a title and entry i, the one without
// a colour (the product when inQuery, the query otherwise) has no word the
// other lacks: the other adds words, the colour among them, and none in
// place of one.
func (c *Index) colourAdded(q []queryWord, i uint32, inQuery bool) bool {
	qOnly, pOnly := c.apart(q, i)
	if inQuery {
		return pOnly == 0
	}
	return qOnly == 0
}

// apart counts the words of a title that entry i lacks, and of entry i
// that the title lacks.
func (c *Index) apart(q []queryWord, i uint32) (qOnly, pOnly int) {
	words := c.wordsOf(&c.entries[i])
	for _, w := range q {
		if w.own {
			continue
		}
		if _, ok := slices.BinarySearch(words, w.id); !ok || !w.known {
			qOnly++
		}
	}
	for _, id := range words {
		if !slices.ContainsFunc(q, func(w queryWord) bool { return w.known && w.id == id }) {
			pOnly++
		}
	}
	return qOnly, pOnly
}

// sibling reports whether the query names another product of the same
// line than entry i: the two titles are the same but for a few words the
// brand tells its products apart by (the query's on its own, or in place
// of the product's), and another of the candidates has the query's word ("Vertuo Pop … Blue" is not the "Vertuo
// Next … Blue" of a shop that sells a Vertuo Pop as well). Titles written
// by different shops differ by more than that, and are left to the model.
func (c *Index) sibling(s *scorer, q []queryWord, i uint32, cands []uint32) bool {
	const most = 2
	words := c.wordsOf(&c.entries[i])
	var qOnly, pOnly []uint32
	for _, w := range q {
		if w.own || !w.known && !w.digit {
			continue // the shop's name, a slogan
		}
		if _, ok := slices.BinarySearch(words, w.id); ok && w.known {
			continue
		}
		if !w.known || !s.stat(w.id).telling || len(qOnly) == most {
			return false
		}
		qOnly = append(qOnly, w.id)
	}
	for _, id := range words {
		if slices.ContainsFunc(q, func(w queryWord) bool { return w.known && w.id == id }) {
			continue
		}
		if t := c.wordText(id); !isNumber(t) && (hasDigit(t) || !s.stat(id).telling) || len(pOnly) == most {
			return false // a model number may be in place of a word: "Light" for "23"
		}
		pOnly = append(pOnly, id)
	}
	if len(qOnly) == 0 && len(pOnly) == 0 {
		return false
	}
	for _, j := range cands {
		if j == i {
			continue
		}
		other := c.wordsOf(&c.entries[j])
		if lacksDigitWord(q, other) {
			continue // the query names a number it lacks: not the query's product either
		}
		switch {
		case len(qOnly) > 0 && len(pOnly) > 0:
			// A word in place of another: a product with the query's
			// word is of the same line.
			for _, w := range qOnly {
				if _, ok := slices.BinarySearch(other, w); ok {
					return true
				}
			}
		case len(qOnly) > 0:
			// The query adds a word: another product is this one with it.
			if c.without(other, words, qOnly) {
				return true
			}
		case len(pOnly) > 0:
			// The product adds a word: another product is this one
			// without it.
			if c.without(words, other, pOnly) {
				return true
			}
		}
	}
	return false
}

// lacksDigitWord reports whether a product's words lack a word of the
// query's with a digit.
func lacksDigitWord(q []queryWord, words []uint32) bool {
	for _, w := range q {
		if w.digit && !w.own {
			if _, ok := slices.BinarySearch(words, w.id); !ok || !w.known {
				return true
			}
		}
	}
	return false
}

// without reports whether other has every word of words, but for digits
// and the words of extra, and lacks a word of extra.
func (c *Index) without(words, other, extra []uint32) bool {
	lacks := false
	for _, id := range words {
		_, has := slices.BinarySearch(other, id)
		switch {
		case slices.Contains(extra, id):
			lacks = lacks || !has
		case !has && !hasDigit(c.wordText(id)):
			return false
		}
	}
	return lacks
}

// shares returns the weighted shares of the title's words the product has,
// and of the product's words the title has.
func (s *scorer) shares(q []queryWord, e *entry) (query, product float64) {
	words := s.c.wordsOf(e)
	var shared, qTotal, pTotal float64
	for _, w := range q {
		in := false
		if w.known {
			_, in = slices.BinarySearch(words, w.id)
		}
		if w.own && !in {
			continue // the shop's name in its own result title
		}
		wt := s.queryWeight(w)
		qTotal += wt
		if in {
			shared += wt * cmp.Or(w.sim, 1)
		}
	}
	var sharedP float64
	for _, id := range words {
		wt := s.weight(id)
		pTotal += wt
		for _, w := range q {
			if w.known && w.id == id {
				sharedP += wt * cmp.Or(w.sim, 1)
				break
			}
		}
	}
	if qTotal > 0 {
		query = shared / qTotal
	}
	if pTotal > 0 {
		product = sharedP / pTotal
	}
	return query, product
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
