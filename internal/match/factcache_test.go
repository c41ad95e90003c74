package match

import (
	"fmt"
	"testing"

	"github.com/svc-project/svc"
)

// The cache of analysed titles must never give a title another's facts:
// not after the title changes, and not after compact moves the titles so
// that an entry's new title sits where its old one was.
func TestFactCacheFollowsTitles(t *testing.T) {
	c := New()
	ps := make([]svc.Product, 200)
	for i := range ps {
		tl := fmt.Sprintf("Gorenje ORB%03d BK fridge", i)
		ps[i] = svc.Product{Ref: svc.ProductRef(i + 1), BrandID: "b", ProductID: fmt.Sprint(i), Title: &tl}
		c.Put(&ps[i])
	}
	check := func(when string) {
		t.Helper()
		c.mu.RLock()
		defer c.mu.RUnlock()
		for i := range c.entries {
			title := c.str(c.entries[i].title)
			for range 2 { // a miss, then a hit
				got, want := c.factsOf(uint32(i)), analyze(title)
				if got.squeezed != want.squeezed || fmt.Sprint(got.codes) != fmt.Sprint(want.codes) {
					t.Fatalf("%s: entry %d (%q) has the facts of %q", when, i, title, got.squeezed)
				}
			}
		}
	}
	change := func(colour string) {
		for i := range ps { // the same lengths: compact puts them where the first ones were
			tl := fmt.Sprintf("Gorenje ORB%03d %s fridge", i, colour)
			ps[i].Title = &tl
			c.Put(&ps[i])
		}
	}
	check("put")
	change("WH")
	c.mu.Lock()
	c.compact()
	c.mu.Unlock()
	check("compacted")
	change("RD")
	check("changed")
	if h, ok := c.ByTitle("b", "gorenje orb007 rd fridge", nil); !ok || h.ProductID != "7" {
		t.Errorf("ByTitle = %+v, %v; want product 7", h, ok)
	}
}
