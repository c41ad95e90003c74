package httpapi

import (
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"golang.org/x/time/rate"

	"github.com/svc-project/svc"
)

// Budget limits what anonymous events create, not how many requests they
// are: one purchase of 500 new products is 500 products (docs/decisions.md,
// Abuse). Keyed events are brands' servers: exempt.
// A zero field is no limit.
type Budget struct {
	// NewProductsPerAddress and NewProductsPerBrand are how many products
	// anonymous events may register a minute, per client address (an IPv6
	// /64) and per brand; as many may come at once.
	NewProductsPerAddress float64
	NewProductsPerBrand   float64
	LinesPerOrder         int // lines of one anonymous order
	UnitsPerLine          int // quantity of one line of an anonymous order
}

// budgets holds the token buckets of the new-product budgets.
type budgets struct {
	cfg     Budget
	addrs   *buckets[netip.Addr]
	brands  *buckets[string]
	addrOf  func(*http.Request) netip.Addr
	isKnown func(brandID, productID string) bool
}

func newBudgets(cfg Budget, proxies RateLimit, isKnown func(brandID, productID string) bool) *budgets {
	return &budgets{cfg: cfg, addrs: perMinute[netip.Addr](cfg.NewProductsPerAddress), brands: perMinute[string](cfg.NewProductsPerBrand),
		addrOf: (&limiter{cfg: proxies}).clientIP, isKnown: isKnown}
}

// OrderFields reports the lines and units of an anonymous order over the
// budget, as bad fields (collect.Budget).
func (b *budgets) OrderFields(e *svc.PurchaseEvent) []svc.FieldError {
	var fields []svc.FieldError
	if n := b.cfg.LinesPerOrder; n > 0 && len(e.Order.Items) > n {
		fields = append(fields, svc.FieldError{Field: "order.items",
			Message: fmt.Sprintf("an anonymous order has at most %d lines (--anon-max-lines); send larger orders with an API key", n)})
	}
	if n := b.cfg.UnitsPerLine; n > 0 {
		for i, it := range e.Order.Items {
			if it.Quantity != nil && *it.Quantity > int64(n) {
				fields = append(fields, svc.FieldError{Field: fmt.Sprintf("order.items[%d].quantity", i),
					Message: fmt.Sprintf("a line of an anonymous order has at most %d units (--anon-max-units); send larger orders with an API key", n)})
			}
		}
	}
	return fields
}

// TakeNewProducts charges an anonymous write that may register products
// for those it names that are not known yet, to the address of its
// request (sender) and its brand (collect.Budget). Over either budget,
// nothing is charged and it returns ERATELIMIT and the wait for
// Retry-After.
func (b *budgets) TakeNewProducts(sender any, wr *svc.Write, now time.Time) (time.Duration, error) {
	if b.addrs == nil && b.brands == nil {
		return 0, nil
	}
	brandID, _ := wr.Event()
	n := 0
	if v := wr.View; v != nil {
		if !b.knownAny(brandID, &v.Product) {
			n = 1
		}
	} else if c := wr.Cart; c != nil {
		if !b.knownAny(brandID, &c.Product) {
			n = 1
		}
	} else {
		seen := make(map[string]bool, len(wr.Purchase.Order.Items))
		for _, it := range wr.Purchase.Order.Items {
			if !seen[it.ProductID] && !b.isKnown(brandID, it.ProductID) {
				n++
			}
			seen[it.ProductID] = true
		}
	}
	if n == 0 {
		return 0, nil
	}
	ra, wait, ok := reserve(b.addrs, subscriber(b.addrOf(sender.(*http.Request))), n, now)
	if !ok {
		return wait, refuse("this address", b.cfg.NewProductsPerAddress, "--anon-new-products-per-address")
	}
	if _, wait, ok := reserve(b.brands, brandID, n, now); !ok {
		ra.cancel(now)
		return wait, refuse("the brand", b.cfg.NewProductsPerBrand, "--anon-new-products-per-brand")
	}
	return 0, nil
}

// knownAny reports whether the product's id or one of its aliases names a
// known product, which an anonymous event counts under (svc names.go).
func (b *budgets) knownAny(brandID string, p *svc.ViewProduct) bool {
	if b.isKnown(brandID, p.ProductID) {
		return true
	}
	for _, a := range p.Aliases {
		if b.isKnown(brandID, a) {
			return true
		}
	}
	return false
}

func refuse(who string, perMinute float64, flag string) error {
	return svc.Errorf(svc.ERATELIMIT, "anonymous events from %s may create %g new products a minute (%s); retry after the time in Retry-After, or send an API key", who, perMinute, flag)
}

// perMinute returns buckets refilled at n a minute, holding a minute's
// worth; nil, which reserves everything, for no limit.
func perMinute[K comparable](n float64) *buckets[K] {
	if n <= 0 {
		return nil
	}
	return newBuckets[K](rate.Limit(n/60), int(n))
}

// reservation is tokens taken, which cancel gives back.
type reservation struct{ r *rate.Reservation }

func (r reservation) cancel(now time.Time) {
	if r.r != nil {
		r.r.CancelAt(now)
	}
}

// reserve takes n tokens for k. When they are not all there, it takes
// none and returns how long until they would be (a minute when n is more
// than a bucket holds), and false.
func reserve[K comparable](x *buckets[K], k K, n int, now time.Time) (reservation, time.Duration, bool) {
	if x == nil {
		return reservation{}, 0, true
	}
	r := x.Get(k, now).ReserveN(now, n)
	if !r.OK() {
		return reservation{}, time.Minute, false
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return reservation{}, d, false
	}
	return reservation{r}, 0, true
}
