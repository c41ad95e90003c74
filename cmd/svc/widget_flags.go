package main

import (
	"flag"

	svc "github.com/svc-project/svc"
)

// addWidgetFlags adds the widget's corner and languages to a brands
// command; "" keeps the defaults (start, every language).
func addWidgetFlags(fs *flag.FlagSet) (position, languages *string) {
	position = fs.String("widget-position", "", "the corner of the widget's badge and toasts: start (left, right on a right-to-left page) or end")
	languages = fs.String("languages", "", "the widget's languages among en,de,fr,es, in order; the first is used when the shopper's is not listed (default all)")
	return position, languages
}

// widgetLook are the flags of the widget's parts, font and carts line.
type widgetLook struct {
	variant, font, accent *string
	minCarts              *int
}

// widgetLookFlags are the flags' names, for "nothing to change" and the
// errors that name a flag.
var widgetLookFlags = map[string]string{"widget_variant": "--widget-variant", "widget_font": "--widget-font", "widget_accent": "--widget-accent", "min_carts": "--min-carts"}

func addWidgetLookFlags(fs *flag.FlagSet) widgetLook {
	return widgetLook{
		variant:  fs.String("widget-variant", "", "the widget's parts among inline, now, carts, toasts, separated by spaces ('' for the script's default)"),
		font:     fs.String("widget-font", "", "inherit: the widget takes the page's font; '' keeps svc's"),
		accent:   fs.String("widget-accent", "", "the widget's colour for icons and numbers, #rrggbb, at least 4.5:1 on white; '' keeps svc's"),
		minCarts: fs.Int("min-carts", svc.DefaultMinCarts, "fewest people with the product in their cart the carts line shows"),
	}
}

// given tells whether any of the flags is in set.
func (l widgetLook) given(set map[string]bool) bool {
	return set["widget-variant"] || set["widget-font"] || set["widget-accent"] || set["min-carts"]
}

// apply writes the flags given into b; with set nil, all of them.
func (l widgetLook) apply(b *svc.Brand, set map[string]bool) {
	if set == nil || set["widget-variant"] {
		b.WidgetVariant = *l.variant
	}
	if set == nil || set["widget-font"] {
		b.Widget.Font = *l.font
	}
	if set == nil || set["widget-accent"] {
		b.Widget.Accent = *l.accent
	}
	if set == nil || set["min-carts"] {
		b.Widget.MinCarts = *l.minCarts
	}
}
