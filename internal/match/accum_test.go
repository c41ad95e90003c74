package match

import (
	"math/rand/v2"
	"testing"
)

// The gathering accumulator sums as a map would, through resets, with
// many entries and with few (multiples of the table's size) met often.
func TestAccumAgreesWithAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := new(accum)
	for round := range 20 {
		a.reset()
		want := map[uint32]float64{}
		for range maxVisits {
			i := uint32(rng.IntN(3000))
			if round%2 == 1 {
				i *= accumSlots
				i %= 1 << 20
			}
			w := float64(rng.IntN(8))
			want[i] += w
			a.add(i, w)
		}
		if len(a.used) != len(want) {
			t.Fatalf("round %d: %d entries, want %d", round, len(a.used), len(want))
		}
		for _, k := range a.used {
			i := a.keys[k] - 1
			if a.vals[k] != want[i] {
				t.Fatalf("round %d: entry %d sums %v, want %v", round, i, a.vals[k], want[i])
			}
		}
	}
}
