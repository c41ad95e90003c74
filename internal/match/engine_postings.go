package match

import "slices"

// A posting is a product with a word: its brand in the high half, so that
// a sorted list holds each brand's products together and a brand's share of
// a word is two binary searches.
func posting(brand, entry uint32) uint64 { return uint64(brand)<<32 | uint64(entry) }

func postingEntry(p uint64) uint32 { return uint32(p) }

// postings holds every word's list of products in one array, 16 bytes a
// word beside it: an index of a million products may have a million
// words, and a slice header or two for each was 48 MB.
//
// A list is a sorted run plus a short unsorted tail of the products added
// since; the tail is sorted and merged in when it grows past 16 postings
// and a 64th of the run, so adding stays cheap (amortized 64 moves) and
// reading stays a binary search plus a short scan. A full list moves to
// the end of the array with half as much room again; when the room left
// behind is half of the array, the array is made again, with a quarter of
// each list's length to spare, so that the lists do not all move at once.
// Load makes the lists at their exact length.
type postings struct {
	pool  []uint64
	lists []span // word id → its list in pool
	waste int    // room in pool that no list uses
}

type span struct{ off, n, sorted, cap uint32 }

// list returns the products with word id, as a view into the array that is
// valid until the next change.
func (ps *postings) list(id uint32) postingList {
	s := ps.lists[id]
	return postingList{sorted: ps.pool[s.off : s.off+s.sorted], tail: ps.pool[s.off+s.sorted : s.off+s.n]}
}

// word makes room for word ids up to id.
func (ps *postings) word(id uint32) {
	for uint32(len(ps.lists)) <= id {
		ps.lists = append(ps.lists, span{})
	}
}

func (ps *postings) add(id uint32, p uint64) {
	s := &ps.lists[id]
	if s.n == s.cap {
		off := uint32(len(ps.pool))
		c := max(2, s.n+s.n/2)
		ps.pool = append(ps.pool, ps.pool[s.off:s.off+s.n]...)
		ps.pool = append(ps.pool, make([]uint64, c-s.n)...)
		ps.waste += int(s.cap)
		s.off, s.cap = off, c
	}
	ps.pool[s.off+s.n] = p
	s.n++
	if tail := s.n - s.sorted; tail > 16 && tail > s.sorted/64 {
		ps.merge(s)
	}
	if ps.waste > 1<<16 && ps.waste > len(ps.pool)/2 {
		ps.compact()
	}
}

// merge sorts the tail into the run, in place from the back.
func (ps *postings) merge(s *span) {
	r := ps.pool[s.off : s.off+s.n]
	a := r[:s.sorted]
	b := slices.Clone(r[s.sorted:])
	slices.Sort(b)
	i, j := len(a)-1, len(b)-1
	for k := len(r) - 1; j >= 0; k-- {
		if i >= 0 && a[i] > b[j] {
			r[k] = a[i]
			i--
		} else {
			r[k] = b[j]
			j--
		}
	}
	s.sorted = s.n
}

func (ps *postings) remove(id uint32, p uint64) {
	s := &ps.lists[id]
	r := ps.pool[s.off : s.off+s.n]
	i, ok := slices.BinarySearch(r[:s.sorted], p)
	if ok {
		s.sorted--
	} else if i = slices.Index(r[s.sorted:], p); i >= 0 {
		i += int(s.sorted)
	} else {
		return
	}
	copy(r[i:], r[i+1:])
	s.n--
}

// compact makes the array again, with room for a quarter more in each list.
func (ps *postings) compact() {
	total := 0
	for _, s := range ps.lists {
		total += int(s.n + s.n/4)
	}
	pool := make([]uint64, 0, total)
	for id := range ps.lists {
		s := &ps.lists[id]
		off := uint32(len(pool))
		pool = append(pool, ps.pool[s.off:s.off+s.n]...)
		pool = pool[:len(pool)+int(s.n/4)]
		s.off, s.cap = off, s.n+s.n/4
	}
	ps.pool, ps.waste = pool, 0
}

// postingList is one word's products: a view into postings.
type postingList struct {
	sorted []uint64
	tail   []uint64
}

func (l postingList) len() int { return len(l.sorted) + len(l.tail) }

// brand calls fn for the brand's products, and returns how many there are.
func (l postingList) brand(b uint32, fn func(entry uint32)) int {
	lo, _ := slices.BinarySearch(l.sorted, posting(b, 0))
	hi, _ := slices.BinarySearch(l.sorted, posting(b+1, 0))
	n := hi - lo
	if fn != nil {
		for _, p := range l.sorted[lo:hi] {
			fn(postingEntry(p))
		}
	}
	for _, p := range l.tail {
		if uint32(p>>32) == b {
			n++
			if fn != nil {
				fn(postingEntry(p))
			}
		}
	}
	return n
}

// sample calls fn for about limit of the products with the word, spread
// evenly over the list (which is in brand order), or for all of them.
func (l postingList) sample(limit int, fn func(entry uint32)) {
	n := l.len()
	step := max(1, (n+limit-1)/limit)
	for k := 0; k < n; k += step {
		if k < len(l.sorted) {
			fn(postingEntry(l.sorted[k]))
		} else {
			fn(postingEntry(l.tail[k-len(l.sorted)]))
		}
	}
}

// brandUpTo calls fn for at most limit of the brand's products, and
// returns how many it called it for: a word a brand puts on a quarter of a
// million titles must not cost a quarter of a million steps.
func (l postingList) brandUpTo(b uint32, limit int, fn func(entry uint32)) int {
	lo, _ := slices.BinarySearch(l.sorted, posting(b, 0))
	hi, _ := slices.BinarySearch(l.sorted, posting(b+1, 0))
	hi = min(hi, lo+limit)
	for _, p := range l.sorted[lo:hi] {
		fn(postingEntry(p))
	}
	n := hi - lo
	for _, p := range l.tail {
		if n >= limit {
			break
		}
		if uint32(p>>32) == b {
			n++
			fn(postingEntry(p))
		}
	}
	return n
}
