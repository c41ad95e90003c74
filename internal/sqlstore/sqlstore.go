// Package sqlstore holds the SQL both stores share: the queries of their
// plain reads and writes, written once with ? placeholders, and the row
// mapping that turns rows into the domain's types and back.
//
// A store (internal/sqlite, internal/postgres) hands New its Dialect, a
// Querier for reads and a way to run a write transaction; it embeds the
// Store that New returns, whose methods then answer the svc interfaces they
// name. What really differs between the engines stays in each store: the
// write path (SQLite's one writer and prepared statements, PostgreSQL's
// set-based Append), the change feed's cursor, backups and locks.
//
// A Dialect holds the few differences of the shared SQL (docs/decisions.md,
// One set of SQL for both stores): how placeholders are written, whether
// rows read before a write are locked, and how lists and times are kept.
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/svc-project/svc/internal/rollup"
)

// ErrNoRows is what QueryRow's Scan returns when no row came: both
// drivers' errors match it with errors.Is (pgx.ErrNoRows wraps it).
var ErrNoRows = sql.ErrNoRows

// Querier runs statements on a store's pool or in one of its
// transactions. Statements come with ? placeholders, already rewritten to
// the driver's by the Store.
type Querier interface {
	// Exec runs a statement and returns the rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Queryer runs queries that return rows: a Querier, or whatever a store
// reads with alone.
type Queryer interface {
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Row is one row to scan.
type Row interface{ Scan(dest ...any) error }

// Rows are rows to scan, as pgx.Rows has them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Dialect is how an engine's SQL differs from the shared text.
type Dialect struct {
	name string
	// numbered: placeholders are $1, $2, … (PostgreSQL) rather than ?.
	numbered bool
	// forUpdate is appended to a SELECT whose rows a write then depends
	// on: PostgreSQL locks them against another node's transaction;
	// SQLite's one writer already runs write transactions one at a time.
	forUpdate string
	// arrays: a list of strings is a text[] column; else a JSON array in
	// a text column.
	arrays bool
	// times: a timestamp column holds a time (timestamptz); else unix
	// milliseconds (most columns of both stores are milliseconds).
	times bool
	// touch is the SET clause that marks a product changed for the change
	// feed: SQLite numbers its products' writes (NextChange), PostgreSQL
	// notes the writing transaction.
	touch string
	// changeMark reads, as text, the change feed's mark of the products'
	// writes: SQLite's largest changed, PostgreSQL's snapshot.
	// titlesSince reads the id and title of a brand's products written
	// after such a mark: the brand, then the mark for each other ?.
	changeMark, titlesSince string
	// namesAgg joins the names of product_names n with a control
	// character, which no name holds.
	namesAgg string
	// greatest and least are the larger and smaller of two values.
	greatest, least string
	// lock locks the tables named by %s against other nodes' writes
	// until the transaction ends; "" where one writer runs at a time.
	lock string
	// skipLocked ends a subquery that picks rows to delete: other nodes'
	// locked rows are left to them.
	skipLocked string
	// triggers turns a table's triggers off (%[1]s the table, %[2]s
	// DISABLE) and on again (ENABLE) within a transaction; "" where they
	// are dropped and made again from their text (SQLite).
	triggers string

	bound sync.Map // query with ? -> query with $n
}

// The two engines.
var (
	SQLite = &Dialect{name: "sqlite", touch: "changed = " + NextChange,
		changeMark: "(SELECT CAST(coalesce(max(changed), 0) AS TEXT) FROM products)",
		// +brand_id: the index on changed, not the brand's every product.
		titlesSince: "SELECT id, coalesce(title, '') FROM products WHERE +brand_id = ? AND changed > CAST(? AS INTEGER)",
		namesAgg:    "group_concat(n.name, char(31))",
		greatest:    "max", least: "min"}
	PostgreSQL = &Dialect{name: "postgres", numbered: true, forUpdate: " FOR UPDATE", arrays: true, times: true,
		touch:      "txid = pg_current_xact_id()",
		changeMark: "pg_current_snapshot()::text",
		// The feed's rule (postgres.newSince): written by a transaction
		// the mark's snapshot does not see.
		titlesSince: `SELECT id, coalesce(title, '') FROM products WHERE brand_id = ?
			AND txid >= pg_snapshot_xmin(CAST(? AS pg_snapshot)) AND NOT pg_visible_in_snapshot(txid, CAST(? AS pg_snapshot))`,
		namesAgg: "string_agg(n.name, chr(31) ORDER BY n.created_at, n.name)",
		greatest: "greatest", least: "least", lock: "LOCK TABLE %s IN EXCLUSIVE MODE", skipLocked: " FOR UPDATE SKIP LOCKED",
		triggers: "ALTER TABLE %[1]s %[2]s TRIGGER USER"}
)

// NextChange numbers a product's write for SQLite's change feed: one more
// than any before, which the index on changed finds at once.
const NextChange = "(SELECT coalesce(max(changed), 0) + 1 FROM products)"

func (d *Dialect) String() string { return d.name }

// Bind rewrites the ? placeholders of query into the dialect's. A ?
// within quotes is left as it is.
func (d *Dialect) Bind(query string) string {
	if !d.numbered {
		return query
	}
	if q, ok := d.bound.Load(query); ok {
		return q.(string)
	}
	var b strings.Builder
	n, quote := 0, byte(0)
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	q := b.String()
	d.bound.Store(query, q)
	return q
}

// ForUpdate is appended to a SELECT whose rows the transaction then
// writes on: " FOR UPDATE" where other writers run at once, "" in SQLite.
func (d *Dialect) ForUpdate() string { return d.forUpdate }

// Lock locks the tables against other nodes' writes for the rest of q's
// transaction; where one writer runs at a time it does nothing.
func (d *Dialect) Lock(ctx context.Context, q Querier, tables string) error {
	if d.lock == "" {
		return nil
	}
	_, err := q.Exec(ctx, fmt.Sprintf(d.lock, tables))
	return err
}

// withoutTriggers runs fn with the table's triggers off, in q's
// transaction: for a statement that writes at once what they would add
// up a row at a time. Other transactions never see them off.
func (d *Dialect) withoutTriggers(ctx context.Context, q Querier, table string, fn func() error) error {
	if d.triggers != "" {
		if _, err := q.Exec(ctx, fmt.Sprintf(d.triggers, table, "DISABLE")); err != nil {
			return err
		}
		if err := fn(); err != nil {
			return err
		}
		_, err := q.Exec(ctx, fmt.Sprintf(d.triggers, table, "ENABLE"))
		return err
	}
	type trigger struct{ name, text string }
	triggers, err := Collect(ctx, q, func(r Row) (trigger, error) {
		var t trigger
		return t, r.Scan(&t.name, &t.text)
	}, "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? ORDER BY rowid", table)
	if err != nil {
		return err
	}
	for _, t := range triggers {
		if _, err := q.Exec(ctx, `DROP TRIGGER "`+t.name+`"`); err != nil {
			return err
		}
	}
	if err := fn(); err != nil {
		return err
	}
	for _, t := range triggers {
		if _, err := q.Exec(ctx, t.text); err != nil {
			return err
		}
	}
	return nil
}

// Strings is the argument that stores a list of strings.
func (d *Dialect) Strings(ss []string) (any, error) {
	if d.arrays {
		if ss == nil {
			ss = []string{}
		}
		return ss, nil
	}
	b, err := json.Marshal(ss)
	return string(b), err
}

// ScanStrings is where a scan of a list of strings goes.
func (d *Dialect) ScanStrings(ss *[]string) any {
	if d.arrays {
		return ss
	}
	return (*jsonStrings)(ss)
}

type jsonStrings []string

func (j *jsonStrings) Scan(src any) error {
	switch v := src.(type) {
	case string:
		return json.Unmarshal([]byte(v), (*[]string)(j))
	case []byte:
		return json.Unmarshal(v, (*[]string)(j))
	case nil:
		*j = nil
		return nil
	}
	return fmt.Errorf("sqlstore: a list of strings from %T", src)
}

// Time is the argument that stores t in a timestamp column (Dialect.times).
func (d *Dialect) Time(t time.Time) any {
	if d.times {
		return t
	}
	return Millis(t)
}

// NullTime scans a timestamp column of either kind, or NULL.
type NullTime struct {
	Time  time.Time
	Valid bool
}

// Scan implements sql.Scanner.
func (n *NullTime) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*n = NullTime{}
	case int64:
		*n = NullTime{FromMillis(v), true}
	case time.Time:
		*n = NullTime{v.UTC(), true}
	default:
		return fmt.Errorf("sqlstore: a time from %T", src)
	}
	return nil
}

// Millis is t in unix milliseconds, as the stores keep times.
func Millis(t time.Time) int64 { return t.UnixMilli() }

// FromMillis is the time of unix milliseconds, in UTC.
func FromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// Store holds a store's connections as the shared queries use them; the
// stores embed it.
type Store struct {
	d    *Dialect
	r, w Querier
	inTx func(context.Context, func(Querier) error) error
	// rollupTx runs the writes of events that keep the rollups.
	rollupTx RollupTx
	// foldViewers adds the queued viewers to the hour rows' sketches
	// before a reading of them, in a store that queues them
	// (rollup.Deferring); nil in one that does not.
	foldViewers func(context.Context) error
}

// FoldBeforeReads makes a reading of the hour rows' viewers call fold
// first, so that it counts every view committed before it.
func (s *Store) FoldBeforeReads(fold func(context.Context) error) { s.foldViewers = fold }

// New returns the shared part of a store: read runs reads (a pool), write
// runs a write of one statement, and inTx runs fn in a write transaction
// and commits it when fn returns nil. rollupTx runs fn in a write
// transaction that deletes or counts events again, with the rollups'
// writes of the transaction.
func New(d *Dialect, read, write Querier, inTx func(ctx context.Context, fn func(Querier) error) error, rollupTx RollupTx) *Store {
	return &Store{d: d, r: bound{read, d}, w: bound{write, d}, inTx: func(ctx context.Context, fn func(Querier) error) error {
		return inTx(ctx, func(q Querier) error { return fn(bound{q, d}) })
	}, rollupTx: func(ctx context.Context, fn func(Querier, rollup.Tx) error) error {
		return rollupTx(ctx, func(q Querier, rt rollup.Tx) error { return fn(bound{q, d}, rt) })
	}}
}

// Dialect returns the store's dialect.
func (s *Store) Dialect() *Dialect { return s.d }

// Reads returns the Querier of reads, placeholders rewritten.
func (s *Store) Reads() Querier { return s.r }

// InTx runs fn in a write transaction, placeholders rewritten.
func (s *Store) InTx(ctx context.Context, fn func(Querier) error) error { return s.inTx(ctx, fn) }

// Wrap wraps q, a store's own Querier, so that it takes ? placeholders.
func (d *Dialect) Wrap(q Querier) Querier { return bound{q, d} }

// bound rewrites placeholders before the driver sees a statement.
type bound struct {
	q Querier
	d *Dialect
}

func (b bound) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return b.q.Exec(ctx, b.d.Bind(query), args...)
}

func (b bound) QueryRow(ctx context.Context, query string, args ...any) Row {
	return b.q.QueryRow(ctx, b.d.Bind(query), args...)
}

func (b bound) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	return b.q.Query(ctx, b.d.Bind(query), args...)
}

// Collect runs a query and scans each row with scan.
func Collect[T any](ctx context.Context, q Queryer, scan func(Row) (T, error), query string, args ...any) ([]T, error) {
	var out []T
	err := Each(ctx, q, func(r Row) error {
		v, err := scan(r)
		if err == nil {
			out = append(out, v)
		}
		return err
	}, query, args...)
	return out, err
}

// Each runs a query and calls fn with each row.
func Each(ctx context.Context, q Queryer, fn func(Row) error, query string, args ...any) error {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// NoRows reports whether err says that a row expected was not there.
func NoRows(err error) bool { return errors.Is(err, ErrNoRows) }
