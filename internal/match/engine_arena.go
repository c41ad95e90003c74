package match

import "unsafe"

// The index holds a million products, and each of their strings would be
// a heap object of its own, with a pointer the collector follows in every
// cycle. So the strings live in one byte arena and entries name them by
// offset and length: the entries, the arena and the indexes hold no
// pointers at all, and the collector skips them.

// str is a string in the arena: its offset in the high 40 bits, its length
// in the low 24.
type str uint64

const maxStrLen = 1<<24 - 1

// arena is append-only: bytes once written never change, so the strings
// read from it can share its memory. A string that is replaced stays in it
// as waste until compact copies the live ones into a new arena.
type arena struct {
	b     []byte
	waste int
}

func (a *arena) add(s string) str {
	if s == "" {
		return 0
	}
	s = s[:min(len(s), maxStrLen)]
	off := len(a.b)
	a.b = append(a.b, s...)
	return str(uint64(off)<<24 | uint64(len(s)))
}

// get returns the string without copying it: the arena's bytes are never
// written again (a new arena is made to drop waste), so the string stays
// valid and immutable for as long as it is referenced.
func (a *arena) get(s str) string {
	n := int(s & maxStrLen)
	if n == 0 {
		return ""
	}
	return unsafe.String(&a.b[s>>24], n)
}

func (a *arena) drop(s str) { a.waste += int(s & maxStrLen) }
