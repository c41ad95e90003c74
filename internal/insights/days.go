package insights

import (
	"encoding/binary"
	"hash/maphash"
	"sync"

	"github.com/axiomhq/hyperloglog"

	"github.com/svc-project/svc/internal/rollup"
)

// dayCache keeps the merged viewers' sketch of a whole UTC day of a
// brand's or a product's hours, keyed by the hours' sketches themselves:
// an hour that changed (a view added, erased or expired) makes another
// key, so a day merged is never stale, and a 30-day window merges 30
// sketches rather than decode and merge 720 each time it is read.
type dayCache struct {
	mu       sync.Mutex
	cur, old map[dayKey]*hyperloglog.Sketch
}

type dayKey struct {
	brand, product string
	day            int64
	hours          int
	sum            uint64 // of the hours' sketches
}

// daysKept is how many days each of the cache's two generations holds: a
// dense sketch is 16 KiB, so the cache stays under about 32 MiB.
const daysKept = 1024

var daySeed = maphash.MakeSeed()

// merged returns the merge of a day's hour sketches (stored, marshalled),
// which the caller must not change.
func (c *dayCache) merged(brand, product string, day int64, hours [][]byte) (*hyperloglog.Sketch, error) {
	var h maphash.Hash
	h.SetSeed(daySeed)
	for _, b := range hours {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	k := dayKey{brand, product, day, len(hours), h.Sum64()}
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
	sk = hyperloglog.New14()
	for _, b := range hours {
		x, err := rollup.Sketch(b)
		if err != nil {
			return nil, err
		}
		if err := sk.Merge(x); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	c.put(k, sk)
	c.mu.Unlock()
	return sk, nil
}

// put adds a day, the older generation going when the newer is full.
// Called with mu held.
func (c *dayCache) put(k dayKey, sk *hyperloglog.Sketch) {
	if c.cur == nil || len(c.cur) >= daysKept {
		c.old, c.cur = c.cur, make(map[dayKey]*hyperloglog.Sketch, daysKept)
	}
	c.cur[k] = sk
}
