package sqlite

import (
	"bytes"
	"context"
	"math/big"
	"sync"

	"github.com/svc-project/svc/internal/rollup"
)

// hourCache holds the rollups' hour rows as the writer last committed
// them, so that a batch of views adds to the rows of its products' hours
// without reading them back: reading them was a fifth of the writer's CPU
// (bench/RESULTS.md). Only Append's fast path uses and fills it; every
// other write transaction empties it once it holds the writer, and so
// does a commit of another connection (othersWrote), as either may change
// the rows.
type hourCache struct {
	mu   sync.Mutex
	rows map[rollup.Key]*rollup.Row
	// gen counts the clears: a transaction's rows are merged only if none
	// happened since it began, as another write may take the writer
	// between Append's commit and its merge.
	gen uint64
}

// hourCacheRows bounds the cache: about the hour rows a busy hour touches.
const hourCacheRows = 50_000

type hoursKey struct{}

// withHours marks Append's fast path, whose transaction keeps the cache.
func withHours(ctx context.Context) context.Context { return context.WithValue(ctx, hoursKey{}, true) }

func keepsHours(ctx context.Context) bool { return ctx.Value(hoursKey{}) != nil }

func (c *hourCache) clear() {
	c.mu.Lock()
	c.rows = nil
	c.gen++
	c.mu.Unlock()
}

// generation is the count of clears, for merge.
func (c *hourCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// get returns copies of the cached rows of keys, and the keys it lacks.
func (c *hourCache) get(keys []rollup.Key, out map[rollup.Key]*rollup.Row) (missing []rollup.Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		if r, ok := c.rows[k]; ok {
			if r != nil {
				out[k] = cloneRow(r)
			}
			continue
		}
		missing = append(missing, k)
	}
	return missing
}

// merge notes the rows a committed transaction wrote or read: nil for a
// key with no row. gen is the generation when the transaction held the
// writer: after a clear since, the rows may be stale and are dropped.
func (c *hourCache) merge(gen uint64, rows map[rollup.Key]*rollup.Row) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.rows == nil || len(c.rows)+len(rows) > hourCacheRows {
		c.rows = make(map[rollup.Key]*rollup.Row, len(rows))
	}
	for k, r := range rows {
		c.rows[k] = r
	}
}

// cloneRow copies what Apply changes in place: the revenue, and the
// sketch, whose dense registers hyperloglog decodes in place.
func cloneRow(r *rollup.Row) *rollup.Row {
	c := *r
	c.Revenue = new(big.Int).Set(r.Revenue)
	c.Viewers = bytes.Clone(r.Viewers)
	return &c
}
