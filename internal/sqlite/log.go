package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/svc-project/svc"
)

// The event log is the row ids of view_events and purchase_events. One
// connection writes, and SQLite gives a new row the largest id in its table
// plus one, inside the write transaction: ids grow in commit order. They
// are reused only after the newest row of a table is deleted (an erasure,
// or an event backdated to the edge of the retention expiring), which
// Continues detects by the event id.

var _ svc.EventLog = (*Store)(nil)

// LogPosition returns the ids and event ids of the newest view and order.
func (r reads) LogPosition(ctx context.Context) (svc.LogPosition, error) {
	var p svc.LogPosition
	err := newest(ctx, r.db, "SELECT id, event_id FROM view_events ORDER BY id DESC LIMIT 1", &p.Views, &p.ViewEvent)
	if err == nil {
		err = newest(ctx, r.db, "SELECT id, event_id FROM purchase_events ORDER BY id DESC LIMIT 1", &p.Orders, &p.OrderEvent)
	}
	if err == nil {
		err = r.db.QueryRowContext(ctx, "SELECT coalesce(max(id), 0) FROM order_cancels").Scan(&p.Cancels)
	}
	return p, err
}

func newest(ctx context.Context, db queryer, query string, id *int64, eventID *string) error {
	err := db.QueryRowContext(ctx, query).Scan(id, eventID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}

// Continues reports whether the rows p names are still stored as they were:
// then the largest id never fell below p's since, and every row added since
// has a larger id.
func (r reads) Continues(ctx context.Context, p svc.LogPosition) (bool, error) {
	for _, row := range []struct {
		query   string
		id      int64
		eventID string
	}{
		{"SELECT event_id FROM view_events WHERE id = ?", p.Views, p.ViewEvent},
		{"SELECT event_id FROM purchase_events WHERE id = ?", p.Orders, p.OrderEvent},
	} {
		if row.id == 0 {
			continue // the table was empty: every row has a larger id
		}
		var eventID string
		err := r.db.QueryRowContext(ctx, row.query, row.id).Scan(&eventID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return false, nil
		case err != nil:
			return false, err
		case eventID != row.eventID:
			return false, nil
		}
	}
	return true, nil
}

// ViewsAfter calls fn for every view with an id after after and a time at
// or after since, in id order.
func (r reads) ViewsAfter(ctx context.Context, after int64, since time.Time, fn func(int64, svc.ViewRecord) error) error {
	return scanRangesInto(ctx, r.db, "SELECT min(id), max(id) FROM view_events WHERE id > ?",
		"SELECT id, product, ts, coalesce(session_id, '') FROM view_events WHERE id >= ? AND id < ? AND ts >= ? ORDER BY id",
		after, []any{millis(since)}, func(rows *sql.Rows, dst *viewRow) error {
			return rows.Scan(&dst.pos, &dst.r.Product, &dst.ts, &dst.r.SessionID)
		}, func(v viewRow) error { return fn(v.pos, v.record()) })
}

// PurchaseLinesAfter calls fn for each product of every order with an id
// after after and a time at or after since, in id order.
func (r reads) PurchaseLinesAfter(ctx context.Context, after int64, since time.Time, fn func(int64, svc.PurchaseRecord) error) error {
	records := svc.PurchaseRecords{Emit: fn}
	err := scanRanges(ctx, r.db, "SELECT min(id), max(id) FROM purchase_events WHERE id > ?",
		"SELECT "+lineColumns+" WHERE e.id >= ? AND e.id < ? AND e.ts >= ? ORDER BY e.id, i.line",
		after, []any{millis(since)}, scanLine, records.Add)
	if err != nil {
		return err
	}
	return records.Flush()
}
