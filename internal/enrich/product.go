package enrich

import (
	"cmp"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
)

// ProductResponse answers product-enrich.
type ProductResponse struct {
	Matched     bool         `json:"matched"`
	Match       *MatchInfo   `json:"match"`
	SocialProof *SocialProof `json:"social_proof"`
	Reason      string       `json:"reason,omitempty"`
	Price       *Price       `json:"price"`
	Offers      []Offer      `json:"offers"`
	Badges      []string     `json:"badges"`
	Messages    []Message    `json:"messages"`
	Language    string       `json:"language"`
	GeneratedAt time.Time    `json:"generated_at"`
}

// Price is what shoppers paid for the product in the last 30 days, in the
// page's currency, next to the price the page shows.
type Price struct {
	Seen       *float64 `json:"seen"`
	Currency   *string  `json:"currency"`
	Median     *float64 `json:"median"`
	Min        *float64 `json:"min"`
	Max        *float64 `json:"max"`
	Purchases  int      `json:"purchases"`
	WindowDays int      `json:"window_days"`
	Verdict    string   `json:"verdict"`
	Reason     string   `json:"reason,omitempty"`
}

// Offer is the same product at another shop.
type Offer struct {
	BrandID     string       `json:"brand_id"`
	ProductID   string       `json:"product_id"`
	Title       *string      `json:"title"`
	URL         *string      `json:"url"`
	Method      string       `json:"method"`
	Confidence  float64      `json:"confidence"`
	Price       *Price       `json:"price"`
	SocialProof *SocialProof `json:"social_proof"`
}

// Product enriches one product page. Without a match there is no proof or
// price, but offers are still looked for by title and SKU.
func (s *Service) Product(req *svc.ProductEnrichRequest, acceptLanguage string) *ProductResponse {
	now := s.counts.Now()
	c, p := req.Context, req.Product
	lang := Language(deref(c.Locale), acceptLanguage)
	out := &ProductResponse{Offers: []Offer{}, Badges: []string{}, Language: lang.String(), GeneratedAt: now.UTC()}
	m := s.matcher()
	page := Page{Title: deref(p.Title), URL: deref(c.URL), Domain: deref(c.Domain),
		GTIN: gtin14(p.GTIN), MPN: deref(p.MPN), Maker: deref(p.Brand), MinConfidence: deref(req.MinConfidence)}
	found, ok := m.Find(page)
	var proof *proofOf
	except, title, sku := "", deref(p.Title), deref(p.SKU)
	if ok {
		pr := s.proof(found.Product, now)
		proof = &pr
		out.Matched, out.Match, out.SocialProof = true, s.matchInfo(found, pr.brand), &pr.shown
		out.Price = s.price(found.Ref, p.Price, p.Currency, now)
		except = found.BrandID
		if found.Title != "" {
			title = found.Title // the stored title is the cleaner one
		}
		if sku == "" {
			sku = found.SKU
		}
	} else {
		out.Reason = ReasonNoMatch
		if b := m.BrandOf(deref(c.URL), deref(c.Domain)); b != nil {
			except = b.ID // the page's own shop is no other shop
		}
	}
	offerProofs := []*proofOf{}
	q := match.Query{Title: title, GTIN: page.GTIN, MPN: page.MPN, Maker: page.Maker, MinConfidence: page.MinConfidence}
	if ok {
		// The matched product's identifiers stand in for those the page
		// does not give.
		q.GTIN, q.MPN, q.Maker = cmp.Or(q.GTIN, found.GTIN), cmp.Or(q.MPN, found.MPN), cmp.Or(q.Maker, found.Maker)
		q.Own = found.Ref // a title offer must find the page's product back
	}
	for _, o := range s.cat.index.Offers(except, q, sku, maxOffers) {
		op := s.proof(o.Product, now)
		offerProofs = append(offerProofs, &op)
		out.Offers = append(out.Offers, Offer{BrandID: o.BrandID, ProductID: o.ProductID, Title: orNull(o.Title), URL: s.link(o.BrandID, o.URL),
			Method: o.Method, Confidence: o.Confidence, Price: s.price(o.Ref, nil, p.Currency, now), SocialProof: &op.shown})
	}
	out.Badges = productBadges(proof, p, offerProofs, out.Offers)
	pr := newPrinter(lang)
	out.Messages = pr.messages(proof, out.Badges, pageBadgeKeys)
	if out.Price != nil {
		switch out.Price.Verdict {
		case VerdictBelow:
			out.Messages = append(out.Messages, pr.text(msgPriceBelow))
		case VerdictTypical:
			out.Messages = append(out.Messages, pr.text(msgPriceTypical))
		case VerdictAbove:
			out.Messages = append(out.Messages, pr.text(msgPriceAbove))
		}
	}
	if len(out.Offers) > 0 {
		out.Messages = append(out.Messages, pr.count(msgOffers, int64(len(out.Offers))))
	}
	return out
}

// price summarises the last 30 days' unit prices of a product in the
// currency, and judges the price seen against their median.
func (s *Service) price(ref svc.ProductRef, seen *float64, currency *string, now time.Time) *Price {
	out := &Price{Seen: seen, Currency: currency, WindowDays: int(PriceWindow / (24 * time.Hour)), Verdict: VerdictUnknown}
	if currency == nil {
		out.Reason = ReasonNoPrice
		return out
	}
	st := s.cat.Prices(ref, *currency, now)
	out.Purchases = st.Purchases
	if st.Purchases < MinPriceSample {
		out.Reason = ReasonTooFewPurchases
		return out
	}
	out.Median, out.Min, out.Max = &st.Median, &st.Min, &st.Max
	switch {
	case seen == nil:
		out.Reason = ReasonNoPrice
	case *seen < st.Median*(1-typicalBand):
		out.Verdict = VerdictBelow
	case *seen > st.Median*(1+typicalBand):
		out.Verdict = VerdictAbove
	default:
		out.Verdict = VerdictTypical
	}
	return out
}

// productBadges compares the page's product with its offers: most_viewed
// and most_purchased when its shown count is strictly above every offer's;
// lowest_price when the page's price is below every offer's median price
// in the same currency; trending as for search results.
func productBadges(p *proofOf, page svc.PageProduct, offers []*proofOf, offerInfo []Offer) []string {
	badges := []string{}
	if p == nil || len(offers) == 0 {
		if p != nil && p.trending {
			badges = append(badges, BadgeTrending)
		}
		return badges
	}
	above := func(n int64, shown bool, count func(*proofOf) int64) bool {
		if !shown || n == 0 {
			return false
		}
		for _, o := range offers {
			if count(o) >= n {
				return false
			}
		}
		return true
	}
	if above(p.viewers, p.viewsShown, func(o *proofOf) int64 { return o.viewers }) {
		badges = append(badges, BadgeMostViewed)
	}
	if above(p.purchases, p.buysShown, func(o *proofOf) int64 { return o.purchases }) {
		badges = append(badges, BadgeMostPurchased)
	}
	if page.Price != nil && page.Currency != nil {
		priced, lowest := 0, true
		for _, o := range offerInfo {
			if o.Price != nil && o.Price.Median != nil {
				priced++
				lowest = lowest && *page.Price < *o.Price.Median
			}
		}
		if priced > 0 && lowest {
			badges = append(badges, BadgeLowestPrice)
		}
	}
	if p.trending {
		badges = append(badges, BadgeTrending)
	}
	return badges
}
