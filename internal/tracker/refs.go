package tracker

import (
	"sync"

	"github.com/svc-project/svc"
)

// productRefs maps a brand's product ids to the store's refs, so that a proof
// read finds its counts without touching the store.
type productRefs struct {
	mu   sync.RWMutex
	refs map[productKey]svc.ProductRef
}

type productKey struct{ brandID, productID string }

func (c *productRefs) add(brandID, productID string, ref svc.ProductRef) {
	k := productKey{brandID, productID}
	c.mu.RLock()
	_, ok := c.refs[k]
	c.mu.RUnlock()
	if ok {
		return
	}
	c.mu.Lock()
	c.refs[k] = ref
	c.mu.Unlock()
}

func (c *productRefs) ref(brandID, productID string) (svc.ProductRef, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ref, ok := c.refs[productKey{brandID, productID}]
	return ref, ok
}
