package tracker

// PricesPaid returns how many priced purchases of a product the tracker
// holds in the currency, for the package's external tests.
func PricesPaid(tr *Tracker, brandID, productID, currency string) int {
	ref, ok := tr.products.Ref(brandID, productID)
	if !ok {
		return 0
	}
	return tr.prices.Stats(ref, tr.Now().Add(-PriceWindow), currency).Purchases
}
