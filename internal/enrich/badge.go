package enrich

import (
	"strings"

	"github.com/svc-project/svc/internal/plurals"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Badge is what an extension shows beside a matched search result, so
// that it builds no sentence of its own: a short label that names its
// window, and the result's sentences for a tooltip.
type Badge struct {
	Kind  string `json:"kind"`  // the message kind the label says: purchases, views or a badge
	Label string `json:"label"` // a few words: "12 people · last hour"
	Title string `json:"title"` // every message of the result, in one line
}

// badgeOrder is which message a badge shows when a result has several:
// a comparison with the other results first, then the counts.
var badgeOrder = []string{BadgeMostPurchased, BadgeMostViewed, msgPurchases, msgViews, BadgeTrending, BadgeLowestPrice}

// searchBadge is the badge of a result with its messages; nil when there
// is nothing to show (no match, or counts under the brand's thresholds).
// An unmatched result has no badge even when it is the cheapest: a badge
// says svc knows the product.
func searchBadge(lang language.Tag, p *proofOf, messages []Message) *Badge {
	if p == nil || len(messages) == 0 {
		return nil
	}
	pr := message.NewPrinter(lang, message.Catalog(badgeLabels))
	texts := make([]string, len(messages))
	kinds := map[string]bool{}
	for i, m := range messages {
		texts[i] = m.Text
		kinds[m.Kind] = true
	}
	b := &Badge{Title: strings.Join(texts, " · ")}
	for _, kind := range badgeOrder {
		if !kinds[kind] {
			continue
		}
		b.Kind = kind
		switch kind {
		case msgPurchases:
			b.Label = pr.Sprintf(kind, *p.shown.Purchases)
		case msgViews:
			b.Label = pr.Sprintf(kind, *p.shown.Viewers)
		default:
			b.Label = pr.Sprintf(kind)
		}
		return b
	}
	return nil
}

// badgeLabels are the short labels, in the languages of the sentences.
var badgeLabels = func() *catalog.Builder {
	b := plurals.New()
	set, n := b.Set, plurals.Count
	s := catalog.String
	en, de, fr, es := language.English, language.German, language.French, language.Spanish
	for _, l := range []struct {
		tag                                              language.Tag
		views, purchases                                 catalog.Message
		mostViewed, mostPurchased, trending, lowestPrice string
	}{
		{en, n("%d person · last hour", "%d people · last hour"), n("%d bought · 24 h", "%d bought · 24 h"),
			"Most viewed · last hour", "Most bought · 24 h", "Trending · last hour", "Lowest price"},
		{de, n("%d Person · letzte Stunde", "%d Personen · letzte Stunde"), n("%d Kauf · 24 Std.", "%d Käufe · 24 Std."),
			"Meistgesehen · letzte Stunde", "Meistgekauft · 24 Std.", "Gefragt · letzte Stunde", "Niedrigster Preis"},
		{fr, n("%d personne · dernière heure", "%d personnes · dernière heure"), n("%d achat · 24 h", "%d achats · 24 h"),
			"Le plus consulté · dernière heure", "Le plus acheté · 24 h", "Tendance · dernière heure", "Prix le plus bas"},
		{es, n("%d persona · última hora", "%d personas · última hora"), n("%d compra · 24 h", "%d compras · 24 h"),
			"Más visto · última hora", "Más comprado · 24 h", "Tendencia · última hora", "Precio más bajo"},
	} {
		set(l.tag, msgViews, l.views)
		set(l.tag, msgPurchases, l.purchases)
		set(l.tag, BadgeMostViewed, s(l.mostViewed))
		set(l.tag, BadgeMostPurchased, s(l.mostPurchased))
		set(l.tag, BadgeTrending, s(l.trending))
		set(l.tag, BadgeLowestPrice, s(l.lowestPrice))
	}
	return b.Builder
}()
