package viewblock

import (
	"cmp"
	"slices"
)

// Sorted hands over the views of blocks read in the order of their oldest
// view (min_ts) as one stream in time order, then position: a view waits
// only until no block still to come can hold an older one. Blocks are
// commit groups, so they rarely overlap, and a block that follows the last
// one is appended as it is.
type Sorted struct {
	Emit func(*View) error
	buf  []View
	head int
}

func less(a, b *View) int {
	if c := cmp.Compare(a.TS, b.TS); c != 0 {
		return c
	}
	return cmp.Compare(a.Pos, b.Pos)
}

// Add takes the views of the next block; their order does not matter.
// Call Until with the next block's oldest time first.
func (s *Sorted) Add(vs []View) {
	if len(vs) == 0 {
		return
	}
	if s.head > 0 && s.head >= len(s.buf)/2 {
		n := copy(s.buf, s.buf[s.head:])
		clear(s.buf[n:])
		s.buf, s.head = s.buf[:n], 0
	}
	from := len(s.buf)
	s.buf = append(s.buf, vs...)
	tail := s.buf[from:]
	if !slices.IsSortedFunc(tail, func(a, b View) int { return less(&a, &b) }) {
		slices.SortFunc(tail, func(a, b View) int { return less(&a, &b) })
	}
	if from > s.head && less(&s.buf[from-1], &s.buf[from]) > 0 {
		pending := s.buf[s.head:]
		slices.SortStableFunc(pending, func(a, b View) int { return less(&a, &b) })
	}
}

// Until emits the views older than ts: every block still to come holds
// only views at or after it.
func (s *Sorted) Until(ts int64) error {
	for s.head < len(s.buf) && s.buf[s.head].TS < ts {
		if err := s.Emit(&s.buf[s.head]); err != nil {
			return err
		}
		s.head++
	}
	return nil
}

// Flush emits every view left.
func (s *Sorted) Flush() error {
	for s.head < len(s.buf) {
		if err := s.Emit(&s.buf[s.head]); err != nil {
			return err
		}
		s.head++
	}
	s.buf, s.head = s.buf[:0], 0
	return nil
}
