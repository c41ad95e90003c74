package tracker

import "github.com/svc-project/svc/internal/enrich"

// PricesPaid returns how many priced purchases of a product the tracker
// holds in the currency, for the package's external tests.
func PricesPaid(tr *Tracker, brandID, productID, currency string) int {
	ref, ok := tr.products.Ref(brandID, productID)
	if !ok {
		return 0
	}
	return pricesOf(tr).Prices(ref, currency, tr.Now()).Purchases
}

// pricesOf is the catalog the tests give a tracker, which holds its prices.
func pricesOf(tr *Tracker) *enrich.Catalog { return tr.cat.(*enrich.Catalog) }
