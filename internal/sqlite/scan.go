package sqlite

import (
	"context"
	"database/sql"
	"runtime"
	"sync"

	"github.com/svc-project/svc/internal/sqlstore"
)

// scanRanges runs query, which takes a range [lo, hi) of the column its
// rows are ordered by as its first two arguments (then args), over
// consecutive ranges from the bounds query's min to its max, on several read
// connections at once, and calls fn for every row in order from one
// goroutine. Decoding rows is most of what a rebuild at start costs, and
// with the work split the cores share it. On the read pool the ranges are
// read in separate transactions: it serves the rebuild at start, before
// this process writes anything. In one transaction (ReadSnapshot, feed.go)
// they share its connection and its moment; rows are then decoded one at a
// time, and only their conversion and fn run beside each other.
func scanRanges[T any](ctx context.Context, db queryer, bounds, query string, from int64, args []any, scan func(*sql.Rows) (T, error), fn func(T) error) error {
	return scanRangesInto(ctx, db, bounds, query, from, args, func(rows *sql.Rows, dst *T) (err error) {
		*dst, err = scan(rows)
		return err
	}, fn)
}

// scanBatch is how many rows a reader hands over at once; batches are
// reused, so that a scan of tens of millions of rows allocates a few
// hundred of them, not a growing slice per range (which, grown a quarter
// at a time, made five times its size in garbage: most of what a full
// replay at start allocated, bench/RESULTS.md). scanQueued is how many
// batches of a range wait for fn before its reader keeps them itself.
// Variables for the tests, which make them small.
var scanBatch, scanQueued = 4096, 16

// scanRangesInto is scanRanges with a scan that decodes a row into dst, an
// element of a reused batch, so that the row's fields need not escape to a
// heap object of their own.
func scanRangesInto[T any](ctx context.Context, db queryer, bounds, query string, from int64, args []any, scan func(*sql.Rows, *T) error, fn func(T) error) error {
	var lo, hi sql.NullInt64
	if err := db.QueryRowContext(ctx, bounds, from).Scan(&lo, &hi); err != nil || !lo.Valid {
		return err
	}
	const chunks = 64
	step := max((hi.Int64-lo.Int64+1+chunks-1)/chunks, 1)

	ctx, cancel := context.WithCancel(ctx)
	type part struct {
		rows []T
		err  error
	}
	// Each range's batches queue up in its channel, closed at the range's
	// end. A reader ahead of fn keeps what its channel cannot take until
	// its query is done: it never waits holding a connection, which
	// another scan beside this one (a start runs several) may need to
	// reach the range fn waits for. Readers take ranges in order, and at
	// most a few ranges are read ahead, so memory stays bounded however
	// large the table.
	queued, batch := scanQueued, scanBatch
	var ranges []chan part
	for from := lo.Int64; from <= hi.Int64; from += step {
		ranges = append(ranges, make(chan part, queued))
	}
	readers := max(runtime.GOMAXPROCS(0), 2)
	free := make(chan []T, (readers+1)*queued)
	ahead := make(chan struct{}, readers+1)
	var wg sync.WaitGroup
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range ranges {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				from := lo.Int64 + int64(i)*step
				var cur []T
				var held []part // full batches the channel had no room for
				put := func(p part) {
					if len(held) == 0 {
						select {
						case ranges[i] <- p:
							return
						default:
						}
					}
					held = append(held, p)
				}
				err := eachRowOf(ctx, db, func(rows *sql.Rows) error {
					if cur == nil {
						select {
						case cur = <-free:
						default:
							cur = make([]T, 0, batch)
						}
					}
					cur = cur[:len(cur)+1]
					if err := scan(rows, &cur[len(cur)-1]); err != nil {
						return err
					}
					if len(cur) == batch {
						put(part{rows: cur})
						cur = nil
					}
					return nil
				}, query, append([]any{from, from + step}, args...)...)
				if len(cur) > 0 && err == nil {
					held = append(held, part{rows: cur})
				}
				if err != nil {
					held = append(held, part{err: err})
				}
				for _, p := range held {
					select {
					case ranges[i] <- p:
					case <-ctx.Done():
					}
				}
				close(ranges[i])
			}
		}()
	}
	defer func() { cancel(); wg.Wait() }() // readers stop when fn fails
	for _, ch := range ranges {
		for {
			var p part
			var ok bool
			select {
			case p, ok = <-ch:
			case <-ctx.Done():
				return ctx.Err()
			}
			if !ok {
				break
			}
			if p.err != nil {
				return p.err
			}
			for _, r := range p.rows {
				if err := fn(r); err != nil {
					return err
				}
			}
			clear(p.rows) // drop the references the rows hold
			select {
			case free <- p.rows[:0]:
			default:
			}
		}
		<-ahead
	}
	return nil
}

// queryer is where reads run: the read pool, or one transaction.
type queryer interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// reads are the reads of a rebuild and of the event log, on the read
// pool (Store embeds them) or in one read transaction (ReadSnapshot).
type reads struct{ db queryer }

// eachRowOf runs a query on db and calls scan for every row.
func eachRowOf(ctx context.Context, db rowsQueryer, scan func(*sql.Rows) error, query string, args ...any) error {
	return sqlstore.Each(ctx, rowsOf{db}, func(r sqlstore.Row) error { return scan(r.(sqlRows).Rows) }, query, args...)
}
