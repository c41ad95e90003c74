package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
)

// The change feed (svc.ChangeFeed) brings a server what other processes
// committed to the file: svc import, or any other writer. SQLite commits
// one writer at a time, and a row written without an id gets one more than
// the largest of its table, so a cursor is the largest id of each event
// table (and the largest products.changed) as one read transaction saw
// them: the rows new since a cursor are those above it, and no row can
// commit later with an id below it. Ids are reused only once a table's
// newest rows are deleted: an erasure bumps the erasure version, and so
// does expiry when it deletes a table's newest row (DeleteExpired); the
// servers then recount, and their feed starts over from the recount's
// snapshot.
//
// A Store skips its own commits, which its server counted when Append
// returned: from its first ReadSnapshot on, each transaction that writes
// events notes, per table, the ids between the largest before it and the
// largest after it, which no other writer can come between.
//
// PRAGMA data_version, on the feed's own connection, changes when any other
// connection commits: a poll while nobody writes costs that one statement.

var _ svc.ChangeFeed = (*Store)(nil)

// The event tables a cursor and a transaction's own ids cover.
const (
	tViews   = sqlstore.FeedTableViews
	tOrders  = sqlstore.FeedTableOrders
	tCarts   = sqlstore.FeedTableCarts
	tCancels = sqlstore.FeedTableCancels
	nTables  = 4
)

// qMaxIDs reads the largest id of each event table, in the order above.
const qMaxIDs = `SELECT (` + qLastViewID + `), (SELECT coalesce(max(id), 0) FROM purchase_events),
	(SELECT coalesce(max(id), 0) FROM cart_events), (SELECT coalesce(max(id), 0) FROM order_cancels)`

// qDataVersion tells whether another connection committed since the last time.
const qDataVersion = "PRAGMA data_version"

// cursor is a moment of the feed: the largest products.changed and the
// largest id of each event table.
type cursor struct {
	products int64
	ids      [nTables]int64
}

const cursorTag = "sqlite1"

func (c cursor) String() svc.FeedCursor {
	return svc.FeedCursor(fmt.Sprintf("%s:%d:%d:%d:%d:%d", cursorTag, c.products, c.ids[tViews], c.ids[tOrders], c.ids[tCarts], c.ids[tCancels]))
}

func parseCursor(s svc.FeedCursor) (cursor, error) {
	var c cursor
	parts := strings.Split(string(s), ":")
	if len(parts) != 2+nTables || parts[0] != cursorTag {
		return c, fmt.Errorf("sqlite: feed cursor %q", s)
	}
	dst := []*int64{&c.products, &c.ids[tViews], &c.ids[tOrders], &c.ids[tCarts], &c.ids[tCancels]}
	for i, p := range parts[1:] {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return c, fmt.Errorf("sqlite: feed cursor %q", s)
		}
		*dst[i] = n
	}
	return c, nil
}

// feedState is the feed's side of a Store.
type feedState struct {
	on atomic.Bool // ReadSnapshot was called: own writes are noted

	mu      sync.Mutex // one read of the feed at a time; guards what follows
	db      *sql.DB    // opened by the first ReadSnapshot
	conn    *sql.Conn  // the one connection whose data_version is compared
	known   bool       // version, last and pos are those of a read
	version int64      // data_version before the last read
	last    cursor     // what the last read returned
	pos     svc.LogPosition

	ownMu sync.Mutex
	own   []*ownWrite
}

// ownWrite is a transaction of this Store that wrote events: the ids
// (lo, hi] of each table.
type ownWrite struct {
	lo, hi [nTables]int64
	done   chan struct{} // closed when the commit's outcome is known
	ok     bool
}

// feedConnLocked returns the feed's connection, opening it if needed.
func (s *Store) feedConnLocked(ctx context.Context) (*sql.Conn, error) {
	f := &s.feed
	if f.conn != nil {
		return f.conn, nil
	}
	if f.db == nil {
		db, err := sql.Open("sqlite", s.readDSN)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		f.db = db
	}
	c, err := f.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	f.conn, f.known = c, false
	return c, nil
}

// dropConnLocked closes the feed's connection after an error: the next
// read opens another, and compares no data_version with the old one's.
func (s *Store) dropConnLocked() {
	f := &s.feed
	if f.conn != nil {
		_ = f.conn.Close()
		f.conn, f.known = nil, false
	}
}

// closeFeed closes the feed's connection.
func (s *Store) closeFeed() error {
	f := &s.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	s.dropConnLocked()
	if f.db != nil {
		return f.db.Close()
	}
	return nil
}

// readCursor reads the cursor and log position of tx's moment.
func readCursor(ctx context.Context, tx *sql.Tx) (cursor, svc.LogPosition, error) {
	var c cursor
	err := tx.QueryRowContext(ctx, "SELECT coalesce(max(changed), 0) FROM products").Scan(&c.products)
	if err == nil {
		err = tx.QueryRowContext(ctx, qMaxIDs).Scan(&c.ids[tViews], &c.ids[tOrders], &c.ids[tCarts], &c.ids[tCancels])
	}
	if err != nil {
		return c, svc.LogPosition{}, err
	}
	pos, err := reads{tx}.LogPosition(ctx)
	return c, pos, err
}

// inFeedTx runs fn in a read transaction on the feed's connection, with
// the data_version read just before it and the transaction's cursor.
func (s *Store) inFeedTx(ctx context.Context, fn func(tx *sql.Tx, version int64, cur cursor, pos svc.LogPosition) error) error {
	conn, err := s.feedConnLocked(ctx)
	if err != nil {
		return err
	}
	err = func() error {
		var version int64
		if err := conn.QueryRowContext(ctx, qDataVersion).Scan(&version); err != nil {
			return err
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }() // a read: nothing to keep
		cur, pos, err := readCursor(ctx, tx)
		if err != nil {
			return err
		}
		return fn(tx, version, cur, pos)
	}()
	if err != nil {
		s.dropConnLocked()
	}
	return err
}

// ReadSnapshot calls fn with reads that all see the store as of one
// moment, in one read transaction, and returns that moment as the cursor
// to follow changes from. The reads are also an svc.EventLog, so that a
// server restores its saved counts and the events after them as of the
// same moment. From its first call on, the Store notes the ids of its own
// event transactions, so that Changes skips them.
func (s *Store) ReadSnapshot(ctx context.Context, fn func(svc.EventReader) error) (svc.FeedCursor, error) {
	f := &s.feed
	f.on.Store(true)
	f.mu.Lock()
	defer f.mu.Unlock()
	finished := s.finishedOwn()
	var out cursor
	err := s.inFeedTx(ctx, func(tx *sql.Tx, version int64, cur cursor, pos svc.LogPosition) error {
		if err := fn(reads{tx}); err != nil {
			return err
		}
		f.known, f.version, f.last, f.pos = true, version, cur, pos
		out = cur
		return nil
	})
	if err != nil {
		return "", err
	}
	// What the own writes that ended before the read wrote is in it, or
	// was deleted since: none is met again, and their ids may be another
	// writer's by now, when expiry or an erasure deleted a table's newest
	// rows and the cursor went back below them.
	s.forgetOwn(out, finished...)
	return out.String(), nil
}

// finishedOwn returns the own transactions whose outcome is known.
func (s *Store) finishedOwn() []*ownWrite {
	f := &s.feed
	f.ownMu.Lock()
	defer f.ownMu.Unlock()
	var out []*ownWrite
	for _, o := range f.own {
		select {
		case <-o.done:
			out = append(out, o)
		default:
		}
	}
	return out
}

// Changes returns the products registered or changed, and the events other
// processes (or Store values) committed, after the cursor, with the next
// cursor. Events of this Store's own commits are left out: its server
// counted them when Append returned.
func (s *Store) Changes(ctx context.Context, after svc.FeedCursor) (*svc.Changes, error) {
	a, err := parseCursor(after)
	if err != nil {
		return nil, err
	}
	f := &s.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.known && f.last == a && f.conn != nil {
		var version int64
		if err := f.conn.QueryRowContext(ctx, qDataVersion).Scan(&version); err != nil {
			s.dropConnLocked()
			return nil, err
		}
		if version == f.version {
			return &svc.Changes{Cursor: after}, nil // nobody committed since
		}
	}
	var read *sqlstore.FeedRead
	var next cursor
	err = s.inFeedTx(ctx, func(tx *sql.Tx, version int64, cur cursor, pos svc.LogPosition) error {
		var err error
		read, err = sqlstore.ReadFeed(ctx, sqlstore.SQLite.Wrap(sqlQ{tx}), sqlstore.SQLite, sqlstore.FeedSource{
			Products: func() (string, []any) { return "changed > ? AND changed <= ?", []any{a.products, cur.products} },
			// The cursor was read in this transaction: no later row is
			// seen, but the bound keeps the read to its cursor all the same.
			Rows: func(t sqlstore.FeedTable, alias string) (string, []any, bool) {
				lo, hi := s.othersIn(t, a.ids[t], cur.ids[t])
				return alias + ".id > ? AND " + alias + ".id <= ?", []any{lo, hi}, lo < hi
			},
			Key: func(alias string) string { return alias + ".id" },
			ViewIDs: func() (int64, int64, bool) {
				lo, hi := s.othersIn(tViews, a.ids[tViews], cur.ids[tViews])
				return lo, hi, lo < hi
			},
		})
		if err != nil {
			return err
		}
		f.known, f.version, f.last, f.pos = true, version, cur, pos
		next = cur
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := read.Changes(next.String(), func(t sqlstore.FeedTable, id int64) bool { return f.on.Load() && s.mine(t, id) })
	s.forgetOwn(next)
	return out, nil
}

// LogPosition returns the ids and event ids of the newest view and order,
// and the id of the newest cancellation. Once the feed is followed, it is
// the position of the feed's last read instead: a server that saves its
// counts reads the feed first, with its own commits held, and its counts
// then hold exactly what committed up to that read.
func (s *Store) LogPosition(ctx context.Context) (svc.LogPosition, error) {
	if !s.feed.on.Load() {
		return s.reads.LogPosition(ctx)
	}
	f := &s.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.known {
		return svc.LogPosition{}, fmt.Errorf("sqlite: the change feed has not been read since its connection failed")
	}
	return f.pos, nil
}

// inEventTx is inTx for a transaction that writes events: once the feed
// is followed, it notes the ids the transaction wrote, which Changes
// leaves out.
func (s *Store) inEventTx(ctx context.Context, fn func(*sql.Tx) error) error {
	if !s.feed.on.Load() {
		return s.inTx(ctx, fn)
	}
	var own *ownWrite
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var lo, hi [nTables]int64
		if err := maxIDs(ctx, tx, s.stmts, &lo); err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		if err := maxIDs(ctx, tx, s.stmts, &hi); err != nil {
			return err
		}
		own = &ownWrite{lo: lo, hi: hi, done: make(chan struct{})}
		f := &s.feed
		f.ownMu.Lock()
		f.own = append(f.own, own)
		f.ownMu.Unlock()
		return nil
	})
	if own != nil {
		// A commit that failed is forgotten at once: if it took place
		// after all, the feed hands its events back, and they are counted.
		f := &s.feed
		f.ownMu.Lock()
		own.ok = err == nil
		f.ownMu.Unlock()
		close(own.done)
	}
	return err
}

func maxIDs(ctx context.Context, tx *sql.Tx, stmts stmtCache, ids *[nTables]int64) error {
	return tx.StmtContext(ctx, stmts[qMaxIDs]).QueryRowContext(ctx).Scan(&ids[tViews], &ids[tOrders], &ids[tCarts], &ids[tCancels])
}

// mine reports whether the row id of the table is one of this Store's own
// commits.
func (s *Store) mine(table sqlstore.FeedTable, id int64) bool {
	f := &s.feed
	f.ownMu.Lock()
	var ws []*ownWrite // a failed commit's ids may be another's since
	for _, o := range f.own {
		if o.lo[table] < id && id <= o.hi[table] {
			ws = append(ws, o)
		}
	}
	f.ownMu.Unlock()
	for _, w := range ws {
		<-w.done // visible, so committed: the writer is about to learn it
		f.ownMu.Lock()
		ok := w.ok
		f.ownMu.Unlock()
		if ok {
			return true
		}
	}
	return false
}

// othersIn narrows the ids (lo, hi] of a table to the part that other
// writers may have committed to: it drops this Store's own committed ids
// at either end, so that a poll after only its own commits reads no row
// (reading them back to skip them took 8% of a loaded server's CPU). Own
// rows inside the part left are told apart by mine.
func (s *Store) othersIn(table sqlstore.FeedTable, lo, hi int64) (int64, int64) {
	f := &s.feed
	f.ownMu.Lock()
	// In the order of their ids, but where a failed one's ids were taken
	// again: one pass then narrows less, never wrongly.
	own := slices.Clone(f.own)
	f.ownMu.Unlock()
	ok := func(o *ownWrite) bool {
		<-o.done // its rows are visible, so it committed: the writer is about to learn it
		f.ownMu.Lock()
		defer f.ownMu.Unlock()
		return o.ok
	}
	for _, o := range own {
		if o.lo[table] <= lo && lo < o.hi[table] && lo < hi && ok(o) {
			lo = o.hi[table]
		}
	}
	for _, o := range slices.Backward(own) {
		if o.lo[table] < hi && hi <= o.hi[table] && lo < hi && ok(o) {
			hi = o.lo[table]
		}
	}
	return lo, hi
}

// forgetOwn forgets the own transactions that failed, or committed with
// all their rows at or below the cursor, and those given: no later read
// meets them again.
func (s *Store) forgetOwn(c cursor, also ...*ownWrite) {
	f := &s.feed
	f.ownMu.Lock()
	defer f.ownMu.Unlock()
	keep := f.own[:0]
	for _, o := range f.own {
		if slices.Contains(also, o) {
			continue
		}
		select {
		case <-o.done:
		default:
			keep = append(keep, o)
			continue
		}
		read := true
		for t := range nTables {
			read = read && (o.hi[t] <= c.ids[t] || o.hi[t] == o.lo[t])
		}
		if o.ok && !read {
			keep = append(keep, o)
		}
	}
	clear(f.own[len(keep):])
	f.own = keep
}
