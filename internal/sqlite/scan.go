package sqlite

import (
	"context"
	"database/sql"
	"runtime"
	"sync"
)

// scanRanges runs query, which takes a range [lo, hi) of the column its
// rows are ordered by as its first two arguments (then args), over
// consecutive ranges from the bounds query's min to its max, on several read
// connections at once, and calls fn for every row in order from one
// goroutine. Decoding rows is most of what a rebuild at start costs, and
// with the work split the cores share it. The ranges are read in separate
// transactions: it serves the rebuild at start, before this process writes
// anything.
func scanRanges[T any](ctx context.Context, db *sql.DB, bounds, query string, from int64, args []any, scan func(*sql.Rows) (T, error), fn func(T) error) error {
	var lo, hi sql.NullInt64
	if err := db.QueryRowContext(ctx, bounds, from).Scan(&lo, &hi); err != nil || !lo.Valid {
		return err
	}
	const chunks = 64
	step := max((hi.Int64-lo.Int64+1+chunks-1)/chunks, 1)

	ctx, cancel := context.WithCancel(ctx)
	type chunk struct {
		rows []T
		err  error
	}
	var ranges []chan chunk
	for from := lo.Int64; from <= hi.Int64; from += step {
		ranges = append(ranges, make(chan chunk, 1))
	}
	// Readers take ranges in order; at most a few ranges wait decoded, so
	// memory stays bounded however large the table.
	readers := max(runtime.GOMAXPROCS(0), 2)
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
				var c chunk
				c.err = eachRowOf(ctx, db, func(rows *sql.Rows) error {
					r, err := scan(rows)
					c.rows = append(c.rows, r)
					return err
				}, query, append([]any{from, from + step}, args...)...)
				ranges[i] <- c
			}
		}()
	}
	defer func() { cancel(); wg.Wait() }() // readers stop when fn fails
	for _, ch := range ranges {
		var c chunk
		select {
		case c = <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-ahead
		if c.err != nil {
			return c.err
		}
		for _, r := range c.rows {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// eachRowOf runs a query on db and calls scan for every row.
func eachRowOf(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, scan func(*sql.Rows) error, query string, args ...any) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
