package sqlstore

import (
	"time"

	"github.com/svc-project/svc"
)

// recentColumns are a brand's recent purchases settings
// (svc.RecentSettings) in the brands table.
const recentColumns = "recent_delay, recent_window, recent_max, recent_k"

// recentSettings is the settings as both stores keep them: durations in
// seconds, defaults filled in.
type recentSettings struct{ delay, window, max, k int64 }

// recentRow returns the settings as stored.
func recentRow(s svc.RecentSettings) recentSettings {
	s = s.Stored()
	return recentSettings{int64(s.Delay / time.Second), int64(s.Window / time.Second), int64(s.MaxItems), int64(s.K)}
}

// values are the row's values, in the order of recentColumns.
func (r recentSettings) values() []any { return []any{r.delay, r.window, r.max, r.k} }

// dest are where a scan of recentColumns goes.
func (r *recentSettings) dest() []any { return []any{&r.delay, &r.window, &r.max, &r.k} }

// settings returns the stored row as settings.
func (r recentSettings) settings() svc.RecentSettings {
	return svc.RecentSettings{Delay: time.Duration(r.delay) * time.Second, Window: time.Duration(r.window) * time.Second,
		MaxItems: int(r.max), K: int(r.k)}
}

// widgetColumns are a brand's widget settings (svc.WidgetSettings) in the
// brands table.
const widgetColumns = "widget_font, min_carts, widget_accent"

// widgetValues are the settings as stored, in the order of widgetColumns.
func widgetValues(s svc.WidgetSettings) []any {
	s = s.Stored()
	return []any{s.Font, s.MinCarts, s.Accent}
}

// widgetDest are where a scan of widgetColumns goes.
func widgetDest(s *svc.WidgetSettings) []any { return []any{&s.Font, &s.MinCarts, &s.Accent} }
