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
