package wire

import "github.com/svc-project/svc"

// SearchEnrich is the body of a search enrichment (docs/spec.md, Search
// enrichment): a query with its results.
type SearchEnrich struct {
	Query         *string        `json:"query"`
	Results       []SearchResult `json:"results"`
	UserContext   UserContext    `json:"user_context"`
	MinConfidence *float64       `json:"min_confidence"`
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

// Request is the request the body describes. Results keeps nil apart
// from empty, which validation tells apart.
func (s *SearchEnrich) Request() *svc.SearchEnrichRequest {
	return &svc.SearchEnrichRequest{Query: s.Query, UserContext: svc.UserContext(s.UserContext), MinConfidence: s.MinConfidence,
		Results: each(s.Results, func(r SearchResult) svc.SearchResult { return svc.SearchResult(r) })}
}

// ProductEnrich is the body of a product enrichment (docs/spec.md, Product
// enrichment): a product in its page's context.
type ProductEnrich struct {
	Context       PageContext `json:"context"`
	Product       PageProduct `json:"product"`
	MinConfidence *float64    `json:"min_confidence"`
}

// PageContext is where the product is shown; locale is our addition.
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

// Request is the request the body describes.
func (p *ProductEnrich) Request() *svc.ProductEnrichRequest {
	return &svc.ProductEnrichRequest{Context: svc.PageContext(p.Context), Product: svc.PageProduct(p.Product), MinConfidence: p.MinConfidence}
}
