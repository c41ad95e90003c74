package dashboard

import (
	"strconv"
	"strings"

	svc "github.com/svc-project/svc"
)

// preview is what the widget shows for counts under thresholds: the
// sentences of the client script's tables, in the brand's first language
// (what a shopper whose language is not listed sees), and why it shows
// nothing when it does. static/dashboard.js computes the same in the
// settings page as the settings change.
type preview struct {
	Viewers, Purchases       int64
	MinViewers, MinPurchases int
	Lang                     string   // the sentences' language
	Position                 string   // the corner: start or end
	Lines                    []string // the widget's sentences; none when it shows nothing
	Why                      string   // why a count is withheld
}

// previewWords are the sentences of svc.js's T for the preview's two
// counts, one and other, per language (static/dashboard.js has the same).
var previewWords = map[string][4]string{
	"en": {"person viewed this in the last hour", "people viewed this in the last hour", "purchase in the last 24 hours", "purchases in the last 24 hours"},
	"de": {"Person hat diesen Artikel in der letzten Stunde angesehen", "Personen haben diesen Artikel in der letzten Stunde angesehen", "Kauf in den letzten 24 Stunden", "Käufe in den letzten 24 Stunden"},
	"fr": {"personne a consulté cet article au cours de la dernière heure", "personnes ont consulté cet article au cours de la dernière heure", "achat au cours des 24 dernières heures", "achats au cours des 24 dernières heures"},
	"es": {"persona vio este artículo en la última hora", "personas vieron este artículo en la última hora", "compra en las últimas 24 horas", "compras en las últimas 24 horas"},
}

// brandPreview is the preview of a brand's widget: its thresholds, its
// first language and its corner.
func brandPreview(viewers, purchases int64, b *svc.Brand) preview {
	lang := svc.WidgetLanguagesOf(b.Languages)[0]
	p := preview{Viewers: viewers, Purchases: purchases, MinViewers: b.MinViewers, MinPurchases: b.MinPurchases,
		Lang: lang, Position: svc.WidgetPositionOf(b.WidgetPosition)}
	words := previewWords[lang]
	if viewers >= int64(b.MinViewers) && viewers > 0 {
		p.Lines = append(p.Lines, plural(viewers, words[0], words[1]))
	}
	if purchases >= int64(b.MinPurchases) && purchases > 0 {
		p.Lines = append(p.Lines, plural(purchases, words[2], words[3]))
	}
	if len(p.Lines) == 0 {
		p.Why = "The widget shows nothing: " + strconv.FormatInt(viewers, 10) + " viewers in the last hour (it needs " +
			strconv.Itoa(b.MinViewers) + ") and " + strconv.FormatInt(purchases, 10) + " purchases in the last 24 hours (it needs " +
			strconv.Itoa(b.MinPurchases) + ")."
	}
	return p
}

// languagesText is a brand's languages as the settings form shows them.
func languagesText(b *svc.Brand) string {
	return strings.Join(svc.WidgetLanguagesOf(b.Languages), ",")
}

func plural(n int64, one, other string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + other
}
