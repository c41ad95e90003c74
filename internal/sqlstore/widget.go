package sqlstore

import (
	"context"
	"time"

	"github.com/svc-project/svc/internal/rollup"
)

var _ rollup.WidgetStore = (*Store)(nil)

// RecordWidget counts a report of the widget (rollup.WidgetStore): once
// its session's row (made from the session's views) takes it under the
// cap, its hour.
func (s *Store) RecordWidget(ctx context.Context, r rollup.WidgetReport) (counted bool, err error) {
	sc, hc := reportColumns(r.Kind)
	err = s.inTx(ctx, func(tx Querier) error {
		n, err := tx.Exec(ctx, `INSERT INTO widget_sessions AS w (brand_id, session_id, first_at, last_at, `+sc+`)
			SELECT brand_id, session_id, ?, ?, 1 FROM rollup_sessions WHERE brand_id = ? AND session_id = ? AND arm <> 'held_out'
			ON CONFLICT (brand_id, session_id) DO UPDATE SET `+sc+` = w.`+sc+` + 1, last_at = `+s.d.greatest+`(w.last_at, excluded.last_at)
			WHERE w.`+sc+` < ?`, r.At, r.At, r.Brand, r.Session, rollup.WidgetCap)
		if err != nil || n == 0 {
			return err
		}
		counted = true
		_, err = tx.Exec(ctx, `INSERT INTO widget_hours AS h (brand_id, hour, `+hc+`) VALUES (?, ?, 1)
			ON CONFLICT (brand_id, hour) DO UPDATE SET `+hc+` = h.`+hc+` + 1`, r.Brand, rollup.Floor(r.At, rollup.Hour))
		return err
	})
	return counted, err
}

// WidgetHours returns the brand's counted reports per hour
// (rollup.WidgetStore).
func (s *Store) WidgetHours(ctx context.Context, brandID string, from, to time.Time) ([]rollup.WidgetHour, error) {
	return Collect(ctx, s.r, func(r Row) (h rollup.WidgetHour, err error) {
		return h, r.Scan(&h.Hour, &h.Impressions, &h.WidgetClicks, &h.ToastClicks, &h.ToastImpressions)
	}, "SELECT hour, impressions, widget_clicks, toast_clicks, toast_impressions FROM widget_hours WHERE brand_id = ? AND hour >= ? AND hour < ? ORDER BY hour",
		brandID, from.UnixMilli(), to.UnixMilli())
}

// WidgetSeen returns how many of the brand's sessions saw the widget
// (rollup.WidgetStore).
func (s *Store) WidgetSeen(ctx context.Context, brandID string) (int64, error) {
	var n int64
	err := s.r.QueryRow(ctx, "SELECT sessions FROM widget_seen WHERE brand_id = ?", brandID).Scan(&n)
	if NoRows(err) {
		return 0, nil
	}
	return n, err
}

// reportColumns are a report's columns: of its session's row (toasts
// shown count toward the session's impressions, and its cap) and of its
// hour's.
func reportColumns(kind string) (session, hour string) {
	switch kind {
	case rollup.WidgetSeen:
		return "impressions", "impressions"
	case rollup.ToastSeen:
		return "impressions", "toast_impressions"
	case rollup.WidgetClick:
		return "clicks", "widget_clicks"
	default:
		return "clicks", "toast_clicks"
	}
}
