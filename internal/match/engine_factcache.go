package match

import "sync/atomic"

// Scoring a title against a brand's candidates analyses each candidate's
// title (analyze: folding, tokens, codes, measures), and an offer search
// scores hundreds of candidates at a dozen brands: analysing them again at
// every request was a third of product-enrich's CPU. So the index keeps
// the facts of the titles it has analysed in a cache of bounded size:
// a slot per entry number modulo its size, replaced on a collision. Facts
// are read only once made, so readers share them without a lock.

// maxFactSlots bounds the cache, whatever the catalog's size: 16,384
// titles' facts, 15 MiB at most (a title's facts of 80 characters take
// about 950 bytes), beside a million products' 1 GiB. A catalog of that
// size or less, as a dozen shops of a price-comparison site, is held
// whole; a larger one keeps the titles last scored at each slot.
const maxFactSlots = 1 << 14

type cachedFacts struct {
	i     uint32
	title str
	f     facts
}

type factCache struct {
	slots []atomic.Pointer[cachedFacts]
}

// factsOf returns the facts of entry i's title, from the cache when they
// are there. The caller holds the index's lock, read or write.
func (c *Index) factsOf(i uint32) *facts {
	t := c.entries[i].title
	fc := &c.factCache
	if n := len(fc.slots); n > 0 {
		if x := fc.slots[int(i)%n].Load(); x != nil && x.i == i && x.title == t {
			return &x.f
		}
	}
	x := &cachedFacts{i: i, title: t, f: analyze(c.str(t))}
	if n := len(fc.slots); n > 0 {
		fc.slots[int(i)%n].Store(x)
	}
	return &x.f
}

// resetFacts empties the cache, sized to the entries: compact moves the
// titles in the arena, so an entry's new title may take the place its old
// one had. The caller holds the index's write lock.
func (c *Index) resetFacts() {
	n := 64
	for n < len(c.entries) && n < maxFactSlots {
		n *= 2
	}
	c.factCache.slots = make([]atomic.Pointer[cachedFacts], n)
}
