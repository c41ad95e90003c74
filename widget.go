package svc

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// WidgetVariants are the parts of the widget a brand may choose
// (docs/client-script.md, Variants).
var WidgetVariants = []string{"inline", "now", "toasts", "carts"}

// ValidWidgetVariant reports whether v names only parts of WidgetVariants,
// each once, separated by single spaces; "" is the script's default.
func ValidWidgetVariant(v string) bool {
	seen := map[string]bool{}
	for _, p := range strings.Fields(v) {
		if !slices.Contains(WidgetVariants, p) || seen[p] {
			return false
		}
		seen[p] = true
	}
	return v == strings.Join(strings.Fields(v), " ")
}

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
	// font), "inherit" for the page's (WidgetFonts). Sizes and weights
	// stay svc's, so the widget stays legible in any font.
	Font string
	// Accent is the brand's colour for the widget's icons and numbers on
	// its light background, #rrggbb: "" keeps svc's (DefaultAccent). Dark
	// mode keeps svc's own. The numbers are text, so it must keep 4.5:1
	// against the white background (WCAG 2, AA).
	Accent string
	// MinCarts is the honesty threshold of the carts line: fewer people
	// with the product in their cart are not shown (DefaultMinCarts).
	MinCarts int
}

// WidgetFonts are the values of WidgetSettings.Font: "" is svc's font.
var WidgetFonts = []string{"", "inherit"}

// DefaultAccent is svc's accent on the light background, 5.9:1 on white.
const DefaultAccent = "#0b69a3"

// MinAccentContrast is the contrast an accent must keep against white.
const MinAccentContrast = 4.5

// AccentContrast returns the contrast of a #rrggbb colour against white
// (WCAG 2's ratio of relative luminances); ok is false for anything else.
func AccentContrast(c string) (ratio float64, ok bool) {
	if len(c) != 7 || c[0] != '#' {
		return 0, false
	}
	v, err := strconv.ParseUint(c[1:], 16, 32)
	if err != nil {
		return 0, false
	}
	lum := 0.0
	for i, w := range []float64{0.2126, 0.7152, 0.0722} {
		ch := float64(v>>(16-8*i)&0xff) / 255
		if ch <= 0.04045 {
			ch /= 12.92
		} else {
			ch = math.Pow((ch+0.055)/1.055, 2.4)
		}
		lum += w * ch
	}
	return 1.05 / (lum + 0.05), true
}

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
	if s.Accent != "" {
		switch r, ok := AccentContrast(s.Accent); {
		case !ok:
			fe.add("widget_accent", "must be a colour written #rrggbb, such as %s", DefaultAccent)
		case r < MinAccentContrast:
			fe.add("widget_accent", "must be dark enough to read on white: %.1f:1, at least %.1f:1", math.Floor(r*10)/10, MinAccentContrast)
		}
	}
	if s.MinCarts < 1 {
		fe.add("min_carts", "must be at least 1")
	}
	return fe
}
