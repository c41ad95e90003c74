package sqlstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/viewblock"
)

// Int64s is the argument that stores a list of ids, for InList.
func (d *Dialect) Int64s(ids []int64) any {
	if d.arrays {
		return ids
	}
	b, _ := json.Marshal(ids) // a list of numbers always marshals
	return string(b)
}

// InList is the condition that col is in the list of one ? argument
// (Int64s).
func (d *Dialect) InList(col string) string {
	if d.arrays {
		return col + " = ANY(?)"
	}
	return col + " IN (SELECT value FROM json_each(?))"
}

// inPairs is the condition that (a, b) is one of the pairs of the
// arguments pairs returns.
func (d *Dialect) inPairs(a, b string) string {
	if d.arrays {
		return "(" + a + ", " + b + ") IN (SELECT * FROM unnest(?::text[], ?::text[]))"
	}
	return "(" + a + ", " + b + ") IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))"
}

// pairs is the arguments of inPairs for the pairs (x[i], y[i]).
func (d *Dialect) pairs(x, y []string) []any {
	if d.arrays {
		return []any{x, y}
	}
	p := make([][2]string, len(x))
	for i := range x {
		p[i] = [2]string{x[i], y[i]}
	}
	b, _ := json.Marshal(p) // strings always marshal
	return []any{string(b)}
}

// DeleteExpired deletes in tx, with rt its rollups' writes, at most limit
// events and rows of each kind that expire with them older than before,
// and idempotency keys older than svc.IdempotencyTTL before now. Rows
// another node is deleting are skipped, not waited for. It returns how
// many rows it deleted; the store runs the transaction.
func DeleteExpired(ctx context.Context, tx Querier, rt rollup.Tx, d *Dialect, before, now time.Time, limit int) (int64, error) {
	// The events go with what they added to the rollups.
	delta := &rollup.Delta{}
	total, err := d.expireBlocks(ctx, tx, delta, Millis(before), limit)
	if err != nil {
		return 0, err
	}
	for _, t := range []struct{ table, alias string }{{"purchase_events", "e"}, {"cart_events", "c"}} {
		ids, err := Collect(ctx, tx, func(r Row) (id int64, err error) { return id, r.Scan(&id) },
			"SELECT id FROM "+t.table+" WHERE ts < ? ORDER BY ts LIMIT ?"+d.skipLocked, Millis(before), limit)
		if err != nil {
			return 0, err
		}
		if len(ids) == 0 {
			continue
		}
		list := d.Int64s(ids)
		cond := d.InList(t.alias + ".id")
		orders, carts := cond, ""
		if t.alias == "c" {
			orders, carts = "", cond
		}
		if err := CountEvents(ctx, tx, delta, -1, carts, orders, list); err != nil {
			return 0, err
		}
		n, err := tx.Exec(ctx, "DELETE FROM "+t.table+" WHERE "+d.InList("id"), list)
		if err != nil {
			return 0, err
		}
		total += n
	}
	if err := rollup.Apply(ctx, rt, delta); err != nil {
		return 0, err
	}
	// A session whose every view expired is in no arm any more. Its last
	// view is one of those just expired, so only their sessions are looked
	// up, by key: an index on last_at would have each view of a session
	// move its entry (migration 00032).
	brands, ids := delta.LeavingSessions()
	for len(ids) > 0 {
		n := min(len(ids), 500)
		if _, err := tx.Exec(ctx, "DELETE FROM rollup_sessions WHERE last_at < ? AND "+d.inPairs("brand_id", "session_id"),
			append([]any{Millis(before)}, d.pairs(brands[:n], ids[:n])...)...); err != nil {
			return 0, err
		}
		brands, ids = brands[n:], ids[n:]
	}
	// For a rollups build running meanwhile, which writes the sessions it
	// gathered at its end (RebuildRollups).
	if _, err := tx.Exec(ctx, "UPDATE rollup_build SET expired_before = ? WHERE expired_before < ?", Millis(before), Millis(before)); err != nil {
		return 0, err
	}
	for _, q := range []struct {
		sql string
		arg int64
	}{
		// The widget's reports (widget.go): a session's with its views, an hour once it is all past.
		{"DELETE FROM widget_sessions WHERE last_at < ?", Millis(before)},
		{"DELETE FROM widget_hours WHERE hour <= ?", Millis(before) - rollup.Hour},
	} {
		if _, err := tx.Exec(ctx, q.sql, q.arg); err != nil {
			return 0, err
		}
	}
	for _, q := range []struct {
		sql string
		arg int64
	}{
		{`DELETE FROM idempotency_keys WHERE (brand_id, scope, key) IN (SELECT brand_id, scope, key FROM idempotency_keys
			WHERE created_at < ? LIMIT ?` + d.skipLocked + `)`, Millis(now.Add(-svc.IdempotencyTTL))},
		// The audit log is kept as long as the events.
		{"DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE at < ? ORDER BY at LIMIT ?" + d.skipLocked + ")", Millis(before)},
		// A digest's claim, and so its unsubscribe link, too.
		{`DELETE FROM digest_sends WHERE (brand_id, email, week) IN (SELECT brand_id, email, week FROM digest_sends
			WHERE claimed_at < ? LIMIT ?` + d.skipLocked + `)`, Millis(before)},
		// Dashboard sessions unused for their whole life, with their address.
		{"DELETE FROM dashboard_sessions WHERE hash IN (SELECT hash FROM dashboard_sessions WHERE expires_at <= ? LIMIT ?" + d.skipLocked + ")", Millis(now)},
		{"DELETE FROM pending_cancels WHERE id IN (SELECT id FROM pending_cancels WHERE received_at < ? LIMIT ?" + d.skipLocked + ")", Millis(before)},
	} {
		n, err := tx.Exec(ctx, q.sql, q.arg, limit)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// expireBlocks deletes at most limit views older than before from the
// blocks that hold any, and adds them to delta with sign -1:
// a block all past goes, and a block that straddles the edge is written
// again with its newer views, so that no view past the retention stays
// stored or counted. Blocks are commit groups, which hold views of
// about one moment: few straddle, bar those with a keyed view's own,
// older timestamp.
func (d *Dialect) expireBlocks(ctx context.Context, tx Querier, delta *rollup.Delta, before int64, limit int) (int64, error) {
	ids, err := Collect(ctx, tx, func(r Row) (id int64, err error) { return id, r.Scan(&id) },
		"SELECT id FROM view_blocks WHERE min_ts < ? ORDER BY min_ts LIMIT ?"+d.skipLocked, before, limit)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	// One block at a time: a block moved from rows holds 4,096 views.
	var total int64
	for _, id := range ids {
		left := limit - int(total)
		if left <= 0 {
			break
		}
		n, err := d.RewriteBlocks(ctx, tx, "id = ?", []any{id}, DropViews(delta, func(v *viewblock.View) bool {
			if v.TS >= before || left == 0 {
				return false
			}
			left--
			return true
		}))
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
