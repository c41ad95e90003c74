package window

import (
	"time"

	"github.com/svc-project/svc"
)

// CountsNow is Counts, and the distinct sessions that viewed the product
// in (now-nowWindow, now], read under the same lock: the proof asks for
// both on every read.
func (e *Engine) CountsNow(ref svc.ProductRef, now time.Time, viewWindow, purchaseWindow, nowWindow time.Duration) (Counts, int64) {
	n := sec(now)
	vw := min(uint32(viewWindow/time.Second), e.viewHorizon)
	pw := min(uint32(purchaseWindow/time.Second), e.purchaseHorizon)
	nw := min(uint32(nowWindow/time.Second), e.viewHorizon)
	s := e.shard(ref)
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.products[ref]
	if p == nil {
		return Counts{}, 0
	}
	p.flush(n)
	c := Counts{
		Views:   int64(p.views.sumAfter(n-min(vw, n), n)),
		Viewers: int64(p.viewers.sumAfter(n-min(vw, n), n)),
	}
	if m := p.more; m != nil {
		c.Purchases = int64(m.orders.sumAfter(n-min(pw, n), n))
		c.Units = int64(m.units.sumAfter(n-min(pw, n), n))
	}
	return c, int64(p.viewers.sumAfter(n-min(nw, n), n))
}
