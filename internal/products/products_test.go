package products

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/svc-project/svc"
)

func TestRef(t *testing.T) {
	x := New()
	x.Put("br_1", "p1", 1)
	x.Put("br_1", "p2", 2)
	x.Put("br_2", "p1", 3)
	x.Put("br_1p", "1", 4) // the same bytes in a row as br_1/p1
	x.Put("br_2", "p1", 5) // a new reference replaces the old
	x.Put("", "", 6)
	long := strings.Repeat("é", svc.MaxIDLen)
	x.Put(long, long, 7)
	for _, tc := range []struct {
		brand, product string
		want           svc.ProductRef // 0: not found
	}{
		{"br_1", "p1", 1},
		{"br_1", "p2", 2},
		{"br_2", "p1", 5},
		{"br_1p", "1", 4},
		{"", "", 6},
		{long, long, 7},
		{"br_1", "p3", 0},
		{"br_3", "p1", 0},
		{"br_", "1p1", 0},
	} {
		got, ok := x.Ref(tc.brand, tc.product)
		if ok != (tc.want != 0) || got != tc.want {
			t.Errorf("Ref(%q, %q) = %d, %v; want %d", tc.brand, tc.product, got, ok, tc.want)
		}
	}
	if n := x.Len(); n != 6 {
		t.Errorf("Len = %d, want 6", n)
	}
}

// Ids whose hashes are equal must still find their own entries.
func TestSharedHash(t *testing.T) {
	var s shard
	const h = 42
	for i := range 5 {
		s.put(h, "br_1", fmt.Sprint("p", i), svc.ProductRef(i+1))
	}
	s.put(h, "br_1", "p3", 33)
	for i, want := range []svc.ProductRef{1, 2, 3, 33, 5} {
		j, ok := s.find(h, "br_1", fmt.Sprint("p", i))
		if !ok || s.entries[j].ref != want {
			t.Errorf("p%d: found %v, ref %d; want %d", i, ok, s.entries[j].ref, want)
		}
	}
	if _, ok := s.find(h, "br_1", "p5"); ok {
		t.Error("an id never put was found")
	}
	if len(s.entries) != 5 {
		t.Errorf("%d entries, want 5", len(s.entries))
	}
}

// Reads during writes see each product either not yet or with its ref.
func TestConcurrentPuts(t *testing.T) {
	x := New()
	const writers, each = 4, 5000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				ref := svc.ProductRef(w*each + i + 1)
				x.Put(fmt.Sprint("br_", w), fmt.Sprint("p", i), ref)
				if got, ok := x.Ref(fmt.Sprint("br_", w), fmt.Sprint("p", i)); !ok || got != ref {
					t.Errorf("just put %d, read %d, %v", ref, got, ok)
					return
				}
			}
		})
		wg.Go(func() {
			for i := range each {
				if got, ok := x.Ref(fmt.Sprint("br_", w), fmt.Sprint("p", i)); ok && got != svc.ProductRef(w*each+i+1) {
					t.Errorf("read %d for br_%d/p%d", got, w, i)
					return
				}
			}
		})
	}
	wg.Wait()
	if x.Len() != writers*each {
		t.Errorf("Len = %d, want %d", x.Len(), writers*each)
	}
}

// A brand's id is held once a shard, however many products it has.
func TestBrandOnce(t *testing.T) {
	x := New()
	const n = 1000
	for i := range n {
		x.Put("br_one", fmt.Sprint("p", i), svc.ProductRef(i+1))
		x.Put("br_two", "", svc.ProductRef(n+1)) // an empty id ends where the next begins
	}
	brands, ids := 0, 0
	for i := range x.shards {
		brands += len(x.shards[i].brands)
		ids += len(x.shards[i].ids)
	}
	if brands > 2*shards || ids != idsLen(n) {
		t.Errorf("%d brand ids and %d bytes of product ids for %d products", brands, ids, n)
	}
	for i := range n {
		if got, ok := x.Ref("br_one", fmt.Sprint("p", i)); !ok || got != svc.ProductRef(i+1) {
			t.Fatalf("p%d: %d, %v", i, got, ok)
		}
	}
	if got, ok := x.Ref("br_two", ""); !ok || got != n+1 {
		t.Errorf("br_two's empty id: %d, %v", got, ok)
	}
}

func idsLen(n int) int {
	total := 0
	for i := range n {
		total += len(fmt.Sprint("p", i))
	}
	return total
}
