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
//
// Each second sits beside its tree node in one array (8 bytes a point for
// uint32 counts): a million products hold two timelines each, and one
// array is one slice header and one allocation less than two.
//
// The array is held as a pointer and two 32-bit lengths, 16 bytes rather
// than a slice's 24, so that a product (two timelines, a session table and
// a pointer) fits the allocator's 64-byte class rather than its 96-byte
// one: 32 MB less with a million products. No timeline nears 2³² points.
type timeline[T uint32 | uint64] struct {
	p    *point[T] // the array's first element; nil when it has none
	n, c uint32    // its length and capacity
}

// pts returns the timeline's array as a slice.
func (t *timeline[T]) pts() []point[T] {
	if t.p == nil {
		return nil
	}
	return unsafe.Slice(t.p, t.c)[:t.n]
}

// set makes the timeline hold pts.
func (t *timeline[T]) set(pts []point[T]) {
	if cap(pts) == 0 {
		*t = timeline[T]{}
		return
	}
	*t = timeline[T]{p: unsafe.SliceData(pts), n: uint32(len(pts)), c: uint32(cap(pts))}
}

type point[T uint32 | uint64] struct {
	sec  uint32 // distinct seconds, ascending
	tree T      // Fenwick tree: tree of i sums counts (i&(i+1))..i
}

// add adds d (which may be negative, as a wrapped unsigned) at second s.
// Appending at or after the newest second is O(log n), and so is adding at
// an older second already present. A new second k entries before the end
// re-appends those k entries, O(k log n): an event a little late is cheap,
// a backfill far behind costs what it moves.
func (t *timeline[T]) add(s uint32, d T) {
	pts := t.pts()
	n := len(pts)
	switch {
	case n > 0 && pts[n-1].sec == s:
		t.update(n-1, d)
	case n == 0 || pts[n-1].sec < s:
		t.push(s, d)
	default:
		i := t.search(s)
		if pts[i].sec == s {
			t.update(i, d)
			return
		}
		// Nodes before i cover only entries before i and stay as they are;
		// the entries from i on are taken out and appended again after s.
		tail := make([]point[T], n-i)
		for k := i; k < n; k++ {
			tail[k-i] = point[T]{pts[k].sec, t.prefix(k) - t.prefix(k-1)}
		}
		t.set(pts[:i])
		t.push(s, d)
		for _, p := range tail {
			t.push(p.sec, p.tree)
		}
	}
}

// search returns the index of the first second at or after s.
func (t *timeline[T]) search(s uint32) int {
	pts := t.pts()
	return sort.Search(len(pts), func(i int) bool { return pts[i].sec >= s })
}

// after returns the index of the first second after s.
func (t *timeline[T]) after(s uint32) int {
	pts := t.pts()
	return sort.Search(len(pts), func(i int) bool { return pts[i].sec > s })
}

// push appends a count at a second after every held one.
func (t *timeline[T]) push(s uint32, d T) {
	n := int(t.n)
	// The new node covers indexes (n&(n+1))..n: its own count plus the sum
	// of the older ones in that range, read from the tree itself.
	v := d + t.prefix(n-1)
	if lo := n & (n + 1); lo > 0 {
		v -= t.prefix(lo - 1)
	}
	t.set(append(t.pts(), point[T]{s, v}))
}

func (t *timeline[T]) update(i int, d T) {
	pts := t.pts()
	for ; i < len(pts); i |= i + 1 {
		pts[i].tree += d
	}
}

// prefix returns the sum of counts at indexes 0..i (0 when i < 0).
func (t *timeline[T]) prefix(i int) T {
	pts := t.pts()
	var s T
	for ; i >= 0; i = i&(i+1) - 1 {
		s += pts[i].tree
	}
	return s
}

// upTo returns the sum of counts at seconds up to s: sumAfter(from, to)
// is upTo(to) - upTo(from), counts being never negative.
func (t *timeline[T]) upTo(s uint32) T { return t.prefix(t.after(s) - 1) }

// sumAfter returns the sum of counts at seconds in (from, to].
func (t *timeline[T]) sumAfter(from, to uint32) T {
	hi := t.after(to) - 1
	lo := t.after(from) - 1
	if hi <= lo {
		return 0
	}
	return t.prefix(hi) - t.prefix(lo)
}

// build turns raw counts in the tree into a Fenwick tree in O(n).
func (t *timeline[T]) build() {
	pts := t.pts()
	for i := range pts {
		if j := i | (i + 1); j < len(pts) {
			pts[j].tree += pts[i].tree
		}
	}
}

// unbuild turns the Fenwick tree back into raw counts in O(n): the exact
// inverse of build, walking down so each node still holds its built sum
// when it is subtracted from its parent.
func (t *timeline[T]) unbuild() {
	pts := t.pts()
	for i := len(pts) - 1; i >= 0; i-- {
		if j := i | (i + 1); j < len(pts) {
			pts[j].tree -= pts[i].tree
		}
	}
}

// prune drops every second at or before cutoff and reports whether it did.
// It rebuilds only when that frees at least half of the entries, so its cost
// is amortised over the appends that made them.
func (t *timeline[T]) prune(cutoff uint32) bool {
	k := t.after(cutoff)
	n := t.len()
	if k == 0 || k < n/2 {
		return false
	}
	if k == n {
		t.set(nil)
		return true
	}
	t.unbuild()
	// Copy into a fresh slice so that the memory of the dropped head is freed.
	t.set(append(make([]point[T], 0, n-k), t.pts()[k:]...))
	t.build()
	return true
}

// each calls fn with every second held and its count, oldest first.
func (t *timeline[T]) each(fn func(sec uint32, n T)) {
	var before T
	for i, p := range t.pts() {
		sum := t.prefix(i)
		fn(p.sec, sum-before)
		before = sum
	}
}

// load makes t hold pts, whose tree fields are each second's own count
// (not yet tree sums), seconds ascending and distinct; it takes the slice.
func (t *timeline[T]) load(pts []point[T]) {
	t.set(pts)
	t.build()
}

// clip gives back the room appends left at the end of the array.
func (t *timeline[T]) clip() {
	if t.c > t.n {
		t.set(append([]point[T](nil), t.pts()...))
	}
}

func (t *timeline[T]) len() int { return int(t.n) }

func (t *timeline[T]) empty() bool { return t.n == 0 }

// bytes is the memory held by the timeline's array.
func (t *timeline[T]) bytes() int {
	var zero point[T]
	return int(unsafe.Sizeof(zero)) * int(t.c)
}
