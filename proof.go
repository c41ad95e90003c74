package svc

import "time"

// ProofQuery asks for the counts of one product (docs/spec.md, Product proof).
type ProofQuery struct {
	BrandID        string
	ProductID      string
	ViewWindow     time.Duration // whole minutes, 1 to 10080
	PurchaseWindow time.Duration // whole hours, 1 to 720
	CartWindow     time.Duration // whole minutes, 1 to 10080
}

// CheckID returns the errors of an id given as the field: required and
// missing, too long, or holding control characters.
func CheckID(field, v string, required bool) []FieldError {
	var fe fieldErrors
	fe.id(field, v, required)
	return fe
}

// Proof is the social proof of one product in its windows.
type Proof struct {
	BrandID        string
	ProductID      string
	ViewWindow     time.Duration
	PurchaseWindow time.Duration
	Views          int64 // view events in the view window
	Viewers        int64 // distinct session ids among those views
	Purchases      int64 // orders in the purchase window that contain the product
	Units          int64 // units of the product in those orders
	CartWindow     time.Duration
	Carts          int64 // distinct sessions that added the product to a cart in the cart window
	NowWindow      time.Duration
	ViewersNow     int64 // distinct sessions that viewed the product in the now window
	// The brand's honesty thresholds, so that a widget shows nothing below them.
	MinViewers   int
	MinPurchases int
	MinCarts     int
	// Holdout is the brand's percent of sessions that never see the widget
	// (Brand.Holdout); the widget computes its own session's arm.
	Holdout       int
	WidgetVariant string // the brand's choice, "" for the script's default
	// The brand's corner and languages, as Brand.WidgetPosition and
	// Brand.Languages ("" for the defaults).
	WidgetPosition string
	Languages      string
	WidgetFont     string // Brand.Widget.Font: "" or "inherit"
	WidgetAccent   string // Brand.Widget.Accent: "" or #rrggbb
	GeneratedAt    time.Time
}
