package sqlstore

import "context"

// currencyOrders is how many of a brand's latest orders its currency is
// read from: a page reads a bounded number of orders, whatever the
// brand's size (a scan of 100,000 took most of a reading).
const currencyOrders = 1000

// BrandCurrency returns the currency most of the brand's latest orders
// with a line left give, "" without any (rollup.Store). The orders are
// found by their index on (brand_id, ts), migration 00028.
func (s *Store) BrandCurrency(ctx context.Context, brandID string) (string, error) {
	var c string
	err := s.r.QueryRow(ctx, `SELECT currency FROM (SELECT e.currency FROM purchase_events e
		WHERE e.brand_id = ? AND e.currency IS NOT NULL
		AND EXISTS (SELECT 1 FROM purchase_items i WHERE i.purchase = e.id AND i.quantity > 0)
		ORDER BY e.ts DESC LIMIT ?) latest GROUP BY currency ORDER BY count(*) DESC, currency LIMIT 1`,
		brandID, currencyOrders).Scan(&c)
	if NoRows(err) {
		return "", nil
	}
	return c, err
}
