package wire

import "github.com/svc-project/svc"

// View is the body of a product view (docs/spec.md, Product view).
type View struct {
	BrandID string      `json:"brand_id"`
	Product ViewProduct `json:"product"`
	Context ViewContext `json:"context"`
}

// ViewProduct is the product of a view or an add-to-cart.
type ViewProduct struct {
	ProductID string   `json:"product_id"`
	SKU       *string  `json:"sku"`
	Title     *string  `json:"title"`
	URL       *string  `json:"url"`
	GTIN      *string  `json:"gtin"`
	MPN       *string  `json:"mpn"`
	Brand     *string  `json:"brand"`
	Aliases   []string `json:"aliases"`
}

// ViewContext is the circumstances of a view or an add-to-cart.
type ViewContext struct {
	Timestamp *string `json:"timestamp"`
	SessionID *string `json:"session_id"`
	Country   *string `json:"country"`
	Locale    *string `json:"locale"`
}

// Event is the view the body describes.
func (v *View) Event() *svc.ViewEvent {
	return &svc.ViewEvent{BrandID: v.BrandID, Product: svc.ViewProduct(v.Product), Context: svc.ViewContext(v.Context)}
}

// Cart is the body of an add-to-cart (docs/spec.md, Add to cart): a view's
// and a quantity.
type Cart struct {
	BrandID  string      `json:"brand_id"`
	Product  ViewProduct `json:"product"`
	Context  ViewContext `json:"context"`
	Quantity *int64      `json:"quantity"`
}

// Event is the add-to-cart the body describes.
func (c *Cart) Event() *svc.CartEvent {
	return &svc.CartEvent{BrandID: c.BrandID, Product: svc.ViewProduct(c.Product), Context: svc.ViewContext(c.Context), Quantity: c.Quantity}
}

// Purchase is the body of a completed order (docs/spec.md, Purchase).
type Purchase struct {
	BrandID string          `json:"brand_id"`
	Order   Order           `json:"order"`
	Context PurchaseContext `json:"context"`
}

// Order is the order of a purchase, and a line of svc import's files.
type Order struct {
	OrderID    string         `json:"order_id"`
	Currency   *string        `json:"currency"`
	TotalValue *float64       `json:"total_value"`
	Items      []PurchaseItem `json:"items"`
}

// PurchaseItem is one line of an order. Its aliases are never read from
// JSON: only keyed sources that know them (the connectors, the import's
// catalogue) set them; the field is here so that a line converts to the
// domain's and back, and the compiler checks that both have the same
// fields.
type PurchaseItem struct {
	ProductID string   `json:"product_id"`
	SKU       *string  `json:"sku"`
	Title     *string  `json:"title"`
	Quantity  *int64   `json:"quantity"`
	UnitPrice *float64 `json:"unit_price"`
	GTIN      *string  `json:"gtin"`
	MPN       *string  `json:"mpn"`
	Brand     *string  `json:"brand"`
	Aliases   []string `json:"-"`
}

// PurchaseContext is the circumstances of a purchase.
type PurchaseContext struct {
	Timestamp *string `json:"timestamp"`
	SessionID *string `json:"session_id"`
	Country   *string `json:"country"`
	City      *string `json:"city"`
}

// Event is the purchase the body describes.
func (p *Purchase) Event() *svc.PurchaseEvent {
	return &svc.PurchaseEvent{BrandID: p.BrandID, Order: p.Order.Order(), Context: svc.PurchaseContext(p.Context)}
}

// Order is the domain's order. Items keeps nil apart from empty, which
// validation tells apart.
func (o *Order) Order() svc.Order {
	return svc.Order{OrderID: o.OrderID, Currency: o.Currency, TotalValue: o.TotalValue,
		Items: each(o.Items, func(it PurchaseItem) svc.PurchaseItem { return svc.PurchaseItem(it) })}
}

// FromOrder is the JSON shape of an order, as svc export writes it.
func FromOrder(o *svc.Order) Order {
	return Order{OrderID: o.OrderID, Currency: o.Currency, TotalValue: o.TotalValue,
		Items: each(o.Items, func(it svc.PurchaseItem) PurchaseItem { return PurchaseItem(it) })}
}

// Cancel is the body of an order cancellation (docs/spec.md, Order
// cancellation). Items left out cancels the whole order.
type Cancel struct {
	BrandID string       `json:"brand_id"`
	OrderID string       `json:"order_id"`
	Items   []CancelItem `json:"items"`
}

// CancelItem is the quantity of one product to take out of an order.
type CancelItem struct {
	ProductID string `json:"product_id"`
	Quantity  *int64 `json:"quantity"`
}

// Event is the cancellation the body describes.
func (c *Cancel) Event() *svc.CancelEvent {
	return &svc.CancelEvent{BrandID: c.BrandID, OrderID: c.OrderID,
		Items: each(c.Items, func(it CancelItem) svc.CancelItem { return svc.CancelItem(it) })}
}

// OrderSession is the body of POST /api/collect/order-session: the
// order-received page's order and key, and its session.
type OrderSession struct {
	BrandID   string `json:"brand_id"`
	OrderID   string `json:"order_id"`
	OrderKey  string `json:"order_key"`
	SessionID string `json:"session_id"`
}

// Link is the link the body describes.
func (o *OrderSession) Link() *svc.OrderSessionLink {
	l := svc.OrderSessionLink(*o)
	return &l
}

// each converts every element of a slice, keeping nil apart from empty.
func each[From, To any](from []From, convert func(From) To) []To {
	if from == nil {
		return nil
	}
	to := make([]To, len(from))
	for i, v := range from {
		to[i] = convert(v)
	}
	return to
}
