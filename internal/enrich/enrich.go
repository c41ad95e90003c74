// Package enrich answers the shopper's browser extension: for a search
// result list or a product page, the matched product, its social proof,
// price insight, offers at other shops, badges and ready-to-show sentences
// (docs/enrichment.md). It never stores what it is asked: a search query exists only
// for the length of its request.
package enrich

import (
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
	"github.com/svc-project/svc/internal/window"
)

// Reasons a figure is withheld: null with a reason, never a made-up 0.
const (
	ReasonNoMatch         = "no_match"
	ReasonBelowThreshold  = "below_threshold"
	ReasonTooFewPurchases = "too_few_purchases"
	ReasonNoPrice         = "no_price"
)

// Price verdicts.
const (
	VerdictBelow   = "below_typical"
	VerdictTypical = "typical"
	VerdictAbove   = "above_typical"
	VerdictUnknown = "unknown"
)

// Badges (docs/enrichment.md defines them).
const (
	BadgeMostViewed    = "most_viewed"
	BadgeMostPurchased = "most_purchased"
	BadgeLowestPrice   = "lowest_price"
	BadgeTrending      = "trending"
)

const (
	// MinPriceSample is how many priced purchases a median needs: fewer
	// would tell one shopper's price, and is no "typical" price.
	MinPriceSample = 3
	// typicalBand is how far from the median a price is still typical.
	typicalBand = 0.05
	// trendingFactor: views in the last hour at least this many times the
	// mean hour of the last 24 make a product trending ...
	trendingFactor = 2
	// ... with at least this many people in that hour, and the brand's own
	// threshold if it is higher.
	trendingMinViewers = 5
	// maxOffers bounds the offers of one product.
	maxOffers = 10
)

// Brands are the brands enrichment names and matches pages to: auth's
// cache. Brands returns them all with their version, which moves when any
// of them changes.
type Brands interface {
	Brand(id string) *svc.Brand
	Brands() (version int64, all []*svc.Brand)
}

// Counts are the core's counts: the tracker.
type Counts interface {
	Counts(ref svc.ProductRef, now time.Time, views, purchases time.Duration) window.Counts
	Now() time.Time
}

// Service answers enrichment requests from the catalog and the counts.
type Service struct {
	cat    *Catalog
	brands Brands
	counts Counts
}

// New returns the enrichment service of a catalog, which the core feeds;
// nil is an empty one.
func New(cat *Catalog, brands Brands, counts Counts) *Service {
	if cat == nil {
		cat = NewCatalog()
	}
	return &Service{cat: cat, brands: brands, counts: counts}
}

func (s *Service) matcher() Matcher {
	return Matcher{Index: s.cat.index, Dir: s.cat.directory(s.brands)}
}

// MatchInfo is the product a result or page was matched to.
type MatchInfo struct {
	BrandID    string  `json:"brand_id"`
	BrandName  string  `json:"brand_name"` // the shop, as a shopper is shown it
	ProductID  string  `json:"product_id"`
	Title      *string `json:"title"`
	URL        *string `json:"url"`
	Method     string  `json:"method"`
	Confidence float64 `json:"confidence"`
}

// matchInfo describes a match of the brand b (nil: gone since, named by
// its id). Its link is on the brand's current domains, or none.
func (s *Service) matchInfo(f Found, b *svc.Brand) *MatchInfo {
	name := f.BrandID
	if b != nil && b.Name != "" {
		name = b.Name
	}
	return &MatchInfo{BrandID: f.BrandID, BrandName: name, ProductID: f.ProductID, Title: orNull(f.Title), URL: s.link(f.BrandID, f.URL),
		Method: f.Method, Confidence: f.Confidence}
}

// link is a product's URL as an answer gives it: only on one of its
// brand's domains as they are now (docs/security.md, Provenance), else
// null. The index holds verified URLs only, checked against the domains
// when they came; a brand's domains change.
func (s *Service) link(brandID, url string) *string {
	if b := s.brands.Brand(brandID); url == "" || b == nil || !b.OwnsURL(url) {
		return nil
	}
	return &url
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// SocialProof is a product's counts at the default windows; a count below
// the brand's threshold is null, and Reasons says why.
type SocialProof struct {
	Views       *int64            `json:"views_last_60_min"`
	Viewers     *int64            `json:"viewers"`
	Purchases   *int64            `json:"purchases_last_24h"`
	Units       *int64            `json:"units"`
	WindowViews int               `json:"window_views"`
	WindowBuys  int               `json:"window_purchases"`
	Reasons     map[string]string `json:"reasons,omitempty"`
}

// proofOf is what enrichment knows of one matched product.
type proofOf struct {
	brand      *svc.Brand
	shown      SocialProof
	viewers    int64 // the true counts, shown or not, for comparing results
	purchases  int64
	trending   bool
	viewsShown bool
	buysShown  bool
}

func (s *Service) proof(p match.Product, now time.Time) proofOf {
	b := s.brands.Brand(p.BrandID)
	minViewers, minPurchases := svc.DefaultMinViewers, svc.DefaultMinPurchases
	if b != nil {
		minViewers, minPurchases = b.MinViewers, b.MinPurchases
	}
	hour := s.counts.Counts(p.Ref, now, svc.DefaultViewWindow, svc.DefaultPurchaseWindow)
	out := proofOf{brand: b, viewers: hour.Viewers, purchases: hour.Purchases}
	out.shown = SocialProof{WindowViews: int(svc.DefaultViewWindow / time.Minute), WindowBuys: int(svc.DefaultPurchaseWindow / time.Hour)}
	if hour.Viewers >= int64(minViewers) {
		out.viewsShown = true
		out.shown.Views, out.shown.Viewers = &hour.Views, &hour.Viewers
	} else {
		out.shown.Reasons = map[string]string{"views_last_60_min": ReasonBelowThreshold, "viewers": ReasonBelowThreshold}
	}
	if hour.Purchases >= int64(minPurchases) {
		out.buysShown = true
		out.shown.Purchases, out.shown.Units = &hour.Purchases, &hour.Units
	} else {
		if out.shown.Reasons == nil {
			out.shown.Reasons = map[string]string{}
		}
		out.shown.Reasons["purchases_last_24h"] = ReasonBelowThreshold
		out.shown.Reasons["units"] = ReasonBelowThreshold
	}
	if out.viewsShown && hour.Viewers >= int64(max(minViewers, trendingMinViewers)) {
		day := s.counts.Counts(p.Ref, now, 24*time.Hour, svc.DefaultPurchaseWindow)
		out.trending = float64(hour.Views)*24 >= trendingFactor*float64(day.Views)
	}
	return out
}

// pageBadgeKeys are the sentences of the badges on a product page.
var pageBadgeKeys = map[string]string{
	BadgeMostViewed: msgPageMostViewed, BadgeMostPurchased: msgPageMostPurchased,
	BadgeLowestPrice: msgPageLowestPrice, BadgeTrending: msgTrending,
}

// messages are the sentences of a product's shown counts and badges; keys
// maps a badge to its sentence where it is not the badge's own.
func (pr printer) messages(p *proofOf, badges []string, keys map[string]string) []Message {
	out := []Message{}
	if p != nil && p.viewsShown {
		out = append(out, pr.count(msgViews, *p.shown.Viewers))
	}
	if p != nil && p.buysShown {
		out = append(out, pr.count(msgPurchases, *p.shown.Purchases))
	}
	for _, b := range badges {
		key := b // badge names are message keys
		if k, ok := keys[b]; ok {
			key = k
		}
		out = append(out, Message{Kind: b, Text: pr.p.Sprintf(key)})
	}
	return out
}
