package window

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A timeline must agree with a plain map of second to count through late
// adds, negative adds, prunes, clip and a round trip through each and set.
func TestTimelineAgreesWithAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var tl timeline[uint32]
	want := map[uint32]uint32{}
	cut := uint32(0)
	check := func(step int) {
		t.Helper()
		for range 20 {
			from, to := cut+uint32(rng.IntN(3000)), cut+uint32(rng.IntN(3000))
			var sum uint32
			for s, n := range want {
				if s > from && s <= to {
					sum += n
				}
			}
			if got := tl.sumAfter(from, to); got != sum {
				t.Fatalf("step %d: sumAfter(%d, %d) = %d, want %d", step, from, to, got, sum)
			}
		}
		var secs []uint32
		tl.each(func(s uint32, n uint32) {
			secs = append(secs, s)
			if n != want[s] {
				t.Fatalf("step %d: each gives %d at %d, want %d", step, n, s, want[s])
			}
		})
		if !slices.IsSorted(secs) || len(secs) != tl.len() {
			t.Fatalf("step %d: each gave %v", step, secs)
		}
	}
	for step := range 5000 {
		s := cut + 1 + uint32(rng.IntN(2000))
		d := uint32(1 + rng.IntN(3))
		if n := want[s]; n > 0 && rng.IntN(4) == 0 {
			d = ^uint32(0) // -1
		}
		tl.add(s, d)
		want[s] += d
		switch step % 500 {
		case 100:
			cut += 300
			if tl.prune(cut) {
				for s := range want {
					if s <= cut {
						delete(want, s)
					}
				}
			} else {
				cut -= 300
			}
		case 200:
			tl.clip()
		case 300:
			var pts []point[uint32]
			tl.each(func(s uint32, n uint32) { pts = append(pts, point[uint32]{s, n}) })
			var copied timeline[uint32]
			copied.load(pts)
			tl = copied
		}
		if step%50 == 0 {
			check(step)
		}
	}
	check(5000)
	if tl.sumAfter(^uint32(0), ^uint32(0)) != 0 || tl.sumAfter(0, ^uint32(0)) != tl.sumAfter(0, cut+3000) {
		t.Fatal("the ends of the range are wrong")
	}
}
