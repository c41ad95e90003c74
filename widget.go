package svc

import (
	"slices"
	"strings"
)

// WidgetPositions are where the widget's corner parts (the badge and the
// toasts) may sit. They are logical, as CSS's inline start and end: "start"
// is the left corner of a left-to-right page and the right corner of a
// right-to-left one (docs/client-script.md, Brand settings: corner and
// languages).
var WidgetPositions = []string{"start", "end"}

// WidgetLanguages are the languages the widget speaks, in the default
// order (docs/client-script.md, Brand settings: corner and languages).
var WidgetLanguages = []string{"en", "de", "fr", "es"}

// ValidWidgetPosition reports whether p is one of WidgetPositions or ""
// (the default, "start").
func ValidWidgetPosition(p string) bool {
	return p == "" || slices.Contains(WidgetPositions, p)
}

// ValidWidgetLanguages reports whether l lists languages of
// WidgetLanguages, each once, separated by commas; "" is all of them.
func ValidWidgetLanguages(l string) bool {
	if l == "" {
		return true
	}
	seen := map[string]bool{}
	for _, c := range strings.Split(l, ",") {
		if !slices.Contains(WidgetLanguages, c) || seen[c] {
			return false
		}
		seen[c] = true
	}
	return true
}

// WidgetPositionOf is the position p stands for: "start" when unset.
func WidgetPositionOf(p string) string {
	if p == "" {
		return "start"
	}
	return p
}

// WidgetLanguagesOf is the list of languages l stands for: all of
// WidgetLanguages when unset.
func WidgetLanguagesOf(l string) []string {
	if l == "" {
		return slices.Clone(WidgetLanguages)
	}
	return strings.Split(l, ",")
}

// WidgetSettings are a brand's settings of how the widget looks and what
// it may say, beyond its parts and corner: each zero value is unset and
// takes its default (Stored), so that a new setting is one field here, its
// check in validate, and one column in the stores (internal/sqlstore).
type WidgetSettings struct {
	// Font is the widget's typeface: "" for svc's own (the system's UI
	// font), "inherit" for the page's (WidgetFonts). Sizes, weights and
	// colours stay svc's, so the widget stays legible in any font.
	Font string
	// MinCarts is the honesty threshold of the carts line: fewer people
	// with the product in their cart are not shown (DefaultMinCarts).
	MinCarts int
}

// WidgetFonts are the values of WidgetSettings.Font: "" is svc's font.
var WidgetFonts = []string{"", "inherit"}

// DefaultMinCarts is the carts line's threshold: like viewers, carts
// count people, and a cart is a stronger hint of who the shopper is.
const DefaultMinCarts = 3

// Stored returns the settings with defaults for those never set.
func (s WidgetSettings) Stored() WidgetSettings {
	if s.MinCarts == 0 {
		s.MinCarts = DefaultMinCarts
	}
	return s
}

// validate returns the bad settings, as fields of the brand.
func (s WidgetSettings) validate() []FieldError {
	var fe fieldErrors
	s = s.Stored()
	if !slices.Contains(WidgetFonts, s.Font) {
		fe.add("widget_font", "must be %q (the page's font) or empty (svc's)", "inherit")
	}
	if s.MinCarts < 1 {
		fe.add("min_carts", "must be at least 1")
	}
	return fe
}
