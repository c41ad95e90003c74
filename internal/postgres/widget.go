package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc/internal/rollup"
)

// RecordWidget counts a report of the widget (rollup.WidgetStore): once
// its session's row (made from the session's views) takes it under the
// cap, its hour.
func (s *Store) RecordWidget(ctx context.Context, r rollup.WidgetReport) (counted bool, err error) {
	sc, hc := rollup.WidgetColumns(r.Kind)
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO widget_sessions AS w (brand_id, session_id, first_at, last_at, `+sc+`)
			SELECT brand_id, session_id, $3, $3, 1 FROM rollup_sessions WHERE brand_id = $1 AND session_id = $2 AND arm <> 'held_out'
			ON CONFLICT (brand_id, session_id) DO UPDATE SET `+sc+` = w.`+sc+` + 1, last_at = greatest(w.last_at, excluded.last_at)
			WHERE w.`+sc+` < $4`, r.Brand, r.Session, r.At, rollup.WidgetCap)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		counted = true
		_, err = tx.Exec(ctx, `INSERT INTO widget_hours AS h (brand_id, hour, `+hc+`) VALUES ($1, $2, 1)
			ON CONFLICT (brand_id, hour) DO UPDATE SET `+hc+` = h.`+hc+` + 1`, r.Brand, rollup.Floor(r.At, rollup.Hour))
		return err
	})
	return counted, err
}

// WidgetHours returns the brand's counted reports per hour.
func (s *Store) WidgetHours(ctx context.Context, brandID string, from, to time.Time) ([]rollup.WidgetHour, error) {
	var out []rollup.WidgetHour
	err := eachRow(ctx, s.pool, func(rows pgx.Rows) error {
		var h rollup.WidgetHour
		if err := rows.Scan(&h.Hour, &h.Impressions, &h.WidgetClicks, &h.ToastClicks, &h.ToastImpressions); err != nil {
			return err
		}
		out = append(out, h)
		return nil
	}, "SELECT hour, impressions, widget_clicks, toast_clicks, toast_impressions FROM widget_hours WHERE brand_id = $1 AND hour >= $2 AND hour < $3 ORDER BY hour",
		brandID, from.UnixMilli(), to.UnixMilli())
	return out, err
}

// WidgetSeen returns how many of the brand's sessions saw the widget.
func (s *Store) WidgetSeen(ctx context.Context, brandID string) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, "SELECT sessions FROM widget_seen WHERE brand_id = $1", brandID).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

var _ rollup.WidgetStore = (*Store)(nil)
