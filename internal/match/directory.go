package match

import (
	"strings"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/urlcanon"
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
		for _, w := range Words(b.Name) {
			words[w] = true
		}
		for _, dom := range b.Domains {
			h := urlcanon.Host(dom)
			if h == "" {
				continue
			}
			if other, claimed := d.byHost[h]; claimed && other != nil && other.ID != b.ID {
				d.byHost[h] = nil // two brands claim the host: it is neither's
			} else if !claimed {
				d.byHost[h] = b
			}
			labels := strings.Split(h, ".")
			for _, w := range Words(strings.Join(labels[:max(1, len(labels)-1)], " ")) {
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
			return b // nil for a host two brands claim
		}
		_, rest, ok := strings.Cut(h, ".")
		if !ok {
			break
		}
		h = rest
	}
	return nil
}

// OwnWords are the words of a brand's name and domains: in a title shown on
// its own site they name the shop, not the product.
func (d *Directory) OwnWords(brandID string) map[string]bool { return d.drop[brandID] }
