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
	Query       *string
	Results     []SearchResult
	UserContext UserContext
	// MinConfidence is the least confidence of a match by title
	// (docs/enrichment.md, Matching); absent, the default.
	MinConfidence *float64
}

// SearchResult is one entry of a search result list.
type SearchResult struct {
	Title    *string
	URL      *string
	Price    *float64
	Currency *string
	Domain   *string
	GTIN     *string
	MPN      *string
	Brand    *string
}

// UserContext is what the shopper's extension says about the shopper.
type UserContext struct {
	Country *string
	Locale  *string
}

// Validate returns every bad field of the request, or nil.
func (r *SearchEnrichRequest) Validate() []FieldError {
	var fe fieldErrors
	switch {
	case r.Query == nil:
	case utf8.RuneCountInString(*r.Query) > MaxQueryLen:
		fe.add("Query", "must be at most %d characters", MaxQueryLen)
	case hasControl(*r.Query):
		fe.add("Query", controlMessage)
	}
	switch {
	case r.Results == nil: // absent or null; [] is fine
		fe.add("Results", "is required: an array of 0 to %d results", MaxSearchResults)
	case len(r.Results) > MaxSearchResults:
		fe.add("Results", "must have at most %d results", MaxSearchResults)
	}
	for i := range r.Results {
		if i == MaxSearchResults {
			break
		}
		res := &r.Results[i]
		p := fmt.Sprintf("Results[%d].", i)
		if res.URL == nil {
			fe.add(p+"URL", "is required")
		}
		fe.url(p+"URL", res.URL)
		fe.title(p+"Title", res.Title)
		fe.amount(p+"Price", res.Price)
		fe.pattern(p+"Currency", res.Currency, isCurrency, "three upper-case letters, such as EUR")
		fe.domain(p+"Domain", res.Domain)
		fe.identifiers(p, res.GTIN, res.MPN, res.Brand)
	}
	fe.userContext("UserContext.", r.UserContext.Country, r.UserContext.Locale)
	fe.confidence("MinConfidence", r.MinConfidence)
	return fe
}

// ProductEnrichRequest is a product in its page context (docs/spec.md, Product enrichment).
type ProductEnrichRequest struct {
	Context       PageContext
	Product       PageProduct
	MinConfidence *float64
}

// PageContext is where the product is shown. Locale is our
// addition (docs/spec.md, Product enrichment); without it, a shopper's
// language comes from Accept-Language.
type PageContext struct {
	Domain  *string
	URL     *string
	Country *string
	Locale  *string
}

// PageProduct is the product as the page shows it.
type PageProduct struct {
	Title    *string
	Brand    *string
	SKU      *string
	Price    *float64
	Currency *string
	GTIN     *string
	MPN      *string
}

// Validate returns every bad field of the request, or nil.
func (r *ProductEnrichRequest) Validate() []FieldError {
	var fe fieldErrors
	if r.Context.URL == nil && r.Product.Title == nil {
		fe.add("Context.URL", "is required unless the product's title is given")
		fe.add("Product.Title", "is required unless the page's URL is given")
	}
	fe.domain("Context.Domain", r.Context.Domain)
	fe.url("Context.URL", r.Context.URL)
	fe.userContext("Context.", r.Context.Country, r.Context.Locale)
	fe.title("Product.Title", r.Product.Title)
	switch {
	case r.Product.Brand == nil:
	case utf8.RuneCountInString(*r.Product.Brand) > MaxIDLen:
		fe.add("Product.Brand", "must be at most %d characters", MaxIDLen)
	case hasControl(*r.Product.Brand):
		fe.add("Product.Brand", controlMessage)
	}
	fe.optID("Product.SKU", r.Product.SKU)
	fe.gtin("Product.GTIN", r.Product.GTIN)
	fe.name("Product.MPN", r.Product.MPN)
	fe.amount("Product.Price", r.Product.Price)
	fe.pattern("Product.Currency", r.Product.Currency, isCurrency, "three upper-case letters, such as EUR")
	fe.confidence("MinConfidence", r.MinConfidence)
	return fe
}

func (fe *fieldErrors) domain(field string, v *string) {
	if v != nil && (len(*v) > MaxDomainLen || !domainRe.MatchString(*v)) {
		fe.add(field, "must be a host name, such as shop.example")
	}
}

func (fe *fieldErrors) userContext(prefix string, country, locale *string) {
	fe.pattern(prefix+"Country", country, isCountry, "two upper-case letters, such as DE")
	fe.pattern(prefix+"Locale", locale, isLocale, "a language-region tag of the form xx-XX, such as de-DE")
}
