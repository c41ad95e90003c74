package svc

import "time"

// CartEvent is one add-to-cart (docs/spec.md, Add to cart): a view's body
// with the quantity added. Its rules are a view's.
type CartEvent struct {
	BrandID  string
	Product  ViewProduct
	Context  ViewContext
	Quantity *int64 // nil: 1

	Meta EventMeta
}

// Validate returns every bad field of the cart event, or nil.
func (e *CartEvent) Validate() []FieldError {
	v := ViewEvent{BrandID: e.BrandID, Product: e.Product, Context: e.Context}
	fe := fieldErrors(v.Validate())
	if q := e.Quantity; q != nil && (*q < 1 || *q > MaxQuantity) {
		fe.add("Quantity", "must be an integer from 1 to %d", MaxQuantity)
	}
	return fe
}

// Units returns the quantity added, 1 when not given.
func (e *CartEvent) Units() int64 {
	if e.Quantity == nil {
		return 1
	}
	return *e.Quantity
}

// CartRecord is a stored add-to-cart, as the counts need it.
type CartRecord struct {
	Product   ProductRef
	Time      time.Time
	SessionID string
}

// Cart windows: carts_last_N_min is over window_carts minutes.
const (
	DefaultCartWindow = time.Hour
	MaxCartWindow     = MaxViewWindow
)

// DefaultNowWindow is how far back the proof's viewers_now looks unless
// the server is told otherwise.
const (
	DefaultNowWindow = 5 * time.Minute
	MaxNowWindow     = time.Hour // "now" it is no longer
)
