package purchasefeed

import (
	"time"

	"github.com/svc-project/svc"
)

// Products gives a product's verified attributes by its ref: the feed
// shows no provisional title and no foreign link (internal/enrich's
// Catalog).
type Products interface {
	Product(ref svc.ProductRef) (*svc.Product, bool)
}

// Activity returns what brand b's feed shows at now, newest first: of the
// product ref only, unless it is 0. A purchase whose product is not learnt
// yet on this node is left out, and shown at the next ask; a link goes
// only to the brand's domains as they are now.
func (f *Feed) Activity(b *svc.Brand, ref svc.ProductRef, products Products, now time.Time) []svc.RecentItem {
	rules := Rules{RecentSettings: b.Recent.Stored(), MinPurchases: max(b.MinPurchases, 1)}
	items := f.Recent(b.ID, ref, rules, now)
	out := make([]svc.RecentItem, 0, len(items))
	for _, it := range items {
		p, ok := products.Product(it.Product)
		if !ok || p.BrandID != b.ID {
			continue
		}
		url := p.URL
		if url != nil && !b.OwnsURL(*url) {
			url = nil
		}
		out = append(out, svc.RecentItem{ProductID: p.ProductID, Title: p.Title, URL: url,
			Country: it.Country, City: it.City, MinutesAgo: int(now.Sub(it.Time) / time.Minute)})
	}
	return out
}
