package sqlite

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/svc-project/svc"
)

// The writer remembers the products it has resolved, with the attributes
// stored, so that a view of a known product whose attributes did not
// change costs no query: that lookup was 40% of the group commit's time in
// profiles under load. Only committed state enters the cache, and the
// cache is emptied when another process (svc import) committed since the
// writer's last transaction (othersWrote, events.go).

// maxCachedProducts bounds the cache; under Zipf traffic the popular
// products, which most events are about, stay in it.
const maxCachedProducts = 100_000

type productKey struct{ brandID, productID string }

type productCache struct {
	mu sync.Mutex
	m  map[productKey]svc.Product
}

func (c *productCache) get(k productKey) (svc.Product, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[k]
	return r, ok
}

// merge adds the rows of a committed transaction.
func (c *productCache) merge(rows map[productKey]svc.Product) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[productKey]svc.Product)
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

// memo makes p remember products; merge them after the commit.
func (p *preparedTx) memo(cache *productCache) {
	p.products, p.staged = cache, make(map[productKey]svc.Product)
}

// lookup returns a product the transaction resolved, or else the cache's.
func (p *preparedTx) lookup(k productKey) (svc.Product, bool) {
	if p.staged == nil {
		return svc.Product{}, false
	}
	if r, ok := p.staged[k]; ok {
		return r, true
	}
	return p.products.get(k)
}

// remember notes a product as the transaction leaves it.
func (p *preparedTx) remember(k productKey, r svc.Product) {
	if p.staged != nil {
		p.staged[k] = r
	}
}

// prefetchMin is how many products a batch names, not in the memo, before
// prefetch reads them in one query: a view of a known product needs none.
const prefetchMin = 32

// prefetch reads the products the batch names that the memo lacks, in one
// query a brand, and notes those not stored: a batch of 1,000 order lines
// of new products made 1,000 look-ups that found nothing, a fifth of its
// time, before their inserts.
func (p *preparedTx) prefetch(ctx context.Context, batch []*svc.Write) error {
	want := map[string][]string{} // brand to product ids
	n := 0
	seen := map[productKey]bool{}
	for _, w := range batch {
		for i := range w.Products() {
			named := w.Product(i)
			k := productKey{named.BrandID, named.ProductID}
			if seen[k] {
				continue
			}
			seen[k] = true
			if _, ok := p.lookup(k); !ok {
				want[k.brandID] = append(want[k.brandID], k.productID)
				n++
			}
		}
	}
	if n < prefetchMin {
		return nil
	}
	p.absent = make(map[productKey]bool, n)
	for brandID, ids := range want {
		for _, id := range ids {
			p.absent[productKey{brandID, id}] = true
		}
		list, err := json.Marshal(ids)
		if err != nil {
			return err
		}
		rows, err := p.tx.QueryContext(ctx, qProductsIn, brandID, string(list))
		if err != nil {
			return err
		}
		for rows.Next() {
			r := svc.Product{BrandID: brandID}
			if err := rows.Scan(&r.Ref, &r.ProductID, &r.SKU, &r.Title, &r.URL, &r.GTIN, &r.MPN, &r.Maker, &r.Verified); err != nil {
				rows.Close()
				return err
			}
			k := productKey{brandID, r.ProductID}
			delete(p.absent, k)
			p.remember(k, r)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := p.prefetchNames(ctx, brandID, string(list)); err != nil {
			return err
		}
	}
	return nil
}

// prefetchNames reads which of the ids are names of the brand's products,
// so that ProductOf answers for the absent ones without a query.
func (p *preparedTx) prefetchNames(ctx context.Context, brandID, list string) error {
	if p.names == nil {
		p.names = map[productKey]string{}
	}
	rows, err := p.tx.QueryContext(ctx, qNamesIn, brandID, list)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name, id string
		if err := rows.Scan(&name, &id); err != nil {
			return err
		}
		p.names[productKey{brandID, name}] = id
	}
	return rows.Err()
}

// owned returns r with its own copies of the attributes an event gave it:
// the cache outlives the events.
func owned(r svc.Product) svc.Product {
	r.SKU, r.Title, r.URL = clone(r.SKU), clone(r.Title), clone(r.URL)
	r.GTIN, r.MPN, r.Maker = clone(r.GTIN), clone(r.MPN), clone(r.Maker)
	return r
}

func clone(s *string) *string {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// ProductOf returns the product a name of the brand belongs to
// (svc.NameLookup): a product the memo holds answers without a query.
func (p *preparedTx) ProductOf(ctx context.Context, brandID, name string) (string, bool, error) {
	k := productKey{brandID, name}
	if _, ok := p.lookup(k); ok {
		return name, true, nil
	}
	if p.absent[k] { // prefetch read its names too
		id, ok := p.names[k]
		return id, ok, nil
	}
	var id string
	ok, err := found(p.QueryRowContext(ctx, qProductOf, brandID, name).Scan(&id))
	return id, ok, err
}

// RegisterName stores a name of a product (svc.NameLookup), and marks the
// product changed for the change feed.
func (p *preparedTx) RegisterName(ctx context.Context, n svc.Name, at time.Time) error {
	if _, err := p.ExecContext(ctx, qNameInsert, n.BrandID, n.Name, n.ProductID, millis(at)); err != nil {
		return err
	}
	if p.names != nil {
		p.names[productKey{n.BrandID, n.Name}] = n.ProductID
	}
	_, err := p.ExecContext(ctx, qProductTouch, n.BrandID, n.ProductID)
	return err
}
