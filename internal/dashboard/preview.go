package dashboard

import (
	"strconv"
)

// preview is what the widget shows for counts under thresholds, in
// English: the sentences of the client script's "en" table, and why it
// shows nothing when it does. static/dashboard.js computes the same in
// the settings page as the thresholds change.
type preview struct {
	Viewers, Purchases       int64
	MinViewers, MinPurchases int
	Lines                    []string // the widget's sentences; none when it shows nothing
	Why                      string   // why a count is withheld
}

func widgetPreview(viewers, purchases int64, minViewers, minPurchases int) preview {
	p := preview{Viewers: viewers, Purchases: purchases, MinViewers: minViewers, MinPurchases: minPurchases}
	if viewers >= int64(minViewers) && viewers > 0 {
		p.Lines = append(p.Lines, plural(viewers, "person viewed", "people viewed")+" this in the last hour")
	}
	if purchases >= int64(minPurchases) && purchases > 0 {
		p.Lines = append(p.Lines, plural(purchases, "purchase", "purchases")+" in the last 24 hours")
	}
	if len(p.Lines) == 0 {
		p.Why = "The widget shows nothing: " + strconv.FormatInt(viewers, 10) + " viewers in the last hour (it needs " +
			strconv.Itoa(minViewers) + ") and " + strconv.FormatInt(purchases, 10) + " purchases in the last 24 hours (it needs " +
			strconv.Itoa(minPurchases) + ")."
	}
	return p
}

func plural(n int64, one, other string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + other
}
