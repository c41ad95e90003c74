package shops

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/svc-project/svc"
)

// WooCommerce's webhook headers
// (https://woocommerce.github.io/woocommerce-rest-api-docs/#webhooks).
const (
	WooCommerceSignatureHeader = "X-WC-Webhook-Signature"
	WooCommerceTopicHeader     = "X-WC-Webhook-Topic"
	WooCommerceWebhookIDHeader = "X-WC-Webhook-ID"
	WooCommerceDeliveryHeader  = "X-WC-Webhook-Delivery-ID"
)

// wooOrder is the part of WooCommerce's order resource that svc reads.
type wooOrder struct {
	ID             id        `json:"id"`
	OrderKey       *string   `json:"order_key"`
	Status         string    `json:"status"`
	Currency       *string   `json:"currency"`
	Total          amount    `json:"total"`
	DateCreatedGMT *string   `json:"date_created_gmt"`
	DatePaidGMT    *string   `json:"date_paid_gmt"`
	LineItems      []wooLine `json:"line_items"`
	Shipping       *struct {
		Country *string `json:"country"`
		City    *string `json:"city"`
	} `json:"shipping"`
}

type wooLine struct {
	ProductID   id      `json:"product_id"`
	VariationID id      `json:"variation_id"`
	SKU         *string `json:"sku"`
	Name        *string `json:"name"`
	Quantity    int64   `json:"quantity"`
	Price       amount  `json:"price"`
}

// IsWooCommercePing reports whether a body is the ping WooCommerce sends
// when a webhook is saved: a form of one field, webhook_id=N, unsigned.
func IsWooCommercePing(body []byte) bool {
	v, err := url.ParseQuery(string(body))
	if err != nil || len(v) != 1 || len(v["webhook_id"]) != 1 {
		return false
	}
	w := v.Get("webhook_id")
	return w != "" && strings.Trim(w, "0123456789") == ""
}

// WooCommerce reads a WooCommerce webhook of the topic for the brand
// (docs/integrations.md has the table). WooCommerce builds the body when it
// delivers, so it is the order as it stands, whatever the topic:
//
//   - processing or completed (paid) counts the order;
//   - refunded takes it out for good, and so do cancelled and failed once
//     the order was paid (date_paid_gmt is set);
//   - cancelled or failed before any payment, trash, and order.deleted
//     take out an order svc counted, and are "not counted yet" otherwise:
//     such an order may yet be restored and paid;
//   - pending, on-hold, checkout-draft and other statuses are ignored.
//
// order.deleted's body is the order's id alone; a full order under it
// contradicts the topic (the topic header is not signed) and is ignored.
//
// Whatever it does, an order's action carries the order's key, with which
// its order-received page links it to the shopper's session.
func WooCommerce(brandID, topic string, body []byte) (*Action, error) {
	switch topic {
	case "order.created", "order.updated", "order.deleted", "order.restored":
	default:
		return ignore("topic %q is not one svc reads", topic), nil
	}
	var o wooOrder
	if err := json.Unmarshal(body, &o); err != nil {
		return nil, bodyError(err)
	}
	a, err := wooAction(brandID, topic, body, &o)
	if k := cleanID(o.OrderKey); a != nil && k != nil && topic != "order.deleted" {
		a.OrderID, a.OrderKey = string(o.ID), *k
	}
	return a, err
}

// wooAction is the action of a decoded order (WooCommerce).
func wooAction(brandID, topic string, body []byte, o *wooOrder) (*Action, error) {
	if o.ID == "" {
		return nil, svc.Invalid([]svc.FieldError{{Field: "id", Message: "is required"}})
	}
	if topic == "order.deleted" {
		var fields map[string]json.RawMessage
		if json.Unmarshal(body, &fields) != nil || len(fields) != 1 {
			return ignore("the body contradicts the topic: order.deleted sends the order's id alone"), nil
		}
		return &Action{Kind: Cancel, OrderID: string(o.ID), IfCounted: true}, nil
	}
	switch o.Status {
	case "processing", "completed":
		return wooPurchase(brandID, o), nil
	case "refunded":
		return &Action{Kind: Cancel, OrderID: string(o.ID)}, nil
	case "cancelled", "failed":
		if o.paid() {
			return &Action{Kind: Cancel, OrderID: string(o.ID)}, nil
		}
		return &Action{Kind: Cancel, OrderID: string(o.ID), IfCounted: true}, nil
	case "trash":
		return &Action{Kind: Cancel, OrderID: string(o.ID), IfCounted: true}, nil
	}
	return ignore("order %s is %s: counted once it is paid", o.ID, o.Status), nil
}

// paid reports whether the order was ever paid: WooCommerce sets the date
// when the payment completes or the order first becomes processing or
// completed, and keeps it.
func (o *wooOrder) paid() bool {
	return o.DatePaidGMT != nil && *o.DatePaidGMT != ""
}

func wooPurchase(brandID string, o *wooOrder) *Action {
	var b lineBuilder
	for _, l := range o.LineItems {
		if l.ProductID == "" || l.Quantity < 1 {
			continue
		}
		b.add(string(l.ProductID), l.SKU, l.Name, l.Quantity, l.Price.v, string(l.VariationID))
	}
	var ts *string
	if o.DateCreatedGMT != nil && *o.DateCreatedGMT != "" {
		t := strings.TrimSuffix(*o.DateCreatedGMT, "Z") + "Z" // the GMT date has no offset
		ts = &t
	}
	var country, city *string
	if s := o.Shipping; s != nil {
		country, city = s.Country, s.City
	}
	return purchase(brandID, string(o.ID), o.Currency, o.Total.v, ts, &b, country, city)
}
