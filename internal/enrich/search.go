package enrich

import (
	"time"

	"github.com/svc-project/svc"
)

// SearchResponse answers search-enrich: the results in the request's order
// and number.
type SearchResponse struct {
	Query       *string        `json:"query"`
	Results     []SearchResult `json:"results"`
	Language    string         `json:"language"`
	GeneratedAt time.Time      `json:"generated_at"`
}

// SearchResult is one enriched result.
type SearchResult struct {
	Index       int          `json:"index"`
	URL         string       `json:"url"`
	Matched     bool         `json:"matched"`
	Match       *MatchInfo   `json:"match"`
	SocialProof *SocialProof `json:"social_proof"`
	Reason      string       `json:"reason,omitempty"`
	Badges      []string     `json:"badges"`
	Messages    []Message    `json:"messages"`
	Badge       *Badge       `json:"badge"` // what an extension shows beside the result
}

// Search enriches a result list. The query is echoed and never kept.
func (s *Service) Search(req *svc.SearchEnrichRequest, acceptLanguage string) *SearchResponse {
	now := s.counts.Now()
	m := s.matcher()
	locale := ""
	if req.UserContext.Locale != nil {
		locale = *req.UserContext.Locale
	}
	lang := Language(locale, acceptLanguage)
	out := &SearchResponse{Query: req.Query, Results: make([]SearchResult, len(req.Results)), Language: lang.String(), GeneratedAt: now.UTC()}
	proofs := make([]*proofOf, len(req.Results))
	// The same title asked again on one site has the same answer: a
	// request of 50 copies costs one lookup (docs/enrichment.md, Speed).
	type asked struct {
		title, gtin, mpn, maker string
		brand                   *svc.Brand
	}
	type answer struct {
		found Found
		ok    bool
	}
	seen := map[asked]answer{}
	for i, r := range req.Results {
		res := &out.Results[i]
		res.Index, res.URL, res.Badges = i, deref(r.URL), []string{}
		page := Page{Title: deref(r.Title), URL: deref(r.URL), Domain: deref(r.Domain),
			GTIN: gtin14(r.GTIN), MPN: deref(r.MPN), Maker: deref(r.Brand), MinConfidence: deref(req.MinConfidence)}
		b := m.BrandOf(page.URL, page.Domain)
		found, ok := m.byURL(page, b)
		if !ok {
			k := asked{page.Title, page.GTIN, page.MPN, page.Maker, b}
			a, done := seen[k]
			if !done {
				a.found, a.ok = m.inCatalog(page, b)
				seen[k] = a
			}
			found, ok = a.found, a.ok
		}
		if !ok {
			res.Reason = ReasonNoMatch
			continue
		}
		p := s.proof(found.Product, now)
		proofs[i] = &p
		res.Matched, res.Match, res.SocialProof = true, s.matchInfo(found, p.brand), &p.shown
	}
	badges := searchBadges(req.Results, proofs)
	pr := newPrinter(lang)
	for i := range out.Results {
		out.Results[i].Badges = append(out.Results[i].Badges, badges[i]...)
		out.Results[i].Messages = pr.messages(proofs[i], badges[i], nil)
		out.Results[i].Badge = searchBadge(lang, proofs[i], out.Results[i].Messages)
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// searchBadges compares the results with each other. most_viewed and
// most_purchased go to the one matched result whose count is shown and
// strictly above every other matched result's, when at least two matched;
// lowest_price to the one result strictly cheapest among at least two
// priced in its currency; trending to each matched result whose last hour
// is well above its usual hour.
func searchBadges(results []svc.SearchResult, proofs []*proofOf) [][]string {
	badges := make([][]string, len(results))
	award := func(badge string, count func(*proofOf) (int64, bool)) {
		best, bestI, matched := int64(-1), -1, 0
		for i, p := range proofs {
			if p == nil {
				continue
			}
			matched++
			n, _ := count(p)
			switch {
			case n > best:
				best, bestI = n, i
			case n == best:
				bestI = -1 // a tie has no winner
			}
		}
		if matched < 2 || bestI < 0 {
			return
		}
		if _, shown := count(proofs[bestI]); shown && best > 0 {
			badges[bestI] = append(badges[bestI], badge)
		}
	}
	award(BadgeMostViewed, func(p *proofOf) (int64, bool) { return p.viewers, p.viewsShown })
	award(BadgeMostPurchased, func(p *proofOf) (int64, bool) { return p.purchases, p.buysShown })

	type cheapest struct {
		price float64
		i, n  int
	}
	byCurrency := map[string]*cheapest{}
	for i, r := range results {
		if r.Price == nil || r.Currency == nil {
			continue
		}
		c := byCurrency[*r.Currency]
		switch {
		case c == nil:
			byCurrency[*r.Currency] = &cheapest{price: *r.Price, i: i, n: 1}
			continue
		case *r.Price < c.price:
			c.price, c.i = *r.Price, i
		case *r.Price == c.price:
			c.i = -1
		}
		c.n++
	}
	for _, c := range byCurrency {
		if c.n >= 2 && c.i >= 0 {
			badges[c.i] = append(badges[c.i], BadgeLowestPrice)
		}
	}
	for i, p := range proofs {
		if p != nil && p.trending {
			badges[i] = append(badges[i], BadgeTrending)
		}
	}
	return badges
}
