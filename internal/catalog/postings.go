package catalog

import "slices"

// A posting is a product with a word: its brand in the high half, so that
// a sorted list holds each brand's products together and a brand's share of
// a word is two binary searches.
func posting(brand, entry uint32) uint64 { return uint64(brand)<<32 | uint64(entry) }

func postingEntry(p uint64) uint32 { return uint32(p) }

// postingList is a sorted run plus a short unsorted tail of the products
// added since; the tail is sorted and merged in when it grows past 16
// postings and a 64th of the run, so adding stays cheap (amortized 64
// moves) and reading stays a binary search plus a short scan.
type postingList struct {
	sorted []uint64
	tail   []uint64
}

func (l *postingList) add(p uint64) {
	l.tail = append(l.tail, p)
	if len(l.tail) > 16 && len(l.tail) > len(l.sorted)/64 {
		slices.Sort(l.tail)
		merged := make([]uint64, 0, len(l.sorted)+len(l.tail))
		i, j := 0, 0
		for i < len(l.sorted) && j < len(l.tail) {
			if l.sorted[i] <= l.tail[j] {
				merged = append(merged, l.sorted[i])
				i++
			} else {
				merged = append(merged, l.tail[j])
				j++
			}
		}
		merged = append(append(merged, l.sorted[i:]...), l.tail[j:]...)
		l.sorted, l.tail = merged, l.tail[:0]
	}
}

func (l *postingList) remove(p uint64) {
	if i, ok := slices.BinarySearch(l.sorted, p); ok {
		l.sorted = slices.Delete(l.sorted, i, i+1)
		return
	}
	if i := slices.Index(l.tail, p); i >= 0 {
		l.tail = slices.Delete(l.tail, i, i+1)
	}
}

func (l *postingList) len() int { return len(l.sorted) + len(l.tail) }

// brand calls fn for the brand's products, and returns how many there are.
func (l *postingList) brand(b uint32, fn func(entry uint32)) int {
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
func (l *postingList) sample(limit int, fn func(entry uint32)) {
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
