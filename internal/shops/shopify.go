package shops

import (
	"encoding/json"
	"strings"

	"github.com/svc-project/svc"
)

// Shopify's webhook headers and the topics svc reads
// (https://shopify.dev/docs/apps/build/webhooks).
const (
	ShopifySignatureHeader = "X-Shopify-Hmac-Sha256"
	ShopifyTopicHeader     = "X-Shopify-Topic"
	ShopifyWebhookIDHeader = "X-Shopify-Webhook-Id"
)

// shopifyOrder is the part of Shopify's order resource that svc reads;
// the customer, addresses but the shipping one's country and city, and
// everything else are never decoded.
type shopifyOrder struct {
	ID          id            `json:"id"`
	Currency    *string       `json:"currency"`
	TotalPrice  amount        `json:"total_price"`
	CreatedAt   *string       `json:"created_at"`
	CancelledAt *string       `json:"cancelled_at"`
	Test        bool          `json:"test"`
	LineItems   []shopifyLine `json:"line_items"`
	// The cart's attributes at checkout: svc.js writes the shopper's
	// session into _svc_session (docs/integrations.md, Sessions).
	NoteAttributes json.RawMessage `json:"note_attributes"`
	Shipping       *struct {
		CountryCode *string `json:"country_code"`
		City        *string `json:"city"`
	} `json:"shipping_address"`
}

type shopifyLine struct {
	ID        id      `json:"id"`
	ProductID id      `json:"product_id"`
	VariantID id      `json:"variant_id"`
	SKU       *string `json:"sku"`
	Title     *string `json:"title"`
	Quantity  int64   `json:"quantity"`
	Price     amount  `json:"price"`
}

type shopifyRefund struct {
	ID              id `json:"id"`
	OrderID         id `json:"order_id"`
	RefundLineItems []struct {
		LineItemID id           `json:"line_item_id"`
		Quantity   int64        `json:"quantity"`
		LineItem   *shopifyLine `json:"line_item"`
	} `json:"refund_line_items"`
}

// Shopify reads a Shopify webhook of the topic for the brand:
// orders/create counts the order, orders/cancelled takes it out, and
// refunds/create takes out the refunded units of its lines. Other topics
// are ignored, and so is a body that contradicts its topic (the topic
// header is not signed). docs/integrations.md has the table. An error is
// an EINVALID naming the body's bad field.
func Shopify(brandID, topic string, body []byte) (*Action, error) {
	switch topic {
	case "orders/create", "orders/cancelled":
		var o shopifyOrder
		if err := json.Unmarshal(body, &o); err != nil {
			return nil, bodyError(err)
		}
		if o.ID == "" {
			return nil, svc.Invalid([]svc.FieldError{{Field: "id", Message: "is required"}})
		}
		if o.Test {
			return ignore("order %s is a test order", o.ID), nil
		}
		cancelled := o.CancelledAt != nil && *o.CancelledAt != ""
		switch {
		case topic == "orders/create" && !cancelled:
			return shopifyPurchase(brandID, &o), nil
		case !cancelled:
			// The topic header is not signed, the body is: a signed order
			// replayed under orders/cancelled must not cancel it.
			return ignore("the body contradicts the topic: order %s has no cancelled_at", o.ID), nil
		}
		// The cancel path records a cancellation that overtakes its
		// order, so that the order never counts.
		return &Action{Kind: Cancel, OrderID: string(o.ID)}, nil
	case "refunds/create":
		var r shopifyRefund
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, bodyError(err)
		}
		if r.OrderID == "" || r.ID == "" {
			return nil, svc.Invalid([]svc.FieldError{{Field: "order_id", Message: "and id are required"}})
		}
		a := &Action{Kind: Cancel, OrderID: string(r.OrderID), CancelID: "refund:" + string(r.ID), Items: []CancelItem{}}
		for _, l := range r.RefundLineItems {
			if l.LineItem == nil || l.LineItem.ProductID == "" || l.Quantity < 1 {
				continue // a line of no product was never counted
			}
			a.Items = addUnits(a.Items, string(l.LineItem.ProductID), l.Quantity)
		}
		if len(a.Items) == 0 {
			return ignore("refund %s returns no units (a refund of shipping or an amount)", r.ID), nil
		}
		return a, nil
	}
	return ignore("topic %q is not one svc reads", topic), nil
}

func shopifyPurchase(brandID string, o *shopifyOrder) *Action {
	var b lineBuilder
	for _, l := range o.LineItems {
		if l.ProductID == "" || l.Quantity < 1 {
			continue // a custom line names no product page
		}
		b.add(string(l.ProductID), l.SKU, l.Title, l.Quantity, l.Price.v, string(l.VariantID))
	}
	var country, city *string
	if s := o.Shipping; s != nil {
		country, city = s.CountryCode, s.City
	}
	a := purchase(brandID, string(o.ID), o.Currency, o.TotalPrice.v, o.CreatedAt, &b, country, city)
	if a.Order != nil {
		a.Order.Context.SessionID = o.session()
	}
	return a
}

// SessionAttribute is the cart attribute svc.js writes the session into;
// the underscore hides it from the shopper at checkout.
const SessionAttribute = "_svc_session"

// session returns the order's svc session: its _svc_session note
// attribute, if it is an id svc accepts; nil otherwise. Anyone can write a
// cart's attributes, so attributes of another shape are no session rather
// than a refused webhook that Shopify would retry in vain. A forged one at
// most attributes this real order to another session (docs/security.md).
func (o *shopifyOrder) session() *string {
	var attrs []struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(o.NoteAttributes, &attrs) != nil {
		return nil
	}
	for _, a := range attrs {
		var v string
		if a.Name == SessionAttribute && json.Unmarshal(a.Value, &v) == nil {
			return cleanID(&v)
		}
	}
	return nil
}

// addUnits adds units of a product to items, one entry per product.
func addUnits(items []CancelItem, productID string, q int64) []CancelItem {
	for i := range items {
		if items[i].ProductID == productID {
			items[i].Quantity += q
			return items
		}
	}
	return append(items, CancelItem{ProductID: productID, Quantity: q})
}

// bodyError names the field of a body that did not decode.
func bodyError(err error) error {
	if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
		return svc.Invalid([]svc.FieldError{{Field: te.Field, Message: "must not be a JSON " + te.Value}})
	}
	return svc.Errorf(svc.EINVALID, "the body is not the JSON of an order: %s", strings.TrimPrefix(err.Error(), "json: "))
}
