package bots

// literals finds whether a text contains any of a set of strings: an
// Aho-Corasick automaton compiled to a table of transitions, one read a
// byte. The bytes no literal has are one class, so a row of the table
// has a column per byte the literals use (76), and the table of the list's
// 14,000 states takes 4 MB. The library it replaces kept two arrays
// of 256 pointers a state: 72 MB, which the collector scanned in every
// cycle, a tenth of the heap of a server holding a million products.
type literals struct {
	class   [256]uint8 // byte → column; 0 for the bytes no literal has
	classes int
	next    []int32 // state*classes + column → state
	out     []bool  // state → a literal ends here, or at a suffix of it
}

func newLiterals(words []string) *literals {
	l := &literals{classes: 1}
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			if l.class[w[i]] == 0 {
				l.class[w[i]] = uint8(l.classes)
				l.classes++
			}
		}
	}
	// The trie: state 0 is the root; a missing child is 0 until filled.
	l.next = make([]int32, l.classes)
	l.out = []bool{false}
	for _, w := range words {
		s := int32(0)
		for i := 0; i < len(w); i++ {
			k := int(s)*l.classes + int(l.class[w[i]])
			if l.next[k] == 0 {
				l.next[k] = int32(len(l.out))
				l.next = append(l.next, make([]int32, l.classes)...)
				l.out = append(l.out, false)
			}
			s = l.next[k]
		}
		l.out[s] = true
	}
	// Breadth first, each state's missing moves become those of its
	// longest proper suffix in the trie (its fail state), done before it.
	fail := make([]int32, len(l.out))
	var queue []int32
	for c := 1; c < l.classes; c++ {
		if s := l.next[c]; s != 0 {
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		row, failRow := int(s)*l.classes, int(fail[s])*l.classes
		l.out[s] = l.out[s] || l.out[fail[s]]
		for c := 1; c < l.classes; c++ {
			if t := l.next[row+c]; t != 0 {
				fail[t] = l.next[failRow+c]
				queue = append(queue, t)
			} else {
				l.next[row+c] = l.next[failRow+c]
			}
		}
	}
	return l
}

// in reports whether s contains any of the literals.
func (l *literals) in(s string) bool {
	state := int32(0)
	for i := 0; i < len(s); i++ {
		state = l.next[int(state)*l.classes+int(l.class[s[i]])]
		if l.out[state] {
			return true
		}
	}
	return false
}
