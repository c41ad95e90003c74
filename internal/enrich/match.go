package enrich

import (
	"net/url"
	"strings"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/catalog"
	"github.com/svc-project/svc/internal/urlcanon"
)

// Match methods (DESIGN 7).
const (
	MethodURL   = "url"
	MethodTitle = "title"
)

// Directory finds the brand whose pages live on a host.
type Directory struct {
	byHost map[string]*svc.Brand
	drop   map[string]map[string]bool // brand id → words of its own name and domains
}

// NewDirectory indexes brands by their domains.
func NewDirectory(brands []*svc.Brand) *Directory {
	d := &Directory{byHost: map[string]*svc.Brand{}, drop: map[string]map[string]bool{}}
	for _, b := range brands {
		words := map[string]bool{}
		for _, w := range catalog.Words(b.Name) {
			words[w] = true
		}
		for _, dom := range b.Domains {
			h := urlcanon.Host(dom)
			if h == "" {
				continue
			}
			d.byHost[h] = b
			labels := strings.Split(h, ".")
			for _, w := range catalog.Words(strings.Join(labels[:max(1, len(labels)-1)], " ")) {
				words[w] = true
			}
		}
		d.drop[b.ID] = words
	}
	return d
}

// Brand returns the brand of a host or of any domain above it
// ("eu.shop.example" is shop.example's), or nil.
func (d *Directory) Brand(host string) *svc.Brand {
	h := urlcanon.Host(host)
	for h != "" {
		if b, ok := d.byHost[h]; ok {
			return b
		}
		_, rest, ok := strings.Cut(h, ".")
		if !ok {
			break
		}
		h = rest
	}
	return nil
}

// Found is a product a page or a result names, and how it was found.
type Found struct {
	catalog.Match
	Method string
}

// Matcher finds the product a page or a search result names (DESIGN 7):
// first by its canonical URL among the pages seen in events; then by its
// domain to a brand, and its title within that brand's catalog.
type Matcher struct {
	Catalog *catalog.Catalog
	Dir     *Directory
}

// Match returns the product, or false when none is sure enough.
func (m Matcher) Match(title, rawURL, domain string) (Found, bool) {
	if c, ok := urlcanon.URL(rawURL); ok {
		if p, ok := m.Catalog.ByURL(c); ok {
			return Found{Match: catalog.Match{Product: p, Confidence: 1}, Method: MethodURL}, true
		}
	}
	if domain == "" {
		if u, err := url.Parse(rawURL); err == nil {
			domain = u.Hostname()
		}
	}
	if title == "" || domain == "" {
		return Found{}, false
	}
	b := m.Dir.Brand(domain)
	if b == nil {
		return Found{}, false
	}
	found, ok := m.Catalog.ByTitle(b.ID, title, m.Dir.drop[b.ID])
	if !ok {
		return Found{}, false
	}
	return Found{Match: found, Method: MethodTitle}, true
}
