package match

import "github.com/svc-project/svc"

// ByRef returns the product with the store reference, as last put.
func (c *Index) ByRef(ref svc.ProductRef) (Product, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	i, ok := c.byRef.get(ref)
	if !ok {
		return Product{}, false
	}
	return c.product(i), true
}
