package svc

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ViewEvent is one product page view (docs/spec.md, Product view). Pointer fields are
// optional: nil means absent, and a present field must be valid.
type ViewEvent struct {
	BrandID string
	Product ViewProduct
	Context ViewContext

	Meta EventMeta
}

// ViewProduct is the product of a view.
type ViewProduct struct {
	ProductID string
	SKU       *string
	Title     *string
	URL       *string
	// The maker's identifiers (identifiers.go): a GTIN of 8 to 14
	// digits, the part number and the maker's name.
	GTIN  *string
	MPN   *string
	Brand *string
	// Aliases are other ids the page knows the product by (names.go):
	// variant ids, SKUs, its JSON-LD sku, productID or @id, its URL
	// without the query. A keyed event registers them as the product's
	// names; an anonymous one only resolves through names registered.
	Aliases []string
}

// ViewContext is the circumstances of a view.
type ViewContext struct {
	Timestamp *string
	SessionID *string
	Country   *string
	Locale    *string
}

// PurchaseEvent is one completed order (docs/spec.md, Purchase).
type PurchaseEvent struct {
	BrandID string
	Order   Order
	Context PurchaseContext

	Meta EventMeta

	// sent are the order's lines as sent, when TakeOutPending took units
	// out of Order.Items: a write decided again (a retried batch) starts
	// from them.
	sent []PurchaseItem
}

// Order is the order of a purchase.
type Order struct {
	OrderID    string
	Currency   *string
	TotalValue *float64
	Items      []PurchaseItem
}

// PurchaseItem is one line of an order.
type PurchaseItem struct {
	ProductID string
	SKU       *string
	Title     *string
	Quantity  *int64
	UnitPrice *float64
	GTIN      *string
	MPN       *string
	Brand     *string
	// Aliases are the line's other names, which a keyed source registers
	// for its product (names.go): a platform's variant id and SKU. Set by
	// the connectors and the import, not read from the API's JSON.
	Aliases []string
}

// PurchaseContext is the circumstances of a purchase.
type PurchaseContext struct {
	Timestamp *string
	SessionID *string
	// Country and City are where the order goes, coarsely: the recent
	// purchases feed shows them only when enough orders share them.
	Country *string
	City    *string
}

// EventMeta is what the server adds to an event it accepts.
type EventMeta struct {
	EventID    string
	Time       time.Time  // when the event counts: a keyed event's given timestamp, else the receive time
	GivenTime  *time.Time // the client's timestamp, when it was replaced by the receive time
	ReceivedAt time.Time
	// Keyed is the event's provenance (provenance.go): it came with a
	// valid key of the brand, through the brand's signed webhook, or in
	// its operator's import. Else it is anonymous.
	Keyed bool
	// Arm is the holdout arm of a view's or an add-to-cart's session
	// (internal/holdout), "" without one.
	Arm string
}

// Limits of the collect endpoints (docs/spec.md, Limits).
const (
	MaxIDLen      = 128
	MaxTitleLen   = 512
	MaxURLLen     = 2048
	MaxOrderItems = 500
	MaxQuantity   = 1_000_000
	MaxAmount     = 1e12 // prices and totals; room for currencies with small units
)

// The shapes of the short codes events carry, checked by hand: as regular
// expressions they were a third of a view's validation in profiles.

// isCountry reports two upper-case ASCII letters, as ^[A-Z]{2}$ does.
func isCountry(s string) bool { return len(s) == 2 && isUpper(s[0]) && isUpper(s[1]) }

// isLocale reports a language-region tag, as ^[a-z]{2}-[A-Z]{2}$ does.
func isLocale(s string) bool {
	return len(s) == 5 && isLower(s[0]) && isLower(s[1]) && s[2] == '-' && isUpper(s[3]) && isUpper(s[4])
}

// isCurrency reports three upper-case ASCII letters, as ^[A-Z]{3}$ does.
func isCurrency(s string) bool {
	return len(s) == 3 && isUpper(s[0]) && isUpper(s[1]) && isUpper(s[2])
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// fieldErrors collects the bad fields of one request in the order checked.
type fieldErrors []FieldError

func (fe *fieldErrors) add(field, format string, args ...any) {
	*fe = append(*fe, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (fe *fieldErrors) id(field, v string, required bool) {
	switch n := utf8.RuneCountInString(v); {
	case v == "" && required:
		fe.add(field, "is required")
	case n < 1 || n > MaxIDLen:
		fe.add(field, "must be 1 to %d characters", MaxIDLen)
	case !utf8.ValidString(v): // only from Go callers: the JSON decoder refuses bad bytes
		fe.add(field, "must be valid UTF-8")
	case hasControl(v):
		fe.add(field, controlMessage)
	}
}

// controlMessage refuses C0 and C1 control characters, tabs and line
// breaks included, in every text field: none belongs in an id, a title or
// a URL, and NUL or ESC would reach exports and terminals.
const controlMessage = "must not contain control characters"

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

func (fe *fieldErrors) optID(field string, v *string) {
	if v != nil {
		fe.id(field, *v, false)
	}
}

func (fe *fieldErrors) title(field string, v *string) {
	switch {
	case v == nil:
	case utf8.RuneCountInString(*v) > MaxTitleLen:
		fe.add(field, "must be at most %d characters", MaxTitleLen)
	case !utf8.ValidString(*v):
		fe.add(field, "must be valid UTF-8")
	case hasControl(*v):
		fe.add(field, controlMessage)
	}
}

func (fe *fieldErrors) url(field string, v *string) {
	if v == nil {
		return
	}
	if len(*v) > MaxURLLen {
		fe.add(field, "must be at most %d characters", MaxURLLen)
		return
	}
	if hasControl(*v) {
		fe.add(field, controlMessage)
		return
	}
	u, err := url.Parse(*v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !utf8.ValidString(*v) {
		fe.add(field, "must be an absolute http or https URL")
	}
}

func (fe *fieldErrors) pattern(field string, v *string, matches func(string) bool, what string) {
	if v != nil && !matches(*v) {
		fe.add(field, "must be %s", what)
	}
}

func (fe *fieldErrors) amount(field string, v *float64) {
	if v != nil && (math.IsNaN(*v) || *v < 0 || *v > MaxAmount) {
		fe.add(field, "must be a number from 0 to %.0f", float64(MaxAmount))
	}
}

func (fe *fieldErrors) timestamp(field string, v *string) {
	if v == nil {
		return
	}
	if _, err := time.Parse(time.RFC3339Nano, *v); err != nil {
		fe.add(field, "must be an RFC 3339 date-time with an offset, such as 2026-11-21T10:00:00Z")
	}
}

// Validate returns every bad field of the view, or nil.
func (e *ViewEvent) Validate() []FieldError {
	var fe fieldErrors
	fe.id("BrandID", e.BrandID, true)
	fe.id("Product.ProductID", e.Product.ProductID, true)
	fe.optID("Product.SKU", e.Product.SKU)
	fe.title("Product.Title", e.Product.Title)
	fe.url("Product.URL", e.Product.URL)
	fe.identifiers("Product.", e.Product.GTIN, e.Product.MPN, e.Product.Brand)
	if e.Product.Aliases != nil {
		fe.aliases("Product.Aliases", e.Product.Aliases)
	}
	fe.timestamp("Context.Timestamp", e.Context.Timestamp)
	fe.optID("Context.SessionID", e.Context.SessionID)
	fe.pattern("Context.Country", e.Context.Country, isCountry, "two upper-case letters, such as DE")
	fe.pattern("Context.Locale", e.Context.Locale, isLocale, "a language-region tag of the form xx-XX, such as de-DE")
	return fe
}

// Validate returns every bad field of the purchase, or nil.
func (e *PurchaseEvent) Validate() []FieldError {
	var fe fieldErrors
	fe.id("BrandID", e.BrandID, true)
	fe.id("Order.OrderID", e.Order.OrderID, true)
	fe.pattern("Order.Currency", e.Order.Currency, isCurrency, "three upper-case letters, such as EUR")
	fe.amount("Order.TotalValue", e.Order.TotalValue)
	switch n := len(e.Order.Items); {
	case n == 0:
		fe.add("Order.Items", "is required: 1 to %d lines", MaxOrderItems)
	case n > MaxOrderItems:
		fe.add("Order.Items", "must have at most %d lines", MaxOrderItems)
	}
	for i := range e.Order.Items {
		if i == MaxOrderItems {
			break
		}
		it := &e.Order.Items[i]
		p := fmt.Sprintf("Order.Items[%d].", i)
		fe.id(p+"ProductID", it.ProductID, true)
		fe.optID(p+"SKU", it.SKU)
		fe.title(p+"Title", it.Title)
		if it.Quantity == nil {
			fe.add(p+"Quantity", "is required")
		} else if q := *it.Quantity; q < 1 || q > MaxQuantity {
			fe.add(p+"Quantity", "must be an integer from 1 to %d", MaxQuantity)
		}
		fe.amount(p+"UnitPrice", it.UnitPrice)
		fe.identifiers(p, it.GTIN, it.MPN, it.Brand)
	}
	fe.timestamp("Context.Timestamp", e.Context.Timestamp)
	fe.optID("Context.SessionID", e.Context.SessionID)
	fe.pattern("Context.Country", e.Context.Country, isCountry, "two upper-case letters, such as DE")
	fe.city("Context.City", e.Context.City)
	return fe
}

// Stamp decides when a validated event counts (docs/decisions.md, Timestamps) and records it in
// meta. A keyed event keeps its timestamp, but one more than ClockSkew in the
// future, or older than the retention, is a bad field. An anonymous event
// counts when it was received, whatever it says (docs/security.md,
// Provenance): the given time is kept beside it.
func Stamp(meta *EventMeta, given *string, keyed bool, now time.Time, retention time.Duration) []FieldError {
	meta.ReceivedAt, meta.Time, meta.Keyed = now.UTC(), now.UTC(), keyed
	if given == nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, *given)
	if err != nil { // Validate has reported it
		return nil
	}
	t = t.UTC()
	switch {
	case keyed && t.After(now.Add(ClockSkew)):
		return []FieldError{{Field: "Context.Timestamp", Message: fmt.Sprintf("must not be more than %s in the future", FormatDuration(ClockSkew))}}
	case keyed && t.Before(now.Add(-retention)):
		return []FieldError{{Field: "Context.Timestamp", Message: fmt.Sprintf("must not be older than the retention of %s", FormatDuration(retention))}}
	case keyed:
		meta.Time = t
	case !t.Equal(meta.Time):
		meta.GivenTime = &t
	}
	return nil
}
