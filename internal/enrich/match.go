package enrich

import (
	"net/url"

	"github.com/svc-project/svc"

	"github.com/svc-project/svc/internal/match"
	"github.com/svc-project/svc/internal/urlcanon"
)

// Match methods (docs/enrichment.md, Matching).
const (
	MethodURL   = "url"
	MethodTitle = "title"
)

// Found is a product a page or a result names, and how it was found.
type Found struct {
	match.Hit
	Method string
}

// Matcher finds the product a page or a search result names (docs/enrichment.md, Matching):
// first by its canonical URL among the pages seen in events; then by its
// domain to a brand, and its title within that brand's catalog.
type Matcher struct {
	Index *match.Index
	Dir   *match.Directory
}

// Match returns the product, or false when none is sure enough. A page
// matched by its address must be on the product's own brand's site, or on
// no brand's: an anonymous event cannot lend one shop's counts to another's
// pages.
func (m Matcher) Match(title, rawURL, domain string) (Found, bool) {
	if domain == "" {
		if u, err := url.Parse(rawURL); err == nil {
			domain = u.Hostname()
		}
	}
	var b *svc.Brand
	if domain != "" {
		b = m.Dir.Brand(domain)
	}
	if c, ok := urlcanon.URL(rawURL); ok {
		brandID := ""
		if b != nil {
			brandID = b.ID
		}
		if p, ok := m.Index.ByURL(brandID, c); ok {
			return Found{Hit: match.Hit{Product: p, Confidence: 1}, Method: MethodURL}, true
		}
	}
	if title == "" || b == nil {
		return Found{}, false
	}
	found, ok := m.Index.ByTitle(b.ID, title, m.Dir.OwnWords(b.ID))
	if !ok {
		return Found{}, false
	}
	return Found{Hit: found, Method: MethodTitle}, true
}

// BrandOf returns the brand whose site a page is on, or nil.
func (m Matcher) BrandOf(rawURL, domain string) *svc.Brand {
	if domain == "" {
		if u, err := url.Parse(rawURL); err == nil {
			domain = u.Hostname()
		}
	}
	if domain == "" {
		return nil
	}
	return m.Dir.Brand(domain)
}
