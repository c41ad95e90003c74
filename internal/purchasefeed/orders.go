package purchasefeed

import (
	"context"
	"time"

	"github.com/svc-project/svc"
)

// AddOrder records the products of an accepted order, which the feed keeps
// if it is keyed. Its place is its country and city; a city without its
// country is no place to show.
func (f *Feed) AddOrder(e *svc.PurchaseEvent, lines []svc.Line) {
	country, city := deref(e.Context.Country), deref(e.Context.City)
	if country == "" {
		city = ""
	}
	ps := make([]svc.RecentPurchase, len(lines))
	for i, l := range lines {
		ps[i] = svc.RecentPurchase{BrandID: e.BrandID, Order: e.Meta.EventID, Product: l.Product, Time: e.Meta.Time,
			Units: l.Units, Country: country, City: city, Keyed: e.Meta.Keyed}
	}
	f.Add(ps...) // together: the feed counts an order's lines as one order
}

// CancelLine takes out what a cancellation removed: the order's product
// goes when none of it is left.
func (f *Feed) CancelLine(r svc.CancelRecord) {
	units := r.Units
	if r.Orders > 0 {
		units = 0 // the whole line
	}
	f.Cancel(r.OrderEventID, r.Product, units)
}

// Load reads the purchases of the last svc.MaxRecentWindow before now from
// the store's reader, as a start or a recount does.
func (f *Feed) Load(ctx context.Context, r svc.EventReader, now time.Time) error {
	defer f.Trim()
	return r.RecentPurchases(ctx, now.Add(-svc.MaxRecentWindow), func(p svc.RecentPurchase) error {
		f.Add(p) // a city without its country is no place (add)
		return nil
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
