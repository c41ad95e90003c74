package match

import "math/bits"

// table maps keys to entries (or word ids) with open addressing and linear
// probing: a slot is 8 bytes, the key's 32-bit hash tag and the value plus
// one, and a table of a million keys is one pointer-free array where a Go
// map of strings would hold a copy of each key. The keys are not stored:
// the caller tells whether a value's key is the one sought (eq), and a tag
// that matches is checked that way. A key may have several values
// (several products with one SKU): add puts one more.
type table struct {
	slots []uint64 // tag<<32 | value+1; 0 is a free slot
	n     int
}

func tagOf(h uint64) uint32 { return uint32(h >> 32) }

func (x *table) home(tag uint32) int {
	hi, _ := bits.Mul64(uint64(tag)*0x9e3779b97f4a7c15, uint64(len(x.slots)))
	return int(hi)
}

// each calls fn with each value stored under hash h until fn returns false.
// fn also meets values of other keys whose tag is the same.
func (x *table) each(h uint64, fn func(v uint32) bool) {
	if x.n == 0 {
		return
	}
	tag := tagOf(h)
	for i := x.home(tag); ; {
		s := x.slots[i]
		if s == 0 {
			return
		}
		if uint32(s>>32) == tag && !fn(uint32(s)-1) {
			return
		}
		if i++; i == len(x.slots) {
			i = 0
		}
	}
}

// find returns the value stored under h for which eq holds.
func (x *table) find(h uint64, eq func(v uint32) bool) (uint32, bool) {
	var found uint32
	ok := false
	x.each(h, func(v uint32) bool {
		if eq(v) {
			found, ok = v, true
			return false
		}
		return true
	})
	return found, ok
}

// add stores value v under hash h.
func (x *table) add(h uint64, v uint32) {
	if 4*(x.n+1) > 3*len(x.slots) {
		x.grow()
	}
	x.put(uint64(tagOf(h))<<32 | uint64(v) + 1)
	x.n++
}

func (x *table) put(slot uint64) {
	for i := x.home(uint32(slot >> 32)); ; {
		if x.slots[i] == 0 {
			x.slots[i] = slot
			return
		}
		if i++; i == len(x.slots) {
			i = 0
		}
	}
}

// replace stores v in place of old under h, and reports whether old was there.
func (x *table) replace(h uint64, old, v uint32) bool {
	i, ok := x.slot(h, old)
	if ok {
		x.slots[i] = uint64(tagOf(h))<<32 | uint64(v) + 1
	}
	return ok
}

// remove takes value v from under h, and reports whether it was there.
func (x *table) remove(h uint64, v uint32) bool {
	i, ok := x.slot(h, v)
	if !ok {
		return false
	}
	// Backward-shift deletion: move up the slots after i that may sit
	// there, so that no probe meets a free slot before its value.
	n := len(x.slots)
	for j := i; ; {
		if j++; j == n {
			j = 0
		}
		s := x.slots[j]
		if s == 0 {
			break
		}
		k := x.home(uint32(s >> 32))
		// The slot at j may move to i unless its home lies in (i, j].
		if i <= j && (k <= i || k > j) || i > j && k <= i && k > j {
			x.slots[i] = s
			i = j
		}
	}
	x.slots[i] = 0
	x.n--
	return true
}

func (x *table) slot(h uint64, v uint32) (int, bool) {
	if x.n == 0 {
		return 0, false
	}
	want := uint64(tagOf(h))<<32 | uint64(v) + 1
	for i := x.home(tagOf(h)); ; {
		switch x.slots[i] {
		case want:
			return i, true
		case 0:
			return 0, false
		}
		if i++; i == len(x.slots) {
			i = 0
		}
	}
}

func (x *table) grow() { x.resize(max(8, 2*len(x.slots))) }

// fit makes the table just large enough for what it holds.
func (x *table) fit() { x.resize(max(8, (4*x.n+2)/3)) }

func (x *table) resize(size int) {
	old := x.slots
	x.slots = make([]uint64, size)
	for _, s := range old {
		if s != 0 {
			x.put(s)
		}
	}
}
