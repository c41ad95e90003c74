package window

import "sort"

// timeline holds counts at distinct seconds in ascending order, with a
// Fenwick tree over them: adding at the newest second and summing the counts
// after any second both cost O(log n), so a read never walks the events.
//
// Counts are uint32 and wrap: a sum over a range stays right as long as the
// true sum fits, which it does for any window of one product.
type timeline struct {
	secs []uint32 // distinct seconds, ascending
	tree []uint32 // Fenwick tree: tree[i] sums counts (i&(i+1))..i
}

// add adds d (which may be negative, as a wrapped uint32) at second s.
// Appending at or after the newest second is O(log n); an older second that
// is already present is O(log n) too; only a new second in the middle
// rebuilds the tree, O(n), which out-of-order events a few seconds late keep
// cheap because n there is the short tail.
func (t *timeline) add(s uint32, d uint32) {
	n := len(t.secs)
	switch {
	case n > 0 && t.secs[n-1] == s:
		t.update(n-1, d)
	case n == 0 || t.secs[n-1] < s:
		t.secs = append(t.secs, s)
		// The new node covers indexes (n&(n+1))..n: its own count plus the
		// sum of the older ones in that range, read from the tree itself.
		v := d + t.prefix(n-1)
		if lo := n & (n + 1); lo > 0 {
			v -= t.prefix(lo - 1)
		}
		t.tree = append(t.tree, v)
	default:
		i := sort.Search(n, func(i int) bool { return t.secs[i] >= s })
		if t.secs[i] == s {
			t.update(i, d)
			return
		}
		t.unbuild()
		t.secs = append(t.secs, 0)
		copy(t.secs[i+1:], t.secs[i:])
		t.secs[i] = s
		t.tree = append(t.tree, 0)
		copy(t.tree[i+1:], t.tree[i:])
		t.tree[i] = d
		t.build()
	}
}

func (t *timeline) update(i int, d uint32) {
	for ; i < len(t.tree); i |= i + 1 {
		t.tree[i] += d
	}
}

// prefix returns the sum of counts at indexes 0..i (0 when i < 0).
func (t *timeline) prefix(i int) uint32 {
	var s uint32
	for ; i >= 0; i = i&(i+1) - 1 {
		s += t.tree[i]
	}
	return s
}

// sumAfter returns the sum of counts at seconds in (from, to].
func (t *timeline) sumAfter(from, to uint32) uint32 {
	hi := sort.Search(len(t.secs), func(i int) bool { return t.secs[i] > to }) - 1
	lo := sort.Search(len(t.secs), func(i int) bool { return t.secs[i] > from }) - 1
	if hi <= lo {
		return 0
	}
	return t.prefix(hi) - t.prefix(lo)
}

// build turns raw counts in tree into a Fenwick tree in O(n).
func (t *timeline) build() {
	for i := range t.tree {
		if j := i | (i + 1); j < len(t.tree) {
			t.tree[j] += t.tree[i]
		}
	}
}

// unbuild turns the Fenwick tree back into raw counts in O(n): the exact
// inverse of build, walking down so each node still holds its built sum
// when it is subtracted from its parent.
func (t *timeline) unbuild() {
	for i := len(t.tree) - 1; i >= 0; i-- {
		if j := i | (i + 1); j < len(t.tree) {
			t.tree[j] -= t.tree[i]
		}
	}
}

// prune drops every second at or before cutoff and reports whether it did.
// It rebuilds only when that frees at least half of the entries, so its cost
// is amortised over the appends that made them.
func (t *timeline) prune(cutoff uint32) bool {
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
	t.tree = append(make([]uint32, 0, len(t.tree)-k), t.tree[k:]...)
	t.build()
	return true
}

func (t *timeline) empty() bool { return len(t.secs) == 0 }

// bytes is the memory held by the timeline's arrays.
func (t *timeline) bytes() int { return 4 * (cap(t.secs) + cap(t.tree)) }
