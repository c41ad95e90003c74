package match

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/svc-project/svc"
)

// TestBindsAnyFlag puts products of several brands whose pages move
// between a few addresses, keyed and not, and checks after each put that
// every entry's flag says what the anyURL table says.
func TestBindsAnyFlag(t *testing.T) {
	t.Parallel()
	c := New()
	rng := rand.New(rand.NewPCG(1, 2))
	pages := []string{"https://a.example/p/1", "https://www.a.example/p/1/", "https://b.example/x", "https://c.example/y?id=2", "not a url"}
	flagged := 0
	for n := range 3000 {
		ref := svc.ProductRef(rng.IntN(40) + 1)
		url := pages[rng.IntN(len(pages))]
		p := &svc.Product{Ref: ref, BrandID: fmt.Sprintf("br_%d", ref%4), ProductID: fmt.Sprintf("p%d", ref), URL: &url}
		if rng.IntN(2) == 0 {
			c.PutKeyed(p)
		} else {
			c.Put(p)
		}
		for i := range c.entries {
			canon := c.canonOf(uint32(i))
			j, ok := c.anyURL.Find(c.hash(canon), func(j uint32) bool { return c.canonOf(j) == canon })
			want := canon != "" && ok && j == uint32(i)
			if c.entries[i].bindsAny != want {
				t.Fatalf("put %d: entry %d (%s) flag %v, table %v", n, i, canon, c.entries[i].bindsAny, want)
			}
			if want {
				flagged++
			}
		}
	}
	t.Logf("%d entries, %d flags checked true", len(c.entries), flagged)
	if flagged == 0 {
		t.Fatal("no entry ever bound a page")
	}
}

// TestEntrySize checks that the flag took no room: a million products
// are held at once.
func TestEntrySize(t *testing.T) {
	if got := unsafe.Sizeof(entry{}); got != 56 {
		t.Errorf("an entry takes %d bytes, not 56", got)
	}
}
