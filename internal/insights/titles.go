package insights

import (
	"context"
	"sync"

	"github.com/svc-project/svc/internal/rollup"
)

// titleCache keeps each brand's titles for every reading, valid until
// they change: reading 100,000 titles through the driver was half of the
// products' CSV (bench/RESULTS.md). Each reading asks the store for the
// titles written since the brand's mark (rollup.TitlesMark), which the
// store keeps: a title another process or node wrote is read again, and a
// merge, which removes a product, reads them all. Titles are the store's
// latest, provisional ones too, as the dashboard shows them
// (docs/dashboard.md, Budgets): not the tracker's catalog, which holds
// the verified ones only.
type titleCache struct {
	mu     sync.Mutex
	brands map[string]*brandTitles
	kept   int // titles held by brands
}

// brandTitles is a brand's titles as of mark. Its lock is held while
// they are brought up to date and read.
type brandTitles struct {
	mu     sync.Mutex
	mark   rollup.TitlesMark
	titles map[int64]string // by ref

	counted int // len(titles) in titleCache.kept; under titleCache.mu
}

// titlesKept bounds the titles held for every brand together (about 120
// bytes each, map and strings: 12 MB for a brand of 100,000, measured by
// bench/dashboard -memprofile): past it, the cache keeps the brand just
// read alone.
const titlesKept = 400_000

// lookup sets out[i] to the title of refs[i].
func (b *brandTitles) lookup(refs []int64, out []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, ref := range refs {
		out[i] = b.titles[ref]
	}
}

// brand returns the brand's titles, brought up to date; size is about
// how many the brand has.
func (c *titleCache) brand(ctx context.Context, src Source, brandID string, size int) (*brandTitles, error) {
	c.mu.Lock()
	b := c.brands[brandID]
	if b == nil {
		if c.brands == nil {
			c.brands = map[string]*brandTitles{}
		}
		b = &brandTitles{}
		c.brands[brandID] = b
	}
	c.mu.Unlock()

	b.mu.Lock()
	defer b.mu.Unlock()
	if b.titles != nil {
		size = min(size, 1024) // the titles written since the mark
	}
	var read map[int64]string // made for the first title read
	next, whole, err := src.BrandTitles(ctx, brandID, b.mark, func(ref int64, title string) {
		if read == nil {
			read = make(map[int64]string, size)
		}
		read[ref] = title
	})
	if err != nil {
		return nil, err
	}
	if whole || b.titles == nil {
		if read == nil {
			read = map[int64]string{}
		}
		b.titles = read
	} else {
		for ref, t := range read {
			b.titles[ref] = t
		}
	}
	b.mark = next

	c.mu.Lock()
	if c.brands[brandID] == b {
		c.kept += len(b.titles) - b.counted
		b.counted = len(b.titles)
	}
	if c.kept > titlesKept {
		for id, other := range c.brands {
			if other != b {
				delete(c.brands, id)
			}
		}
		c.kept = b.counted
	}
	c.mu.Unlock()
	return b, nil
}
