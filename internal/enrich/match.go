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
	MethodGTIN  = match.MethodGTIN
	MethodMPN   = match.MethodMPN
	MethodTitle = match.MethodTitle
)

// Found is a product a page or a result names, and how it was found.
type Found struct {
	match.Hit
	Method string
}

// Matcher finds the product a page or a search result names (docs/enrichment.md, Matching):
// first by its canonical URL among the pages seen in events; then by its
// domain to a brand, and its identifiers or title within that brand's
// catalog.
type Matcher struct {
	Index *match.Index
	Dir   *match.Directory
}

// Page is what a page or a search result says of the product.
type Page struct {
	Title, URL, Domain string
	GTIN, MPN, Maker   string // GTIN as GTIN-14
	MinConfidence      float64
}

// Match returns the product, or false when none is sure enough.
func (m Matcher) Match(title, rawURL, domain string) (Found, bool) {
	return m.Find(Page{Title: title, URL: rawURL, Domain: domain})
}

// Find returns the product of a page, or false when none is sure enough. A
// page matched by its address must be on the product's own brand's site, or
// on no brand's: an anonymous event cannot lend one shop's counts to
// another's pages.
func (m Matcher) Find(p Page) (Found, bool) {
	b := m.BrandOf(p.URL, p.Domain)
	if found, ok := m.byURL(p, b); ok {
		return found, true
	}
	return m.inCatalog(p, b)
}

func (m Matcher) byURL(p Page, b *svc.Brand) (Found, bool) {
	c, ok := urlcanon.URL(p.URL)
	if !ok {
		return Found{}, false
	}
	brandID := ""
	if b != nil {
		brandID = b.ID
	}
	found, ok := m.Index.ByURL(brandID, c)
	if !ok {
		return Found{}, false
	}
	return Found{Hit: match.Hit{Product: found, Confidence: 1, Method: MethodURL}, Method: MethodURL}, true
}

// inCatalog finds the page's product in its brand's catalog, by its
// identifiers or its title; the page's address plays no part.
func (m Matcher) inCatalog(p Page, b *svc.Brand) (Found, bool) {
	if b == nil || p.Title == "" && p.GTIN == "" && p.MPN == "" {
		return Found{}, false
	}
	found, ok := m.Index.Lookup(b.ID, match.Query{Title: p.Title, GTIN: p.GTIN, MPN: p.MPN, Maker: p.Maker,
		Drop: m.Dir.OwnWords(b.ID), MinConfidence: p.MinConfidence})
	if !ok {
		return Found{}, false
	}
	return Found{Hit: found, Method: found.Method}, true
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

// gtin14 is a request's GTIN as GTIN-14, "" when absent (a bad one is
// refused before).
func gtin14(v *string) string {
	if v == nil {
		return ""
	}
	g, _ := svc.GTIN14(*v)
	return g
}
