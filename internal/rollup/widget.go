package rollup

import (
	"context"
	"time"
)

// The kinds of a widget report (POST /api/collect/widget), as svc.js
// sends them: the widget was shown, the widget was clicked, a toast was
// clicked, a toast was shown.
const (
	WidgetSeen  = "seen"
	WidgetClick = "click"
	ToastClick  = "toast"
	ToastSeen   = "toast_seen"
)

// WidgetKinds are the kinds a report may give.
var WidgetKinds = []string{WidgetSeen, WidgetClick, ToastClick, ToastSeen}

// WidgetCap is how many impressions, and how many clicks, one session
// may add in all: the reports are anonymous, and a session that sends
// more is not counted further (docs/dashboard.md, The widget's effect).
const WidgetCap = 50

// WidgetReport is one report of the widget, as stored: the time is the
// server's, never the sender's.
type WidgetReport struct {
	Brand, Session, Kind string
	At                   int64 // ms
}

// WidgetHour is a brand's hour of reports that were counted.
type WidgetHour struct {
	Hour                                   int64
	Impressions, WidgetClicks, ToastClicks int64
	ToastImpressions                       int64
}

// WidgetStore keeps the widget's reports: per hour, and per session that
// saw it.
type WidgetStore interface {
	// RecordWidget counts a report when its session sent a view of the
	// brand, is not held out, and is under WidgetCap for the kind; it
	// reports whether it counted. The report is committed when it
	// returns.
	RecordWidget(ctx context.Context, r WidgetReport) (counted bool, err error)
	// WidgetHours returns the brand's hours in [from, to), oldest first.
	WidgetHours(ctx context.Context, brandID string, from, to time.Time) ([]WidgetHour, error)
	// WidgetSeen returns how many of the brand's sessions saw the widget.
	WidgetSeen(ctx context.Context, brandID string) (int64, error)
}
