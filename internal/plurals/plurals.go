// Package plurals builds the message catalogs of every sentence svc writes
// with a count: plural forms by CLDR rules through golang.org/x/text, so
// that English says "1 purchase" and French "0 personne", in each language
// the widget, the enrichment and the dashboard speak.
package plurals

import (
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message/catalog"
)

// Catalog is a catalog being built, whose messages fall back to English.
type Catalog struct{ *catalog.Builder }

// New returns an empty catalog.
func New() Catalog {
	return Catalog{catalog.NewBuilder(catalog.Fallback(language.English))}
}

// Set sets the message of key in the language tag. A message the catalog
// refuses is a mistake in svc's own tables, found when the package that
// builds it starts: it panics.
func (c Catalog) Set(tag language.Tag, key string, msg ...catalog.Message) {
	if err := c.Builder.Set(tag, key, msg...); err != nil {
		panic(err)
	}
}

// Count is a sentence about the first argument, a count: one for the
// count's "one" form, other for every other.
func Count(one, other string) catalog.Message {
	return plural.Selectf(1, "%d", plural.One, one, plural.Other, other)
}
