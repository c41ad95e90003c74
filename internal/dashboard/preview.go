package dashboard

import (
	"strconv"
	"strings"

	svc "github.com/svc-project/svc"
)

// preview is what the widget shows for counts under thresholds: the
// sentences of the client script's tables, in the brand's first language
// (what a shopper whose language is not listed sees), and why it shows
// nothing when it does, for the product page. The settings page shows the
// real widget instead (widgetpreview.go).
type preview struct {
	Viewers, Purchases       int64
	MinViewers, MinPurchases int
	Lang                     string   // the sentences' language
	Position                 string   // the corner: start or end
	Lines                    []string // the widget's sentences; none when it shows nothing
	Why                      string   // why a count is withheld
}

// brandPreview is the preview of a brand's widget: its thresholds, its
// first language and its corner.
func brandPreview(viewers, purchases int64, b *svc.Brand) preview {
	lang := svc.WidgetLanguagesOf(b.Languages)[0]
	p := preview{Viewers: viewers, Purchases: purchases, MinViewers: b.MinViewers, MinPurchases: b.MinPurchases,
		Lang: lang, Position: svc.WidgetPositionOf(b.WidgetPosition)}
	if viewers >= int64(b.MinViewers) && viewers > 0 {
		p.Lines = append(p.Lines, widgetSentence(lang, "viewers", viewers))
	}
	if purchases >= int64(b.MinPurchases) && purchases > 0 {
		p.Lines = append(p.Lines, widgetSentence(lang, "purchases", purchases))
	}
	if len(p.Lines) == 0 {
		p.Why = "The widget shows nothing: " + inWords(viewers, "viewers") + " in the last hour (it needs " +
			strconv.Itoa(b.MinViewers) + ") and " + inWords(purchases, "purchases") + " in the last 24 hours (it needs " +
			strconv.Itoa(b.MinPurchases) + ")."
	}
	return p
}

// languagesText is a brand's languages as the settings form shows them.
func languagesText(b *svc.Brand) string {
	return strings.Join(svc.WidgetLanguagesOf(b.Languages), ",")
}
