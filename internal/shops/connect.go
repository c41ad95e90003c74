// Package connect reads orders as shop platforms send them (Shopify's and
// WooCommerce's webhooks, Shopify's order export) and as svc exports them,
// into svc's events; and verifies the platforms' webhook signatures. It
// decides what a platform's message means; httpapi authenticates it and
// the tracker counts it.
package shops

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/svc-project/svc"
)

// WebhookPath is the path, under the service's public address, that a
// platform's webhooks for a brand are sent to: httpapi routes it, the
// dashboard and svc webhooks show it.
func WebhookPath(platform, brandID string) string {
	return "/api/connect/" + platform + "/" + brandID
}

// Verify reports whether signature is the base64 HMAC-SHA256 of body under
// secret, as both Shopify (X-Shopify-Hmac-Sha256) and WooCommerce
// (X-WC-Webhook-Signature) sign. The comparison takes the same time
// wherever the first difference is.
func Verify(body []byte, secret, signature string) bool {
	want := Sign(body, secret) // even without a secret: the time says nothing of one
	got, err := base64.StdEncoding.DecodeString(strings.TrimSpace(signature))
	return err == nil && hmac.Equal(got, want) && secret != ""
}

// Sign returns the HMAC-SHA256 of body under secret (base64-encode it for
// a header).
func Sign(body []byte, secret string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return m.Sum(nil)
}

// Kinds of Action.
const (
	Purchase = "purchase" // count the order
	Cancel   = "cancel"   // take the order, or some of its units, out of the counts
	Ignore   = "ignore"   // nothing to count: Reason says why
)

// Action is what one platform message asks of svc.
type Action struct {
	Kind   string
	Reason string // why an Ignore is ignored
	// Order is the order to count, for Purchase.
	Order   *svc.PurchaseEvent
	OrderID string
	// Items are the units a partial Cancel takes out, by product; nil takes
	// out the whole order.
	Items []CancelItem
	// OrderKey is the key WooCommerce gave the order, which its
	// order-received page shows too: the page's session becomes the
	// order's when both give the same (svc.OrderSessionStore). "" for
	// none; with it, OrderID names the order whatever the Kind.
	OrderKey string
	// CancelID names a partial cancellation (a refund) so that its repeat
	// takes nothing out twice; "" for a whole order.
	CancelID string
	// IfCounted makes a Cancel take out only an order svc has stored: one
	// it has not seen is "not counted yet" (a WooCommerce order whose
	// payment failed may still be paid), not a cancellation that keeps it
	// out for good.
	IfCounted bool
}

// CancelItem is a product's units taken out of an order.
type CancelItem struct {
	ProductID string
	Quantity  int64
}

// ignore returns an Ignore action.
func ignore(format string, args ...any) *Action {
	return &Action{Kind: Ignore, Reason: fmt.Sprintf(format, args...)}
}

// lineBuilder turns a platform's order lines into svc's, cleaning what a
// platform allows and svc does not (a title too long, a SKU with a line
// break): a webhook refused for those would be retried in vain.
type lineBuilder struct {
	items []svc.PurchaseItem
}

// add adds a line of the product; lines of one product (variants share a
// product page) stay separate lines, as the order had them. The line's
// variant id and SKU are its aliases: the signed webhook registers them
// as names of the product (svc names.go), so that a page that knows the
// product by its variant's SKU counts the same product.
func (b *lineBuilder) add(productID string, sku, title *string, quantity int64, price *float64, variantID string) {
	q := quantity
	it := svc.PurchaseItem{ProductID: productID, SKU: cleanID(sku), Title: cleanTitle(title), Quantity: &q, UnitPrice: price}
	for _, a := range []*string{&variantID, it.SKU} {
		if a != nil && *a != "" && *a != productID && !slices.Contains(it.Aliases, *a) {
			it.Aliases = append(it.Aliases, *a)
		}
	}
	b.items = append(b.items, it)
}

// cleanID returns an id svc accepts, or nil.
func cleanID(s *string) *string {
	if s == nil {
		return nil
	}
	v := strings.TrimSpace(*s)
	if v == "" || utf8.RuneCountInString(v) > svc.MaxIDLen || !utf8.ValidString(v) || strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return nil
	}
	return &v
}

// cleanTitle drops control characters and cuts a title at svc's limit.
func cleanTitle(s *string) *string {
	if s == nil {
		return nil
	}
	v := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(*s, ""))
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	if r := []rune(v); len(r) > svc.MaxTitleLen {
		v = string(r[:svc.MaxTitleLen])
	}
	return &v
}

// cleanCountry returns an ISO country code as svc keeps it, or nil.
func cleanCountry(s *string) *string {
	if s == nil {
		return nil
	}
	v := strings.ToUpper(strings.TrimSpace(*s))
	if len(v) != 2 || v[0] < 'A' || v[0] > 'Z' || v[1] < 'A' || v[1] > 'Z' {
		return nil
	}
	return &v
}

// cleanCity returns a city name as svc keeps it, or nil.
func cleanCity(s *string) *string {
	v := cleanTitle(s)
	if v != nil {
		if r := []rune(*v); len(r) > svc.MaxCityLen {
			*v = strings.TrimSpace(string(r[:svc.MaxCityLen]))
		}
	}
	return v
}

// cleanCurrency returns an ISO currency code, or nil.
func cleanCurrency(s *string) *string {
	if s == nil {
		return nil
	}
	v := strings.ToUpper(strings.TrimSpace(*s))
	if len(v) != 3 || strings.IndexFunc(v, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return nil
	}
	return &v
}

// amount is a money amount that platforms send as a string ("19.90") or a
// number.
type amount struct{ v *float64 }

func (a *amount) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%s is not an amount", b)
	}
	if f >= 0 && f <= svc.MaxAmount {
		a.v = &f
	}
	return nil
}

// id is a platform's numeric id, sent as a number or a string; "" when
// absent, null or 0 (WooCommerce's product of a deleted product).
type id string

func (i *id) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "0" {
		s = ""
	}
	var n json.Number
	if s != "" && json.Unmarshal([]byte(s), &n) != nil && cleanID(&s) == nil {
		return fmt.Errorf("%s is not an id", b)
	}
	*i = id(s)
	return nil
}

// purchase returns the Purchase action of an order, or an Ignore when no
// line names a product. ts is when the order was placed, RFC 3339.
func purchase(brandID, orderID string, currency *string, total *float64, ts *string, b *lineBuilder, country, city *string) *Action {
	if len(b.items) == 0 {
		return ignore("no line of order %s names a product", orderID)
	}
	if len(b.items) > svc.MaxOrderItems {
		b.items = b.items[:svc.MaxOrderItems] // the rest is not counted rather than the whole order refused
	}
	e := &svc.PurchaseEvent{BrandID: brandID, Order: svc.Order{OrderID: orderID, Currency: cleanCurrency(currency), TotalValue: total, Items: b.items}}
	// Where the order ships to, coarsely: the only thing of the customer
	// kept (the recent purchases feed may show it).
	e.Context = svc.PurchaseContext{Timestamp: ts, Country: cleanCountry(country), City: cleanCity(city)}
	return &Action{Kind: Purchase, Order: e, OrderID: orderID}
}
