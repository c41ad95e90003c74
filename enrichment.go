package svc

import (
	"fmt"
	"regexp"
	"unicode/utf8"
)

// Limits of the enrichment endpoints.
const (
	MaxSearchResults = 50
	MaxQueryLen      = 512
	MaxDomainLen     = 253
)

var domainRe = regexp.MustCompile(`^(?i:[a-z0-9\p{L}](?:[a-z0-9\p{L}_-]{0,62})(?:\.[a-z0-9\p{L}](?:[a-z0-9\p{L}_-]{0,62}))*)\.?$`)

// SearchEnrichRequest is a search query with its results (docs/spec.md, Search enrichment).
type SearchEnrichRequest struct {
	Query       *string        `json:"query"`
	Results     []SearchResult `json:"results"`
	UserContext UserContext    `json:"user_context"`
	// MinConfidence is the least confidence of a match by title
	// (docs/enrichment.md, Matching); absent, the default.
	MinConfidence *float64 `json:"min_confidence"`
}

// SearchResult is one entry of a search result list.
type SearchResult struct {
	Title    *string  `json:"title"`
	URL      *string  `json:"url"`
	Price    *float64 `json:"price"`
	Currency *string  `json:"currency"`
	Domain   *string  `json:"domain"`
	GTIN     *string  `json:"gtin"`
	MPN      *string  `json:"mpn"`
	Brand    *string  `json:"brand"`
}

// UserContext is what the shopper's extension says about the shopper.
type UserContext struct {
	Country *string `json:"country"`
	Locale  *string `json:"locale"`
}

// Validate returns every bad field of the request, or nil.
func (r *SearchEnrichRequest) Validate() []FieldError {
	var fe fieldErrors
	switch {
	case r.Query == nil:
	case utf8.RuneCountInString(*r.Query) > MaxQueryLen:
		fe.add("query", "must be at most %d characters", MaxQueryLen)
	case hasControl(*r.Query):
		fe.add("query", controlMessage)
	}
	switch {
	case r.Results == nil: // absent or null; [] is fine
		fe.add("results", "is required: an array of 0 to %d results", MaxSearchResults)
	case len(r.Results) > MaxSearchResults:
		fe.add("results", "must have at most %d results", MaxSearchResults)
	}
	for i := range r.Results {
		if i == MaxSearchResults {
			break
		}
		res := &r.Results[i]
		p := fmt.Sprintf("results[%d].", i)
		if res.URL == nil {
			fe.add(p+"url", "is required")
		}
		fe.url(p+"url", res.URL)
		fe.title(p+"title", res.Title)
		fe.amount(p+"price", res.Price)
		fe.pattern(p+"currency", res.Currency, isCurrency, "three upper-case letters, such as EUR")
		fe.domain(p+"domain", res.Domain)
		fe.identifiers(p, res.GTIN, res.MPN, res.Brand)
	}
	fe.userContext("user_context.", r.UserContext.Country, r.UserContext.Locale)
	fe.confidence("min_confidence", r.MinConfidence)
	return fe
}

// ProductEnrichRequest is a product in its page context (docs/spec.md, Product enrichment).
type ProductEnrichRequest struct {
	Context       PageContext `json:"context"`
	Product       PageProduct `json:"product"`
	MinConfidence *float64    `json:"min_confidence"`
}

// PageContext is where the product is shown. Locale is our
// addition (docs/spec.md, Product enrichment); without it, a shopper's
// language comes from Accept-Language.
type PageContext struct {
	Domain  *string `json:"domain"`
	URL     *string `json:"url"`
	Country *string `json:"country"`
	Locale  *string `json:"locale"`
}

// PageProduct is the product as the page shows it.
type PageProduct struct {
	Title    *string  `json:"title"`
	Brand    *string  `json:"brand"`
	SKU      *string  `json:"sku"`
	Price    *float64 `json:"price"`
	Currency *string  `json:"currency"`
	GTIN     *string  `json:"gtin"`
	MPN      *string  `json:"mpn"`
}

// Validate returns every bad field of the request, or nil.
func (r *ProductEnrichRequest) Validate() []FieldError {
	var fe fieldErrors
	if r.Context.URL == nil && r.Product.Title == nil {
		fe.add("context.url", "is required unless product.title is given")
		fe.add("product.title", "is required unless context.url is given")
	}
	fe.domain("context.domain", r.Context.Domain)
	fe.url("context.url", r.Context.URL)
	fe.userContext("context.", r.Context.Country, r.Context.Locale)
	fe.title("product.title", r.Product.Title)
	switch {
	case r.Product.Brand == nil:
	case utf8.RuneCountInString(*r.Product.Brand) > MaxIDLen:
		fe.add("product.brand", "must be at most %d characters", MaxIDLen)
	case hasControl(*r.Product.Brand):
		fe.add("product.brand", controlMessage)
	}
	fe.optID("product.sku", r.Product.SKU)
	fe.gtin("product.gtin", r.Product.GTIN)
	fe.name("product.mpn", r.Product.MPN)
	fe.amount("product.price", r.Product.Price)
	fe.pattern("product.currency", r.Product.Currency, isCurrency, "three upper-case letters, such as EUR")
	fe.confidence("min_confidence", r.MinConfidence)
	return fe
}

func (fe *fieldErrors) domain(field string, v *string) {
	if v != nil && (len(*v) > MaxDomainLen || !domainRe.MatchString(*v)) {
		fe.add(field, "must be a host name, such as shop.example")
	}
}

func (fe *fieldErrors) userContext(prefix string, country, locale *string) {
	fe.pattern(prefix+"country", country, isCountry, "two upper-case letters, such as DE")
	fe.pattern(prefix+"locale", locale, isLocale, "a language-region tag of the form xx-XX, such as de-DE")
}
