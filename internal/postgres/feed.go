package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
)

// The change feed brings a node what other nodes committed. Every product
// and event row carries the id of the transaction that wrote it (txid), and
// a cursor is a PostgreSQL snapshot: the rows new since a cursor are those
// whose transaction is not visible in it. A serial id would not do: a
// transaction that commits late may hold lower ids than rows already read.
// The snapshot's rule has no such gap and no overlap, whatever the order of
// commits, and it is not held back by a long transaction elsewhere.

// ReadSnapshot calls fn with reads that all see one snapshot, and returns it
// as the cursor to follow changes from. From its first call on, the Store
// remembers its own event transactions, so that Changes skips them.
func (s *Store) ReadSnapshot(ctx context.Context, fn func(svc.EventReader) error) (svc.FeedCursor, error) {
	s.own.activate()
	var cur svc.FeedCursor
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, "SELECT pg_current_snapshot()::text").Scan(&cur); err != nil {
			return err
		}
		return fn(snapshotReader{tx})
	})
	return cur, err
}

type snapshotReader struct{ tx pgx.Tx }

func (r snapshotReader) Products(ctx context.Context, fn func(*svc.Product) error) error {
	return products(ctx, r.tx, fn)
}

func (r snapshotReader) Views(ctx context.Context, since time.Time, fn func(svc.ViewRecord) error) error {
	return views(ctx, r.tx, since, fn)
}

func (r snapshotReader) CountedViews(ctx context.Context, since time.Time, hash func([]byte) uint64, fn func([]svc.CountedView) error) error {
	return countedViews(ctx, r.tx, since, hash, fn)
}

func (r snapshotReader) Carts(ctx context.Context, since time.Time, fn func(svc.CartRecord) error) error {
	return carts(ctx, r.tx, since, fn)
}

func (r snapshotReader) PurchaseLines(ctx context.Context, since time.Time, fn func(svc.PurchaseRecord) error) error {
	return purchaseLineRecords(ctx, r.tx, since, fn)
}

// newSince selects the rows of the table (its alias) that transactions
// committed after the snapshot given twice: the index on txid narrows them
// to those not older than its xmin.
func newSince(table string) string {
	return table + ".txid >= pg_snapshot_xmin(CAST(? AS pg_snapshot)) AND NOT pg_visible_in_snapshot(" + table + ".txid, CAST(? AS pg_snapshot))"
}

// Changes returns the products registered or changed, and the events other
// Store values appended, that committed after the cursor, with the next
// cursor. Events of this Store's own commits are left out: their writer
// counted them when Append returned.
func (s *Store) Changes(ctx context.Context, after svc.FeedCursor) (*svc.Changes, error) {
	var read *sqlstore.FeedRead
	var next string
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, "SELECT pg_current_snapshot()::text").Scan(&next); err != nil {
			return err
		}
		var err error
		read, err = sqlstore.ReadFeed(ctx, sqlstore.PostgreSQL.Wrap(pgQ{tx}), sqlstore.PostgreSQL, sqlstore.FeedSource{
			Products: func() (string, []any) { return newSince("products"), []any{after, after} },
			Rows: func(_ sqlstore.FeedTable, alias string) (string, []any, bool) {
				return newSince(alias), []any{after, after}, true
			},
			Key: func(alias string) string { return alias + ".txid::text::bigint" },
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	snap, err := parseSnapshot(next)
	if err != nil {
		return nil, err
	}
	out := read.Changes(svc.FeedCursor(next), func(_ sqlstore.FeedTable, txid int64) bool { return s.own.mine(txid) })
	s.own.forget(snap)
	return out, nil
}

// ownTxs are the transactions of this Store's Appends, from the first
// ReadSnapshot on: their events were counted by the node when they
// committed, and the feed must not hand them back.
type ownTxs struct {
	on   atomic.Bool
	mu   sync.Mutex
	txns map[int64]*ownTx
}

type ownTx struct {
	done chan struct{} // closed when the commit's outcome is known
	ok   bool
}

func (o *ownTxs) activate() {
	o.mu.Lock()
	if o.txns == nil {
		o.txns = map[int64]*ownTx{}
	}
	o.mu.Unlock()
	o.on.Store(true)
}

func (o *ownTxs) active() bool { return o.on.Load() }

// begin notes a transaction about to commit, and returns what to call with
// the outcome. A commit that failed is forgotten at once: if it took place
// after all, the feed hands its events back, and they are counted.
func (o *ownTxs) begin(xid int64) func(ok bool) {
	if xid == 0 {
		return func(bool) {}
	}
	t := &ownTx{done: make(chan struct{})}
	o.mu.Lock()
	o.txns[xid] = t
	o.mu.Unlock()
	return func(ok bool) {
		o.mu.Lock()
		t.ok = ok
		if !ok {
			delete(o.txns, xid)
		}
		o.mu.Unlock()
		close(t.done)
	}
}

// forget forgets the own transactions that the snapshot shows as
// finished: no later read of the feed can meet them again.
func (o *ownTxs) forget(snap snapshot) {
	if !o.active() {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for xid := range o.txns {
		if snap.finished(xid) {
			delete(o.txns, xid)
		}
	}
}

// mine reports whether a transaction the feed sees is one of this Store's
// own that committed.
func (o *ownTxs) mine(txid int64) bool {
	if !o.active() {
		return false
	}
	o.mu.Lock()
	t := o.txns[txid]
	o.mu.Unlock()
	if t == nil {
		return false
	}
	<-t.done // visible, so committed: Append is about to learn it
	o.mu.Lock()
	defer o.mu.Unlock()
	return t.ok
}

// snapshot is a parsed pg_snapshot: xmin:xmax:xip,...
type snapshot struct {
	xmin, xmax int64
	xip        map[int64]bool
}

func parseSnapshot(s string) (snapshot, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return snapshot{}, fmt.Errorf("postgres: snapshot %q", s)
	}
	var snap snapshot
	var err1, err2 error
	snap.xmin, err1 = strconv.ParseInt(parts[0], 10, 64)
	snap.xmax, err2 = strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return snapshot{}, fmt.Errorf("postgres: snapshot %q", s)
	}
	snap.xip = map[int64]bool{}
	for _, x := range strings.Split(parts[2], ",") {
		if x == "" {
			continue
		}
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return snapshot{}, fmt.Errorf("postgres: snapshot %q", s)
		}
		snap.xip[n] = true
	}
	return snap, nil
}

// finished reports whether the transaction had ended when the snapshot was taken.
func (s snapshot) finished(xid int64) bool {
	return xid < s.xmin || xid < s.xmax && !s.xip[xid]
}
