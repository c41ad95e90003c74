package main

import "flag"

// addWidgetFlags adds the widget's corner and languages to a brands
// command; "" keeps the defaults (start, every language).
func addWidgetFlags(fs *flag.FlagSet) (position, languages *string) {
	position = fs.String("widget-position", "", "the corner of the widget's badge and toasts: start (left, right on a right-to-left page) or end")
	languages = fs.String("languages", "", "the widget's languages among en,de,fr,es, in order; the first is used when the shopper's is not listed (default all)")
	return position, languages
}
