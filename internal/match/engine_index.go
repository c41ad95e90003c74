package match

import (
	"hash/maphash"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/hashtable"
	"github.com/svc-project/svc/internal/urlcanon"
)

// Index is the products indexed for matching. It is safe for concurrent use.
//
// A million products are held at once, so nothing per product is a heap
// object of its own: entries are a pointer-free array whose strings live
// in one arena (engine_arena.go), and the indexes by address, SKU and word are
// open-addressing tables of values (table.go), not maps of strings. The
// collector has almost nothing to scan.
type Index struct {
	mu        sync.RWMutex
	seed      maphash.Seed
	text      arena           // every string: ids, titles, addresses, SKUs, words
	vocab     hashtable.Table // word → id
	wordList  []str           // id → word
	df        []int32         // id → products whose title has the word
	entries   []entry
	wordIDs   []uint32 // each entry's title words, at entry.words
	idWaste   int      // wordIDs no entry uses any more
	byRef     refIndex
	byURL     hashtable.Table   // (brand, canonical URL) → the brand's latest entry with it
	anyURL    hashtable.Table   // canonical URL → the entry that binds it for a host no brand owns
	bySKU     idList            // folded SKU → entries: one product at many brands, or a brand's repeats
	byGTIN    idList            // GTIN-14 → entries (engine_identifiers.go)
	byMPN     idList            // folded part number → entries
	ids       map[uint32]idents // entry → its identifiers, for the few that have any
	brands    map[string]uint32 // brand id → index
	brandIDs  []string
	size      []int32   // brand index → products
	postings  postings  // word id → products with it
	deferred  bool      // Load is filling: postings are made at its end
	factCache factCache // analysed titles (engine_factcache.go)
}

type entry struct {
	ref                        svc.ProductRef
	brand                      uint32
	nwords                     uint32
	words                      uint32 // offset in wordIDs of the title's words, sorted, unique
	bindsAny                   bool   // anyURL binds the entry's page to it (in padding: no room taken)
	productID, title, url, sku str
}

// New returns an empty index.
func New() *Index {
	return &Index{
		seed:   maphash.MakeSeed(),
		byRef:  refIndex{sparse: make(map[svc.ProductRef]uint32)},
		brands: make(map[string]uint32),
		ids:    make(map[uint32]idents),
	}
}

func (c *Index) hash(s string) uint64 { return maphash.String(c.seed, s) }

func (c *Index) str(s str) string { return c.text.get(s) }

// wordsOf returns the ids of an entry's title words, sorted.
func (c *Index) wordsOf(e *entry) []uint32 {
	return c.wordIDs[e.words : e.words+e.nwords : e.words+e.nwords]
}

// prepared is what Put works out of a product before it takes the lock.
type prepared struct {
	words []string // of the title
	canon string   // of the URL, "" if none
	sku   string   // folded
}

func prepare(p *svc.Product) prepared {
	var pr prepared
	if p.Title != nil {
		pr.words = Words(*p.Title)
	}
	if p.URL != nil {
		pr.canon, _ = urlcanon.URL(*p.URL)
	}
	if p.SKU != nil {
		pr.sku = foldSKU(*p.SKU)
	}
	return pr
}

// Put adds a product or updates the attributes it gives (nil ones are kept),
// as the store does with the latest values seen in events.
//
// A page binds to a product of each brand that names it (the brand's
// latest), and a brand's site matches only its own products (ByURL): no
// event of another brand can take a brand's page (docs/security.md, What we tested and how). A
// page on a host no brand owns binds to the first product that names it,
// and moves to another brand's product only by that brand's keyed event
// (PutKeyed).
func (c *Index) Put(p *svc.Product) { c.putAs(p, false) }

// PutKeyed is Put for a product named by a keyed event: its page, on a
// host no brand owns, binds to it whichever product had it before.
func (c *Index) PutKeyed(p *svc.Product) { c.putAs(p, true) }

func (c *Index) putAs(p *svc.Product, keyed bool) {
	c.mu.RLock()
	i, ok := c.byRef.get(p.Ref)
	same := ok && c.same(&c.entries[i], p) && !(keyed && p.URL != nil && !c.bindsAny(i))
	c.mu.RUnlock()
	if same {
		return
	}
	pr := prepare(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.put(p, &pr, keyed)
}

// urlHash is the key of a brand's page in byURL.
func (c *Index) urlHash(brand uint32, canon string) uint64 {
	return c.hash(canon) ^ bits.RotateLeft64(uint64(brand+1)*0x9e3779b97f4a7c15, 17)
}

// bindsAny reports whether entry i is the one its page binds to in
// anyURL. The entry says so when it is: a keyed event of a known page
// parses no address (two canonical forms of it were a tenth of a keyed
// batch event's CPU).
func (c *Index) bindsAny(i uint32) bool {
	if c.entries[i].bindsAny {
		return true
	}
	canon, ok := urlcanon.URL(c.str(c.entries[i].url))
	if !ok {
		return true // nothing to bind
	}
	j, ok := c.anyURL.Find(c.hash(canon), func(j uint32) bool { return c.canonOf(j) == canon })
	return ok && j == i
}

// bindURL binds entry i's page, canon, for its brand and, as Put says, for
// a host no brand owns.
func (c *Index) bindURL(i uint32, canon string, keyed bool) {
	e := &c.entries[i]
	h := c.urlHash(e.brand, canon)
	if j, ok := c.byURL.Find(h, func(j uint32) bool { return c.entries[j].brand == e.brand && c.canonOf(j) == canon }); ok {
		if j != i {
			c.byURL.Replace(h, j, i) // the brand's page is this product's now
		}
	} else {
		c.byURL.Add(h, i)
	}
	h = c.hash(canon)
	if j, ok := c.anyURL.Find(h, func(j uint32) bool { return c.canonOf(j) == canon }); !ok {
		c.anyURL.Add(h, i)
		e.bindsAny = true
	} else if j != i && (keyed || c.entries[j].brand == e.brand) {
		c.anyURL.Replace(h, j, i)
		c.entries[j].bindsAny, e.bindsAny = false, true
	}
}

// unbindURL takes entry i off its page, canon.
func (c *Index) unbindURL(i uint32, canon string) {
	c.byURL.Remove(c.urlHash(c.entries[i].brand, canon), i)
	c.anyURL.Remove(c.hash(canon), i)
	c.entries[i].bindsAny = false
}

// Load puts every product that fill hands to put, as a start does: the
// titles and addresses are parsed on every core, the products are taken
// in the order given, and the word index is made once at the end. Reads
// meanwhile may miss the products being loaded.
func (c *Index) Load(fill func(put func(*svc.Product)) error) error {
	const size = 2048
	type batch struct {
		ps   []svc.Product
		prep []prepared
		done chan struct{}
	}
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *batch, workers)
	order := make(chan *batch, 2*workers) // batches in fill's order
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range work {
				b.prep = make([]prepared, len(b.ps))
				for i := range b.ps {
					b.prep[i] = prepare(&b.ps[i])
				}
				close(b.done)
			}
		})
	}
	inserted := make(chan struct{})
	go func() {
		defer close(inserted)
		for b := range order {
			<-b.done
			c.mu.Lock()
			c.deferred = true
			for i := range b.ps {
				c.put(&b.ps[i], &b.prep[i], false)
			}
			c.mu.Unlock()
		}
	}()
	cur := &batch{done: make(chan struct{})}
	send := func() {
		order <- cur
		work <- cur
		cur = &batch{done: make(chan struct{})}
	}
	err := fill(func(p *svc.Product) {
		cur.ps = append(cur.ps, *p)
		if len(cur.ps) == size {
			send()
		}
	})
	if len(cur.ps) > 0 {
		send()
	}
	close(work)
	close(order)
	<-inserted
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deferred {
		c.deferred = false
		c.indexAll()
	}
	c.trim()
	return err
}

// trim gives back the room that appends and doubling tables left, once a
// load is done.
func (c *Index) trim() {
	c.text.b = clipped(c.text.b)
	c.entries, c.wordIDs, c.wordList = clipped(c.entries), clipped(c.wordIDs), clipped(c.wordList)
	c.df, c.postings.lists, c.postings.pool = clipped(c.df), clipped(c.postings.lists), clipped(c.postings.pool)
	c.bySKU.next, c.byGTIN.next, c.byMPN.next = clipped(c.bySKU.next), clipped(c.byGTIN.next), clipped(c.byMPN.next)
	for _, x := range []*hashtable.Table{&c.vocab, &c.byURL, &c.anyURL, &c.bySKU.heads, &c.byGTIN.heads, &c.byMPN.heads} {
		x.Fit()
	}
}

func clipped[S ~[]E, E any](s S) S {
	if cap(s)-len(s) > len(s)/16 {
		return append(S(nil), s...)
	}
	return s
}

func (c *Index) put(p *svc.Product, pr *prepared, keyed bool) {
	i, ok := c.byRef.get(p.Ref)
	if !ok {
		b, known := c.brands[p.BrandID]
		if !known {
			b = uint32(len(c.brandIDs))
			c.brands[p.BrandID] = b
			c.brandIDs = append(c.brandIDs, p.BrandID)
			c.size = append(c.size, 0)
		}
		i = uint32(len(c.entries))
		c.entries = append(c.entries, entry{ref: p.Ref, brand: b, productID: c.text.add(p.ProductID)})
		c.byRef.set(p.Ref, i)
		c.size[b]++
		if len(c.factCache.slots) < min(len(c.entries), maxFactSlots) {
			c.resetFacts()
		}
	}
	e := &c.entries[i]
	if p.Title != nil && *p.Title != c.str(e.title) {
		c.unindexWords(i)
		c.text.drop(e.title)
		e.title = c.text.add(*p.Title)
		c.indexWords(i, pr.words)
	}
	if p.URL != nil && *p.URL != c.str(e.url) {
		if old, ok := urlcanon.URL(c.str(e.url)); ok && e.url != 0 {
			c.unbindURL(i, old)
		}
		c.text.drop(e.url)
		e.url = c.text.add(*p.URL)
		if pr.canon != "" {
			c.bindURL(i, pr.canon, keyed)
		}
	} else if keyed && pr.canon != "" {
		c.bindURL(i, pr.canon, keyed) // a keyed event takes its page back
	}
	if p.SKU != nil && pr.sku != c.str(e.sku) {
		if e.sku != 0 {
			c.idUnlink(&c.bySKU, skuKey, i)
			c.text.drop(e.sku)
		}
		e.sku = c.text.add(pr.sku)
		if e.sku != 0 {
			c.idLink(&c.bySKU, skuKey, i)
		}
	}
	c.putIdentifiers(i, p)
	if c.text.waste > max(1<<20, len(c.text.b)/2) || c.idWaste > max(1<<18, len(c.wordIDs)/2) {
		c.compact()
	}
}

// canonOf is the canonical address of an entry's page. It is worked out
// again rather than kept: it is needed only to tell apart two addresses
// whose hashes share a tag, and to check a match.
func (c *Index) canonOf(i uint32) string {
	canon, _ := urlcanon.URL(c.str(c.entries[i].url))
	return canon
}

func (c *Index) same(e *entry, p *svc.Product) bool {
	return (p.Title == nil || *p.Title == c.str(e.title)) && (p.URL == nil || *p.URL == c.str(e.url)) &&
		(p.SKU == nil || foldSKU(*p.SKU) == c.str(e.sku)) &&
		c.sameIdents(e, p)
}

// foldSKU makes "ABC-123 " and "abc-123" one SKU.
func foldSKU(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// wordID returns the id of a word any title has had.
func (c *Index) wordID(w string) (uint32, bool) {
	return c.vocab.Find(c.hash(w), func(id uint32) bool { return c.str(c.wordList[id]) == w })
}

func (c *Index) indexWords(i uint32, words []string) {
	ids := make([]uint32, 0, len(words))
	for _, w := range words {
		id, ok := c.wordID(w)
		if !ok {
			id = uint32(len(c.df))
			c.vocab.Add(c.hash(w), id)
			c.wordList = append(c.wordList, c.text.add(w))
			c.df = append(c.df, 0)
			c.postings.word(id)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	e := &c.entries[i]
	e.words, e.nwords = uint32(len(c.wordIDs)), uint32(len(ids))
	c.wordIDs = append(c.wordIDs, ids...)
	for _, id := range ids {
		c.df[id]++
		if !c.deferred {
			c.postings.add(id, posting(e.brand, i))
		}
	}
}

func (c *Index) unindexWords(i uint32) {
	e := &c.entries[i]
	for _, id := range c.wordsOf(e) {
		c.df[id]--
		if !c.deferred {
			c.postings.remove(id, posting(e.brand, i))
		}
	}
	c.idWaste += int(e.nwords)
	e.words, e.nwords = 0, 0
}

// indexAll makes every word's postings from the entries: the entries are
// taken brand by brand, so that each list comes out sorted.
func (c *Index) indexAll() {
	byBrand := make([]uint32, len(c.entries)) // entries in brand order
	start := make([]int, len(c.brandIDs)+1)
	for i := range c.entries {
		start[c.entries[i].brand+1]++
	}
	for b := range c.brandIDs {
		start[b+1] += start[b]
	}
	for i := range c.entries {
		b := c.entries[i].brand
		byBrand[start[b]] = uint32(i)
		start[b]++
	}
	// One array holds every list, each sized to its word's products.
	total := 0
	for _, n := range c.df {
		total += int(n)
	}
	c.postings = postings{pool: make([]uint64, total), lists: make([]span, len(c.df))}
	off := uint32(0)
	for id, n := range c.df {
		c.postings.lists[id] = span{off: off, cap: uint32(n)}
		off += uint32(n)
	}
	for _, i := range byBrand {
		e := &c.entries[i]
		for _, id := range c.wordsOf(e) {
			s := &c.postings.lists[id]
			c.postings.pool[s.off+s.n] = posting(e.brand, i)
			s.n++
			s.sorted++
		}
	}
}

// compact copies the strings and word lists still in use into new arrays,
// when replaced titles and addresses have left as much waste as they hold.
func (c *Index) compact() {
	var text arena
	text.b = make([]byte, 0, len(c.text.b)-c.text.waste)
	ids := make([]uint32, 0, len(c.wordIDs)-c.idWaste)
	for i := range c.entries {
		e := &c.entries[i]
		e.productID = text.add(c.str(e.productID))
		e.title = text.add(c.str(e.title))
		e.url = text.add(c.str(e.url))
		e.sku = text.add(c.str(e.sku))
		w := c.wordsOf(e)
		e.words = uint32(len(ids))
		ids = append(ids, w...)
	}
	for id, w := range c.wordList {
		c.wordList[id] = text.add(c.str(w))
	}
	for i, x := range c.ids {
		c.ids[i] = idents{text.add(c.str(x.gtin)), text.add(c.str(x.mpn)), text.add(c.str(x.maker))}
	}
	c.text, c.wordIDs, c.idWaste = text, ids, 0
	c.resetFacts()
}

// Len returns how many products the index holds.
func (c *Index) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// Product is a product as a match reports it.
type Product struct {
	Ref       svc.ProductRef
	BrandID   string
	ProductID string
	Title     string // "" when no event gave one
	URL       string
	SKU       string // folded: lower case, trimmed
	GTIN      string // GTIN-14, "" if none
	MPN       string // folded: lower case, letters and digits only
	Maker     string // folded as MPN
}

func (c *Index) product(i uint32) Product {
	e, x := &c.entries[i], c.ids[i]
	return Product{Ref: e.ref, BrandID: c.brandIDs[e.brand], ProductID: c.str(e.productID),
		Title: c.str(e.title), URL: c.str(e.url), SKU: c.str(e.sku),
		GTIN: c.str(x.gtin), MPN: c.str(x.mpn), Maker: c.str(x.maker)}
}

// ByURL finds the product whose page has the canonical address: the
// brand's, for a page on the site of the brand with the id brandID, or the
// one the page binds to (see Put) when brandID is "", for a host no brand
// owns.
func (c *Index) ByURL(brandID, canonical string) (Product, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var i uint32
	var ok bool
	if brandID == "" {
		i, ok = c.anyURL.Find(c.hash(canonical), func(i uint32) bool { return c.canonOf(i) == canonical })
	} else if b, known := c.brands[brandID]; known {
		i, ok = c.byURL.Find(c.urlHash(b, canonical), func(i uint32) bool {
			return c.entries[i].brand == b && c.canonOf(i) == canonical
		})
	}
	if !ok {
		return Product{}, false
	}
	return c.product(i), true
}

// refIndex finds a product's entry by its store reference. Stores number
// products from a sequence, so a slice indexed by reference costs 4 bytes a
// product where a map costs ten times that; a reference far beyond the
// numbers seen goes to a map instead.
type refIndex struct {
	dense  []uint32 // entry + 1; 0 is none
	sparse map[svc.ProductRef]uint32
}

func (x *refIndex) get(ref svc.ProductRef) (uint32, bool) {
	if ref >= 0 && ref < svc.ProductRef(len(x.dense)) {
		if e := x.dense[ref]; e > 0 {
			return e - 1, true
		}
	}
	i, ok := x.sparse[ref] // set before the slice reached it
	return i, ok
}

func (x *refIndex) set(ref svc.ProductRef, i uint32) {
	if ref >= 0 && ref < svc.ProductRef(2*len(x.dense)+1024) {
		for svc.ProductRef(len(x.dense)) <= ref {
			x.dense = append(x.dense, 0)
		}
		x.dense[ref] = i + 1
		return
	}
	x.sparse[ref] = i
}
