package tracker

import (
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/purchasefeed"
)

// RecentActivity returns the recent purchases brand b's feed may show, of
// one product or of every product, newest first, under the brand's privacy
// rules (docs/honesty.md). A product never seen has none.
func (t *Tracker) RecentActivity(q svc.RecentQuery, b *svc.Brand) []svc.RecentItem {
	var ref svc.ProductRef
	if q.ProductID != "" {
		var ok bool
		if ref, ok = t.products.Ref(q.BrandID, q.ProductID); !ok {
			return nil
		}
	}
	now := t.cfg.Now()
	rules := purchasefeed.Rules{RecentSettings: b.Recent.Stored(), MinPurchases: max(b.MinPurchases, 1)}
	items := t.signals.Load().recent.Recent(q.BrandID, ref, rules, now)
	out := make([]svc.RecentItem, 0, len(items))
	for _, it := range items {
		p, ok := t.search.ByRef(it.Product)
		if !ok || p.BrandID != q.BrandID {
			continue // not learnt yet on this node: shown at the next ask
		}
		// The index holds verified attributes only; a link goes only to
		// the brand's domains as they are now.
		url := optional(p.URL)
		if url != nil && !b.OwnsURL(*url) {
			url = nil
		}
		out = append(out, svc.RecentItem{ProductID: p.ProductID, Title: optional(p.Title), URL: url,
			Country: it.Country, City: it.City, MinutesAgo: int(now.Sub(it.Time) / time.Minute)})
	}
	return out
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
