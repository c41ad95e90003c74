package sqlite

import (
	"database/sql"
	"sync"

	"github.com/svc-project/svc"
)

// The writer remembers the products it has resolved, with the attributes
// stored, so that a view of a known product whose attributes did not
// change costs no query: that lookup was 40% of the group commit's time in
// profiles under load. Only committed state enters the cache, and this
// process is the only one that writes products (admin commands do not,
// and serve refuses a data folder another server holds).

// maxCachedProducts bounds the cache; under Zipf traffic the popular
// products, which most events are about, stay in it.
const maxCachedProducts = 100_000

type productKey struct{ brandID, productID string }

type productRow struct {
	ref             svc.ProductRef
	sku, title, url sql.NullString
}

type productCache struct {
	mu sync.Mutex
	m  map[productKey]productRow
}

func (c *productCache) get(k productKey) (productRow, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[k]
	return r, ok
}

// merge adds the rows of a committed transaction.
func (c *productCache) merge(rows map[productKey]productRow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[productKey]productRow)
	}
	for k, r := range rows {
		if _, ok := c.m[k]; !ok && len(c.m) >= maxCachedProducts {
			for old := range c.m { // Go picks a random entry to start at
				delete(c.m, old)
				break
			}
		}
		c.m[k] = r
	}
}

func (c *productCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
}

func (c *productCache) forget(k productKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}

// productMemo is what resolveProduct may use to skip its queries: the
// products this transaction resolved, then the committed cache.
type productMemo interface {
	lookup(productKey) (productRow, bool)
	remember(productKey, productRow)
}

// memo makes p remember products; merge them after the commit.
func (p *preparedTx) memo(cache *productCache) {
	p.products, p.staged = cache, make(map[productKey]productRow)
}

func (p *preparedTx) lookup(k productKey) (productRow, bool) {
	if p.staged == nil {
		return productRow{}, false
	}
	if r, ok := p.staged[k]; ok {
		return r, true
	}
	return p.products.get(k)
}

func (p *preparedTx) remember(k productKey, r productRow) {
	if p.staged != nil {
		p.staged[k] = r
	}
}

// given returns s as stored when it was given, else the stored value:
// what an update with coalesce leaves.
func given(s *string, stored sql.NullString) sql.NullString {
	if s == nil {
		return stored
	}
	return sql.NullString{String: *s, Valid: true}
}
