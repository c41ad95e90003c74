package window

import (
	"sort"
	"unsafe"
)

// timeline holds counts at distinct seconds in ascending order, with a
// Fenwick tree over them: adding at the newest second and summing the counts
// after any second both cost O(log n), so a read never walks the events.
//
// Counts are unsigned and wrap: a sum over a range stays right as long as
// the true sum fits. uint32 holds any window's events of one product;
// units, up to 5·10⁸ an order, need uint64.
type timeline[T uint32 | uint64] struct {
	secs []uint32 // distinct seconds, ascending
	tree []T      // Fenwick tree: tree[i] sums counts (i&(i+1))..i
}

// add adds d (which may be negative, as a wrapped unsigned) at second s.
// Appending at or after the newest second is O(log n), and so is adding at
// an older second already present. A new second k entries before the end
// re-appends those k entries, O(k log n): an event a little late is cheap,
// a backfill far behind costs what it moves.
func (t *timeline[T]) add(s uint32, d T) {
	n := len(t.secs)
	switch {
	case n > 0 && t.secs[n-1] == s:
		t.update(n-1, d)
	case n == 0 || t.secs[n-1] < s:
		t.push(s, d)
	default:
		i := sort.Search(n, func(i int) bool { return t.secs[i] >= s })
		if t.secs[i] == s {
			t.update(i, d)
			return
		}
		// Nodes before i cover only entries before i and stay as they are;
		// the entries from i on are taken out and appended again after s.
		tailSecs := append([]uint32(nil), t.secs[i:]...)
		tailVals := make([]T, n-i)
		for k := i; k < n; k++ {
			tailVals[k-i] = t.prefix(k) - t.prefix(k-1)
		}
		t.secs, t.tree = t.secs[:i], t.tree[:i]
		t.push(s, d)
		for k, sec := range tailSecs {
			t.push(sec, tailVals[k])
		}
	}
}

// push appends a count at a second after every held one.
func (t *timeline[T]) push(s uint32, d T) {
	n := len(t.secs)
	t.secs = append(t.secs, s)
	// The new node covers indexes (n&(n+1))..n: its own count plus the sum
	// of the older ones in that range, read from the tree itself.
	v := d + t.prefix(n-1)
	if lo := n & (n + 1); lo > 0 {
		v -= t.prefix(lo - 1)
	}
	t.tree = append(t.tree, v)
}

func (t *timeline[T]) update(i int, d T) {
	for ; i < len(t.tree); i |= i + 1 {
		t.tree[i] += d
	}
}

// prefix returns the sum of counts at indexes 0..i (0 when i < 0).
func (t *timeline[T]) prefix(i int) T {
	var s T
	for ; i >= 0; i = i&(i+1) - 1 {
		s += t.tree[i]
	}
	return s
}

// sumAfter returns the sum of counts at seconds in (from, to].
func (t *timeline[T]) sumAfter(from, to uint32) T {
	hi := sort.Search(len(t.secs), func(i int) bool { return t.secs[i] > to }) - 1
	lo := sort.Search(len(t.secs), func(i int) bool { return t.secs[i] > from }) - 1
	if hi <= lo {
		return 0
	}
	return t.prefix(hi) - t.prefix(lo)
}

// build turns raw counts in tree into a Fenwick tree in O(n).
func (t *timeline[T]) build() {
	for i := range t.tree {
		if j := i | (i + 1); j < len(t.tree) {
			t.tree[j] += t.tree[i]
		}
	}
}

// unbuild turns the Fenwick tree back into raw counts in O(n): the exact
// inverse of build, walking down so each node still holds its built sum
// when it is subtracted from its parent.
func (t *timeline[T]) unbuild() {
	for i := len(t.tree) - 1; i >= 0; i-- {
		if j := i | (i + 1); j < len(t.tree) {
			t.tree[j] -= t.tree[i]
		}
	}
}

// prune drops every second at or before cutoff and reports whether it did.
// It rebuilds only when that frees at least half of the entries, so its cost
// is amortised over the appends that made them.
func (t *timeline[T]) prune(cutoff uint32) bool {
	k := sort.Search(len(t.secs), func(i int) bool { return t.secs[i] > cutoff })
	if k == 0 || k < len(t.secs)/2 {
		return false
	}
	if k == len(t.secs) {
		t.secs, t.tree = nil, nil
		return true
	}
	t.unbuild()
	// Copy into fresh slices so that the memory of the dropped head is freed.
	t.secs = append(make([]uint32, 0, len(t.secs)-k), t.secs[k:]...)
	t.tree = append(make([]T, 0, len(t.tree)-k), t.tree[k:]...)
	t.build()
	return true
}

// clip gives back the room appends left at the end of the arrays.
func (t *timeline[T]) clip() {
	if cap(t.secs) > len(t.secs) {
		t.secs = append([]uint32(nil), t.secs...)
	}
	if cap(t.tree) > len(t.tree) {
		t.tree = append([]T(nil), t.tree...)
	}
}

func (t *timeline[T]) empty() bool { return len(t.secs) == 0 }

// bytes is the memory held by the timeline's arrays.
func (t *timeline[T]) bytes() int {
	var zero T
	return 4*cap(t.secs) + int(unsafe.Sizeof(zero))*cap(t.tree)
}
