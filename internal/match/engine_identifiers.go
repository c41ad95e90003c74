package match

import (
	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/hashtable"
)

// The maker's identifiers come before titles: the same GTIN is the same
// product at every shop, and so is the same part number of the same
// maker. Each identifier, and the shops' SKUs, is a list of entries
// through next, its head in a table: one product at many shops is one key
// many times, which an open-addressing table would hold as one long probe
// run.
type idList struct {
	heads hashtable.Table
	next  []uint32 // entry → the entry before it with its key, plus one; 0 ends
}

// Offer and match methods by identifier.
const (
	MethodGTIN = "gtin"
	MethodMPN  = "mpn"
)

// idents are an entry's identifiers: GTIN-14, part number and maker, the
// last two folded. Most products have none, so they are kept beside the
// entries, not in each.
type idents struct{ gtin, mpn, maker str }

// idKey reads entry i's key in one list.
type idKey func(c *Index, i uint32) str

func gtinKey(c *Index, i uint32) str { return c.ids[i].gtin }
func mpnKey(c *Index, i uint32) str  { return c.ids[i].mpn }
func skuKey(c *Index, i uint32) str  { return c.entries[i].sku }

// idHead returns the latest entry with key k.
func (c *Index) idHead(l *idList, key idKey, k string) (uint32, bool) {
	return l.heads.Find(c.hash(k), func(j uint32) bool { return c.str(key(c, j)) == k })
}

// idLink puts entry i, whose key is set, at the head of its key's list.
func (c *Index) idLink(l *idList, key idKey, i uint32) {
	for uint32(len(l.next)) <= i {
		l.next = append(l.next, 0)
	}
	k := c.str(key(c, i))
	h := c.hash(k)
	if j, ok := c.idHead(l, key, k); ok {
		l.heads.Replace(h, j, i)
		l.next[i] = j + 1
		return
	}
	l.heads.Add(h, i)
	l.next[i] = 0
}

// idUnlink takes entry i out of its key's list.
func (c *Index) idUnlink(l *idList, key idKey, i uint32) {
	k := c.str(key(c, i))
	j, ok := c.idHead(l, key, k)
	if !ok {
		return
	}
	if j == i {
		if next := l.next[i]; next != 0 {
			l.heads.Replace(c.hash(k), i, next-1)
		} else {
			l.heads.Remove(c.hash(k), i)
		}
	} else {
		for l.next[j] != 0 && l.next[j] != i+1 {
			j = l.next[j] - 1
		}
		if l.next[j] == i+1 {
			l.next[j] = l.next[i]
		}
	}
	l.next[i] = 0
}

// idEach calls fn for the entries with key k, latest first, until fn
// returns false.
func (c *Index) idEach(l *idList, key idKey, k string, fn func(i uint32) bool) {
	if k == "" {
		return
	}
	i, ok := c.idHead(l, key, k)
	for ok && fn(i) {
		if l.next[i] == 0 {
			return
		}
		i = l.next[i] - 1
	}
}

// putIdentifiers sets entry i's identifiers to those p gives.
func (c *Index) putIdentifiers(i uint32, p *svc.Product) {
	x := c.ids[i]
	set := func(l *idList, key idKey, field *str, v *string, fold func(string) string) {
		if v == nil {
			return
		}
		k := fold(*v)
		if k == c.str(*field) {
			return
		}
		if *field != 0 {
			c.idUnlink(l, key, i)
			c.text.drop(*field)
		}
		*field = c.text.add(k)
		c.ids[i] = x
		if *field != 0 {
			c.idLink(l, key, i)
		}
	}
	set(&c.byGTIN, gtinKey, &x.gtin, p.GTIN, func(s string) string { g, _ := svc.GTIN14(s); return g })
	set(&c.byMPN, mpnKey, &x.mpn, p.MPN, foldID)
	if p.Maker != nil {
		if k := foldID(*p.Maker); k != c.str(x.maker) {
			c.text.drop(x.maker)
			x.maker = c.text.add(k)
		}
	}
	if x == (idents{}) {
		delete(c.ids, i)
	} else {
		c.ids[i] = x
	}
}

// sameIdents reports whether an entry has the identifiers p gives.
func (c *Index) sameIdents(e *entry, p *svc.Product) bool {
	i, _ := c.byRef.get(e.ref)
	x := c.ids[i]
	return (p.GTIN == nil || *p.GTIN == c.str(x.gtin)) && (p.MPN == nil || foldID(*p.MPN) == c.str(x.mpn)) &&
		(p.Maker == nil || foldID(*p.Maker) == c.str(x.maker))
}

// sameMaker reports whether entry i's maker may be the query's: equal,
// or unknown on either side.
func (c *Index) sameMaker(pq *query, i uint32) bool {
	m := c.str(c.ids[i].maker)
	return pq.maker == "" || m == "" || m == pq.maker
}

// byIdentifier finds the brand's product with the query's GTIN, or with
// its part number and maker.
func (c *Index) byIdentifier(b uint32, pq *query) (Hit, bool) {
	var hit Hit
	found := false
	c.idEach(&c.byGTIN, gtinKey, pq.GTIN, func(i uint32) bool {
		if c.entries[i].brand == b {
			hit, found = Hit{Product: c.product(i), Confidence: 1, Method: MethodGTIN}, true
		}
		return !found
	})
	if found {
		return hit, true
	}
	c.idEach(&c.byMPN, mpnKey, pq.mpn, func(i uint32) bool {
		if c.entries[i].brand == b && c.sameMaker(pq, i) && !c.gtinClash(pq, i) {
			hit, found = Hit{Product: c.product(i), Confidence: 1, Method: MethodMPN}, true
		}
		return !found
	})
	return hit, found
}

func (c *Index) gtinClash(pq *query, i uint32) bool {
	g := c.str(c.ids[i].gtin)
	return pq.GTIN != "" && g != "" && g != pq.GTIN
}

// identifierClash reports whether an entry's identifiers say it is
// another product than the query's: another GTIN, or another part number
// of the same maker. Such a product is never a title match.
func (c *Index) identifierClash(pq *query, i uint32) bool {
	if c.gtinClash(pq, i) {
		return true
	}
	m := c.str(c.ids[i].mpn)
	return pq.mpn != "" && m != "" && m != pq.mpn && c.sameMaker(pq, i)
}
