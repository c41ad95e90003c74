package dashboard

import (
	"math"

	"github.com/svc-project/svc/internal/plurals"
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// The dashboard's numbers in words: plural forms by CLDR rules through
// golang.org/x/text, as the enrichment's sentences have them, so that it
// says "1 purchase (1 unit)" and never "1 purchases". The pages speak
// English; the widget's preview speaks the brand's first widget language.
var words = func() *catalog.Builder {
	b := plurals.New()
	set, n := b.Set, plurals.Count
	en, de, fr, es := language.English, language.German, language.French, language.Spanish
	// The pages' counts.
	for key, forms := range map[string][2]string{
		"views":     {"%d view", "%d views"},
		"viewers":   {"%d viewer", "%d viewers"},
		"purchases": {"%d purchase", "%d purchases"},
		"units":     {"%d unit", "%d units"},
		"events":    {"%d event", "%d events"},
		"orders":    {"%d order", "%d orders"},
		"seconds":   {"%d second", "%d seconds"},
	} {
		set(en, key, n(forms[0], forms[1]))
	}
	// A threshold, "fewer than N": fewer than 1 is none.
	set(en, "fewer viewers", plural.Selectf(1, "%d", "=1", "no viewers", plural.Other, "fewer than %d viewers"))
	set(en, "fewer purchases", plural.Selectf(1, "%d", "=1", "no purchases", plural.Other, "fewer than %d purchases"))

	// The widget's two sentences, as svc.js's T has them, for the product
	// page (the settings page runs svc.js itself).
	set(en, "widget viewers", n("%d person viewed this in the last hour", "%d people viewed this in the last hour"))
	set(de, "widget viewers", n("%d Person hat diesen Artikel in der letzten Stunde angesehen", "%d Personen haben diesen Artikel in der letzten Stunde angesehen"))
	set(fr, "widget viewers", n("%d personne a consulté cet article au cours de la dernière heure", "%d personnes ont consulté cet article au cours de la dernière heure"))
	set(es, "widget viewers", n("%d persona vio este artículo en la última hora", "%d personas vieron este artículo en la última hora"))
	set(en, "widget purchases", n("%d purchase in the last 24 hours", "%d purchases in the last 24 hours"))
	set(de, "widget purchases", n("%d Kauf in den letzten 24 Stunden", "%d Käufe in den letzten 24 Stunden"))
	set(fr, "widget purchases", n("%d achat au cours des 24 dernières heures", "%d achats au cours des 24 dernières heures"))
	set(es, "widget purchases", n("%d compra en las últimas 24 horas", "%d compras en las últimas 24 horas"))
	return b.Builder
}()

// english prints the pages' words.
var english = message.NewPrinter(language.English, message.Catalog(words))

// inWords is a number with its noun: "1 purchase", "12,345 views".
func inWords(n int64, noun string) string { return english.Sprintf(noun, n) }

// fewer is a threshold in words: "fewer than 3 viewers", "no purchases".
func fewer(n int, noun string) string { return english.Sprintf("fewer "+noun, n) }

// widgetSentence is one of the widget's sentences in the language lang.
func widgetSentence(lang, key string, n int64) string {
	return message.NewPrinter(language.Make(lang), message.Catalog(words)).Sprintf("widget "+key, n)
}

// perDay is a mean count a day, with one decimal: "0.6", "1,234.5"; 0 is "0",
// so that a few events a week do not read as none.
func perDay(v float64) string {
	if v == 0 {
		return "0"
	}
	return english.Sprintf("%.1f", math.Round(v*10)/10)
}
