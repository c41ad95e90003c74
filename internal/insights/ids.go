package insights

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/svc-project/svc/internal/rollup"
)

// idCache keeps each brand's products (their refs and ids, in the order
// of the ids) for every reading: a brand's list of products reads the
// counts of each, and reading 100,000 ids through the driver took more
// than the page's budget. A product is only ever added, or removed by a
// merge of two products, which changes the store's erasure version; so
// the brand's count of products and that version say whether the list is
// whole (rollup.ProductsKey), and a list that only grew reads the new
// products alone.
type idCache struct {
	mu     sync.Mutex
	brands map[string]*brandIDs
}

// brandIDs is a brand's products as a reading saw them.
type brandIDs struct {
	key  rollup.ProductsKey
	max  int64 // the largest ref
	refs []int64
	ids  []string // refs[i]'s id; in byte order
}

// idsKept bounds the brands kept: past it, the cache starts again.
const idsKept = 64

// products returns the brand's products, their refs and ids in the
// order of the ids, which the caller must not change.
func (c *idCache) products(ctx context.Context, src Source, brandID string) (refs []int64, ids []string, err error) {
	key, err := src.BrandProductsKey(ctx, brandID)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	old := c.brands[brandID]
	c.mu.Unlock()
	if old != nil && old.key == key {
		return old.refs, old.ids, nil
	}
	b := &brandIDs{key: key}
	after := int64(0)
	if old != nil && old.key.Version == key.Version && old.key.Products < key.Products {
		// Only added: the new products have refs above the largest seen,
		// as a rule (a PostgreSQL writer may commit a smaller one late:
		// then the count tells, and all are read again).
		after = old.max
	}
	var newRefs []int64
	var newIDs []string
	read := func(after int64) error {
		newRefs, newIDs = newRefs[:0], newIDs[:0]
		return src.BrandProductIDs(ctx, brandID, after, func(ref int64, id string) {
			newRefs, newIDs = append(newRefs, ref), append(newIDs, id)
		})
	}
	if err := read(after); err != nil {
		return nil, nil, err
	}
	if after > 0 {
		if int64(len(old.refs)+len(newRefs)) < key.Products {
			after = 0
			if err := read(0); err != nil {
				return nil, nil, err
			}
		} else {
			newRefs = append(slices.Clone(old.refs), newRefs...)
			newIDs = append(slices.Clone(old.ids), newIDs...)
		}
	}
	b.refs, b.ids = sortedByID(newRefs, newIDs)
	for _, r := range b.refs {
		b.max = max(b.max, r)
	}
	c.mu.Lock()
	if c.brands == nil || len(c.brands) == idsKept {
		c.brands = map[string]*brandIDs{}
	}
	c.brands[brandID] = b
	c.mu.Unlock()
	return b.refs, b.ids, nil
}

// sortedByID sorts refs and ids by the ids: the store gives them sorted,
// but by its collation.
func sortedByID(refs []int64, ids []string) ([]int64, []string) {
	if slices.IsSorted(ids) {
		return refs, ids
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(ids[a], ids[b]) })
	r, s := make([]int64, len(refs)), make([]string, len(ids))
	for i, j := range order {
		r[i], s[i] = refs[j], ids[j]
	}
	return r, s
}
