package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
	"github.com/svc-project/svc/internal/viewblock"
)

// The event log is the view ids of view_blocks and the row ids of
// purchase_events. One connection writes, and a new block's views, as a
// new row, get the ids after the largest given, inside the write
// transaction: ids grow in commit order. They are reused only after the
// newest block or row of a table is deleted (expiry, or an erasure of
// every view of the newest block; an erasure that leaves a block a view
// keeps its range), which Continues detects by the event id.

var _ svc.EventLog = (*Store)(nil)

// LogPosition returns the ids and event ids of the newest view and order.
func (r reads) LogPosition(ctx context.Context) (svc.LogPosition, error) {
	var p svc.LogPosition
	err := sqlstore.EachBlock(ctx, rowsOf{r.db}, "id = (SELECT max(id) FROM view_blocks)", "", nil, func(b *sqlstore.Block) error {
		v := b.Views[len(b.Views)-1] // a block holds a view at least
		p.Views, p.ViewEvent = v.ID, v.EventID
		return nil
	})
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
	if p.Views != 0 {
		found := false
		err := sqlstore.EachBlock(ctx, rowsOf{r.db}, "id = (SELECT max(id) FROM view_blocks WHERE id <= ?) AND last >= ?", "",
			[]any{p.Views, p.Views}, func(b *sqlstore.Block) error {
				for _, v := range b.Views {
					found = found || v.ID == p.Views && v.EventID == p.ViewEvent
				}
				return nil
			})
		if err != nil || !found {
			return false, err
		}
	}
	for _, row := range []struct {
		query   string
		id      int64
		eventID string
	}{
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
	from := millis(since)
	return sqlstore.EachBlock(ctx, rowsOf{r.db}, "last > ? AND max_ts >= ?", "id", []any{after, from}, func(b *sqlstore.Block) error {
		for i := range b.Views {
			if v := &b.Views[i]; v.ID > after && v.TS >= from {
				if err := fn(v.ID, viewRecord(v)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// viewRecord is what a replay counts of a stored view.
func viewRecord(v *viewblock.View) svc.ViewRecord {
	return svc.ViewRecord{Product: svc.ProductRef(v.Product), Time: fromMillis(v.TS), SessionID: v.Session}
}

// PurchaseLinesAfter calls fn for each product of every order with an id
// after after and a time at or after since, in id order.
func (r reads) PurchaseLinesAfter(ctx context.Context, after int64, since time.Time, fn func(int64, svc.PurchaseRecord) error) error {
	records := svc.PurchaseRecords{Emit: fn}
	err := scanRangesInto(ctx, r.db, "SELECT min(id), max(id) FROM purchase_events WHERE id > ?",
		"SELECT "+lineColumns+" WHERE e.id >= ? AND e.id < ? AND e.ts >= ? ORDER BY e.id, i.line",
		after, []any{millis(since)}, scanLine, records.Add)
	if err != nil {
		return err
	}
	return records.Flush()
}
