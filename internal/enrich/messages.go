package enrich

import (
	"github.com/svc-project/svc/internal/plurals"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Message is a ready-to-show sentence, and what it says.
type Message struct {
	Kind string `json:"kind"` // views, purchases, trending, most_viewed, most_purchased, lowest_price, price, offers
	Text string `json:"text"`
}

// languages the sentences are written in; the first is the fallback.
var languages = []language.Tag{language.English, language.German, language.French, language.Spanish}

var matcher = language.NewMatcher(languages)

// Language picks the shopper's language: the locale the request gives,
// else the Accept-Language header, else English.
func Language(locale, acceptLanguage string) language.Tag {
	_, i, _ := matcher.Match(append(parse(locale), parse(acceptLanguage)...)...)
	return languages[i]
}

func parse(s string) []language.Tag {
	if s == "" {
		return nil
	}
	tags, _, err := language.ParseAcceptLanguage(s)
	if err != nil {
		return nil
	}
	return tags
}

// Message keys. Every sentence names its window: social proof is never
// "right now".
const (
	msgViews         = "views"
	msgPurchases     = "purchases"
	msgTrending      = "trending"
	msgMostViewed    = "most_viewed"
	msgMostPurchased = "most_purchased"
	msgLowestPrice   = "lowest_price"
	msgPriceBelow    = "price_below_typical"
	msgPriceTypical  = "price_typical"
	msgPriceAbove    = "price_above_typical"
	msgOffers        = "offers"

	// On a product page the badges compare with the other shops, not
	// with search results.
	msgPageMostViewed    = "page_most_viewed"
	msgPageMostPurchased = "page_most_purchased"
	msgPageLowestPrice   = "page_lowest_price"
)

// sentences are the message catalog: plural forms by CLDR rules through
// golang.org/x/text, so French says "1 personne" and "0 personne", and
// numbers are written the language's way.
var sentences = func() *catalog.Builder {
	b := plurals.New()
	set, n := b.Set, plurals.Count
	en, de, fr, es := language.English, language.German, language.French, language.Spanish

	set(en, msgViews, n("%d person viewed this in the last hour", "%d people viewed this in the last hour"))
	set(de, msgViews, n("%d Person hat sich das in der letzten Stunde angesehen", "%d Personen haben sich das in der letzten Stunde angesehen"))
	set(fr, msgViews, n("%d personne a consulté ce produit au cours de la dernière heure", "%d personnes ont consulté ce produit au cours de la dernière heure"))
	set(es, msgViews, n("%d persona vio esto en la última hora", "%d personas vieron esto en la última hora"))

	set(en, msgPurchases, n("%d purchase in the last 24 hours", "%d purchases in the last 24 hours"))
	set(de, msgPurchases, n("%d Kauf in den letzten 24 Stunden", "%d Käufe in den letzten 24 Stunden"))
	set(fr, msgPurchases, n("%d achat au cours des dernières 24 heures", "%d achats au cours des dernières 24 heures"))
	set(es, msgPurchases, n("%d compra en las últimas 24 horas", "%d compras en las últimas 24 horas"))

	set(en, msgTrending, catalog.String("More views than usual in the last hour"))
	set(de, msgTrending, catalog.String("Mehr Aufrufe als üblich in der letzten Stunde"))
	set(fr, msgTrending, catalog.String("Plus consulté que d'habitude au cours de la dernière heure"))
	set(es, msgTrending, catalog.String("Más visto de lo habitual en la última hora"))

	set(en, msgMostViewed, catalog.String("Most viewed of these results in the last hour"))
	set(de, msgMostViewed, catalog.String("Meistgesehen dieser Ergebnisse in der letzten Stunde"))
	set(fr, msgMostViewed, catalog.String("Le plus consulté de ces résultats au cours de la dernière heure"))
	set(es, msgMostViewed, catalog.String("El más visto de estos resultados en la última hora"))

	set(en, msgMostPurchased, catalog.String("Most bought of these results in the last 24 hours"))
	set(de, msgMostPurchased, catalog.String("Meistgekauft dieser Ergebnisse in den letzten 24 Stunden"))
	set(fr, msgMostPurchased, catalog.String("Le plus acheté de ces résultats au cours des dernières 24 heures"))
	set(es, msgMostPurchased, catalog.String("El más comprado de estos resultados en las últimas 24 horas"))

	set(en, msgLowestPrice, catalog.String("Lowest price of these results"))
	set(de, msgLowestPrice, catalog.String("Niedrigster Preis dieser Ergebnisse"))
	set(fr, msgLowestPrice, catalog.String("Prix le plus bas de ces résultats"))
	set(es, msgLowestPrice, catalog.String("El precio más bajo de estos resultados"))

	set(en, msgPriceBelow, catalog.String("Below the typical price paid in the last 30 days"))
	set(de, msgPriceBelow, catalog.String("Unter dem üblichen Preis der letzten 30 Tage"))
	set(fr, msgPriceBelow, catalog.String("En dessous du prix habituel des 30 derniers jours"))
	set(es, msgPriceBelow, catalog.String("Por debajo del precio habitual de los últimos 30 días"))

	set(en, msgPriceTypical, catalog.String("The typical price paid in the last 30 days"))
	set(de, msgPriceTypical, catalog.String("Der übliche Preis der letzten 30 Tage"))
	set(fr, msgPriceTypical, catalog.String("Le prix habituel des 30 derniers jours"))
	set(es, msgPriceTypical, catalog.String("El precio habitual de los últimos 30 días"))

	set(en, msgPriceAbove, catalog.String("Above the typical price paid in the last 30 days"))
	set(de, msgPriceAbove, catalog.String("Über dem üblichen Preis der letzten 30 Tage"))
	set(fr, msgPriceAbove, catalog.String("Au-dessus du prix habituel des 30 derniers jours"))
	set(es, msgPriceAbove, catalog.String("Por encima del precio habitual de los últimos 30 días"))

	set(en, msgPageMostViewed, catalog.String("Viewed by more people here than at the other shops in the last hour"))
	set(de, msgPageMostViewed, catalog.String("Hier in der letzten Stunde von mehr Personen angesehen als bei den anderen Shops"))
	set(fr, msgPageMostViewed, catalog.String("Consulté ici par plus de personnes qu'ailleurs au cours de la dernière heure"))
	set(es, msgPageMostViewed, catalog.String("Visto aquí por más personas que en las otras tiendas en la última hora"))

	set(en, msgPageMostPurchased, catalog.String("Bought more often here than at the other shops in the last 24 hours"))
	set(de, msgPageMostPurchased, catalog.String("Hier in den letzten 24 Stunden öfter gekauft als bei den anderen Shops"))
	set(fr, msgPageMostPurchased, catalog.String("Acheté ici plus souvent qu'ailleurs au cours des dernières 24 heures"))
	set(es, msgPageMostPurchased, catalog.String("Comprado aquí más a menudo que en las otras tiendas en las últimas 24 horas"))

	set(en, msgPageLowestPrice, catalog.String("Lower than the prices paid at the other shops in the last 30 days"))
	set(de, msgPageLowestPrice, catalog.String("Günstiger als die Preise, die bei den anderen Shops in den letzten 30 Tagen bezahlt wurden"))
	set(fr, msgPageLowestPrice, catalog.String("Moins cher que les prix payés dans les autres boutiques au cours des 30 derniers jours"))
	set(es, msgPageLowestPrice, catalog.String("Más barato que los precios pagados en las otras tiendas en los últimos 30 días"))

	set(en, msgOffers, n("Also sold by %d other shop", "Also sold by %d other shops"))
	set(de, msgOffers, n("Auch bei %d anderen Shop erhältlich", "Auch bei %d anderen Shops erhältlich"))
	set(fr, msgOffers, n("Également vendu par %d autre boutique", "Également vendu par %d autres boutiques"))
	set(es, msgOffers, n("También a la venta en %d tienda más", "También a la venta en %d tiendas más"))
	return b.Builder
}()

// printer writes the sentences of one language.
type printer struct{ p *message.Printer }

func newPrinter(tag language.Tag) printer {
	return printer{message.NewPrinter(tag, message.Catalog(sentences))}
}

func (p printer) count(kind string, n int64) Message {
	return Message{Kind: kind, Text: p.p.Sprintf(kind, n)}
}

func (p printer) text(kind string) Message {
	return Message{Kind: kind, Text: p.p.Sprintf(kind)}
}
