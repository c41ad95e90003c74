package insights

import (
	"context"
	"encoding/binary"
	"hash/maphash"
	"sync"
	"time"

	"github.com/axiomhq/hyperloglog"

	"github.com/svc-project/svc/internal/rollup"
)

// dayCache keeps the merged viewers' sketch of hours of one UTC day of a
// brand or a product, keyed by the digests of the hours' sketches
// (rollup.ViewersSum, which the store keeps beside each): an hour that
// changed (a view added, erased or expired) makes another key, so a
// merge is never stale, a 30-day window merges 30 sketches rather than
// decode and merge 720 each time it is read, and only the hours of a
// span the cache lacks are read (a busy brand's hour is a dense sketch,
// 16 KiB: the 61 days read to check the cache were 19 MB a reading).
type dayCache struct {
	mu       sync.Mutex
	cur, old map[dayKey]*hyperloglog.Sketch
}

type dayKey struct {
	brand, product string
	first          int64 // the first hour of the span
	hours          int
	sum            uint64 // of the hours and their sketches' digests
}

// daysKept is how many spans each of the cache's two generations holds:
// a dense sketch is 16 KiB, so the cache stays under about 32 MiB.
const daysKept = 1024

var daySeed = maphash.MakeSeed()

// merged returns the merge of hours, of one day of the reading's brand
// or of its product (f's store's), which the caller must not change; keep
// says whether the cache keeps it.
func (c *dayCache) merged(ctx context.Context, f *Figures, product string, hours []hourSum, keep bool) (*hyperloglog.Sketch, error) {
	var h maphash.Hash
	h.SetSeed(daySeed)
	for _, r := range hours {
		// The views too: a node of the version before the digests, in a
		// rolling upgrade of PostgreSQL, changes a sketch without them
		// (migration 00031 clears the digest then), and its views with it.
		var n [24]byte
		binary.LittleEndian.PutUint64(n[:], uint64(r.hour))
		binary.LittleEndian.PutUint64(n[8:], uint64(r.sum))
		binary.LittleEndian.PutUint64(n[16:], uint64(r.views))
		h.Write(n[:])
	}
	k := dayKey{f.BrandID, product, hours[0].hour, len(hours), h.Sum64()}
	c.mu.Lock()
	sk, ok := c.cur[k]
	if !ok {
		if sk, ok = c.old[k]; ok {
			c.put(k, sk)
		}
	}
	c.mu.Unlock()
	if ok {
		return sk, nil
	}
	// The sketches not read with the digests, in one read of the span.
	var missing, changed bool
	for _, r := range hours {
		missing = missing || r.viewers == nil
	}
	if missing {
		read := make(map[int64][]byte, len(hours))
		last := time.UnixMilli(hours[len(hours)-1].hour + rollup.Hour)
		err := f.src.RollupHours(ctx, f.BrandID, product, time.UnixMilli(hours[0].hour), last, func(r rollup.Row) error {
			read[r.Hour] = r.Viewers
			return nil
		})
		if err != nil {
			return nil, err
		}
		for i := range hours {
			if hours[i].viewers == nil {
				hours[i].viewers = read[hours[i].hour]
				// Changed since its digest was read: merged as it is now,
				// and not kept under a key that is not its own.
				changed = changed || rollup.ViewersSum(hours[i].viewers) != hours[i].sum
			}
		}
	}
	sk = hyperloglog.New14()
	for _, r := range hours {
		x, err := rollup.Sketch(r.viewers)
		if err != nil {
			return nil, err
		}
		if err := sk.Merge(x); err != nil {
			return nil, err
		}
	}
	if keep && !changed {
		c.mu.Lock()
		c.put(k, sk)
		c.mu.Unlock()
	}
	return sk, nil
}

// put adds a span, the older generation going when the newer is full.
// Called with mu held.
func (c *dayCache) put(k dayKey, sk *hyperloglog.Sketch) {
	if c.cur == nil || len(c.cur) >= daysKept {
		c.old, c.cur = c.cur, make(map[dayKey]*hyperloglog.Sketch, daysKept)
	}
	c.cur[k] = sk
}
