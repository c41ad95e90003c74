// Package match finds the product a page or a search result names: by its
// canonical URL, or by its title within a brand, and the same product at
// other brands (docs/enrichment.md). It holds every product's title,
// address and SKU in memory, fed by the tracker as events commit.
//
// Its files are in three layers, each named by its prefix:
//
//   - engine_*.go, the storage engine: the products held with no pointer
//     per product (an arena of strings, entries, internal/hashtable tables
//     by address, SKU, word and identifier, postings of each word), the
//     cache of analysed titles, Put, Load and compact. It knows nothing of
//     what makes two titles one product.
//   - features_*.go, the text features: folding and words (Words), and
//     what a title says (analyze: codes, measures, colours, variants) and
//     how two titles differ (veto, pairFeatures). They work on titles
//     alone, never on the index (TestLayers).
//   - rules_*.go, the decision rules: word weights from the index's
//     counts, gathering candidates, the tiers (strict, code, same words)
//     and the learned model, lookups and offers.
//
// directory.go maps shop domains to brands.
package match
