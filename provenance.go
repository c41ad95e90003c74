package svc

import (
	"net/url"
	"strings"
)

// Provenance: what an event may say depends on where it came from
// (docs/security.md, Provenance). An event is keyed when it came with the
// brand's API key, through the brand's signed platform webhook, or in its
// operator's import; else it is anonymous, from any browser or script.
//
// An anonymous event counts a view, an add-to-cart or a purchase, at the
// time it was received. It never enters the recent purchases feed and
// carries no city. The product attributes it gives are provisional: they
// fill only attributes no keyed event has set, and are shown to no shopper
// and no other brand (Product.Verified). A product URL from any source is
// kept only on one of its brand's domains.

// Attrs is a set of a product's attributes.
type Attrs uint8

// The attributes of a product that events set.
const (
	AttrSKU Attrs = 1 << iota
	AttrTitle
	AttrURL
	AttrGTIN
	AttrMPN
	AttrMaker
)

// Admit applies the rules of the event's source that need its brand, b, to
// a validated write, before it is stored: every entry point (single
// collect, batch, webhooks, import) calls it once it knows the brand. A
// product URL off the brand's domains is dropped, from any source, and the
// event still counts: a count is never lost over a link, and a brand that
// only sends from its servers may have no domains at all. An anonymous
// order's city is dropped. The rules that need the stored product are
// Decide's (Product.Update).
func Admit(w *Write, b *Brand) {
	_, meta := w.Event()
	var p *ViewProduct
	switch {
	case w.View != nil:
		p = &w.View.Product
	case w.Cart != nil:
		p = &w.Cart.Product
	case !meta.Keyed:
		w.Purchase.Context.City = nil // never a place for the feed, nor counted toward its k
	}
	if p != nil && p.URL != nil && !b.OwnsURL(*p.URL) {
		p.URL = nil
	}
}

// OwnsURL reports whether an absolute http or https URL is on one of the
// brand's domains or their subdomains: the only links svc stores or shows
// for the brand's products. It is checked again where a link is shown,
// since a brand's domains change.
func (b *Brand) OwnsURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return false
	}
	for _, d := range b.Domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// Given returns the attributes p sets (not nil).
func (p *Product) Given() Attrs {
	var a Attrs
	for _, f := range p.attrs() {
		if *f.v != nil {
			a |= f.a
		}
	}
	return a
}

// VerifiedOnly returns p with only its verified attributes: what shoppers
// and other brands may see of it (the search index, offers, the feed).
func (p *Product) VerifiedOnly() *Product { return p.unverified(^p.Verified) }

// unverified returns p without the attributes in v.
func (p *Product) unverified(v Attrs) *Product {
	out := *p
	for _, f := range out.attrs() {
		if v&f.a != 0 {
			*f.v = nil
		}
	}
	return &out
}

type attr struct {
	a Attrs
	v **string
}

func (p *Product) attrs() [6]attr {
	return [6]attr{{AttrSKU, &p.SKU}, {AttrTitle, &p.Title}, {AttrURL, &p.URL}, {AttrGTIN, &p.GTIN}, {AttrMPN, &p.MPN}, {AttrMaker, &p.Maker}}
}
