package hashtable

import (
	"math/rand/v2"
	"testing"
)

// The table must agree with a Go map of keys to sets of values through
// adds, replacements and removals that shift probe chains. As in
// internal/match, a value is held under one key at most.
func TestTableAgreesWithAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var x Table
	want := map[uint64]map[uint32]bool{}
	owner := map[uint32]uint64{}
	// Few distinct hashes with shared tags, so chains are long and collide.
	hashes := make([]uint64, 300)
	for i := range hashes {
		hashes[i] = uint64(rng.IntN(64))<<32 | uint64(i)
	}
	for step := range 20_000 {
		h := hashes[rng.IntN(len(hashes))]
		v := uint32(rng.IntN(1000))
		if o, held := owner[v]; held {
			h = o
		}
		switch rng.IntN(3) {
		case 0:
			if !want[h][v] {
				owner[v] = h
				x.Add(h, v)
				if want[h] == nil {
					want[h] = map[uint32]bool{}
				}
				want[h][v] = true
			}
		case 1:
			if got := x.Remove(h, v); got != want[h][v] {
				t.Fatalf("step %d: remove(%x, %d) = %v", step, h, v, got)
			}
			delete(want[h], v)
			delete(owner, v)
		case 2:
			w := uint32(1000 + step)
			if got := x.Replace(h, v, w); got != want[h][v] {
				t.Fatalf("step %d: replace(%x, %d) = %v", step, h, v, got)
			}
			if want[h][v] {
				delete(want[h], v)
				delete(owner, v)
				want[h][w] = true
				owner[w] = h
			}
		}
		if step%97 == 0 {
			n := 0
			for h, vs := range want {
				n += len(vs)
				got := map[uint32]bool{}
				for p := x.Probe(h); ; {
					v, ok := p.Next()
					if !ok {
						break
					}
					got[v] = true
				}
				for v := range vs {
					if !got[v] {
						t.Fatalf("step %d: %x lost %d", step, h, v)
					}
				}
				if _, ok := x.Find(h, func(v uint32) bool { return vs[v] }); ok != (len(vs) > 0) {
					t.Fatalf("step %d: find(%x) = %v", step, h, ok)
				}
			}
			if n != x.Len() {
				t.Fatalf("step %d: %d values, want %d", step, x.n, n)
			}
		}
	}
}

// Fit keeps every value, and the table still takes more.
func TestFitKeepsValues(t *testing.T) {
	var x Table
	for v := range uint32(1000) {
		x.Add(uint64(v)*0x9e3779b97f4a7c15, v)
	}
	for v := range uint32(500) {
		x.Remove(uint64(v)*0x9e3779b97f4a7c15, v)
	}
	x.Fit()
	if x.Bytes() >= 8*1024 {
		t.Errorf("fitted table of %d values takes %d bytes", x.Len(), x.Bytes())
	}
	for v := range uint32(1000) {
		_, ok := x.Find(uint64(v)*0x9e3779b97f4a7c15, func(w uint32) bool { return w == v })
		if ok != (v >= 500) {
			t.Fatalf("value %d found %v after Fit", v, ok)
		}
	}
	x.Add(1, 5000)
	if _, ok := x.Find(1, func(w uint32) bool { return w == 5000 }); !ok {
		t.Error("a value added after Fit is lost")
	}
}
