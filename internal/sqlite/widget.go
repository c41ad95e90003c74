package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/svc-project/svc/internal/rollup"
)

// RecordWidget counts a report of the widget (rollup.WidgetStore): once
// its session's row (made from the session's views) takes it under the
// cap, its hour.
func (s *Store) RecordWidget(ctx context.Context, r rollup.WidgetReport) (counted bool, err error) {
	sc, hc := rollup.WidgetColumns(r.Kind)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO widget_sessions (brand_id, session_id, first_at, last_at, `+sc+`)
			SELECT brand_id, session_id, ?3, ?3, 1 FROM rollup_sessions WHERE brand_id = ?1 AND session_id = ?2 AND arm <> 'held_out'
			ON CONFLICT DO UPDATE SET `+sc+` = `+sc+` + 1, last_at = max(last_at, excluded.last_at) WHERE `+sc+` < ?4`,
			r.Brand, r.Session, r.At, rollup.WidgetCap)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		counted = true
		_, err = tx.ExecContext(ctx, `INSERT INTO widget_hours (brand_id, hour, `+hc+`) VALUES (?, ?, 1)
			ON CONFLICT DO UPDATE SET `+hc+` = `+hc+` + 1`, r.Brand, rollup.Floor(r.At, rollup.Hour))
		return err
	})
	return counted, err
}

// WidgetHours returns the brand's counted reports per hour.
func (r reads) WidgetHours(ctx context.Context, brandID string, from, to time.Time) ([]rollup.WidgetHour, error) {
	var out []rollup.WidgetHour
	err := eachRowOf(ctx, r.db, func(rows *sql.Rows) error {
		var h rollup.WidgetHour
		if err := rows.Scan(&h.Hour, &h.Impressions, &h.WidgetClicks, &h.ToastClicks, &h.ToastImpressions); err != nil {
			return err
		}
		out = append(out, h)
		return nil
	}, "SELECT hour, impressions, widget_clicks, toast_clicks, toast_impressions FROM widget_hours WHERE brand_id = ? AND hour >= ? AND hour < ? ORDER BY hour",
		brandID, from.UnixMilli(), to.UnixMilli())
	return out, err
}

// WidgetSeen returns how many of the brand's sessions saw the widget.
func (r reads) WidgetSeen(ctx context.Context, brandID string) (int64, error) {
	var n int64
	err := r.db.QueryRowContext(ctx, "SELECT sessions FROM widget_seen WHERE brand_id = ?", brandID).Scan(&n)
	if ok, err := found(err); !ok {
		return 0, err
	}
	return n, nil
}

var _ rollup.WidgetStore = (*Store)(nil)
