// Package hashtable is an open-addressing hash table of 32-bit values
// under 64-bit hashes, with no pointers in it: the indexes that hold a
// million products (internal/products, internal/match) use it so that the
// collector has nothing to scan.
//
// A slot is 8 bytes: the hash's high 32 bits (its tag) and the value plus
// one; 0 is a free slot. The table is at most 3/4 full and probed
// linearly from a home picked by Fibonacci hashing and a multiply
// (Lemire's fast range). The keys are not stored: the caller keeps them
// beside its values (a product's ids, a word in an arena), and tells
// whether a value found under a tag is the one it seeks. A key may have
// several values: Add puts one more.
//
// window's sessions table is not this one: it keeps whole 64-bit keys and
// a second per key in one allocation, grows by a quarter and fills to 4/5,
// as the engine's largest structure must.
package hashtable

import "math/bits"

// Table maps hashes to values. The zero Table is empty and ready to use.
type Table struct {
	slots []uint64 // tag<<32 | value+1; 0 is a free slot
	n     int
}

func tagOf(h uint64) uint32 { return uint32(h >> 32) }

func (t *Table) home(tag uint32) int {
	hi, _ := bits.Mul64(uint64(tag)*0x9e3779b97f4a7c15, uint64(len(t.slots)))
	return int(hi)
}

// Len returns how many values the table holds.
func (t *Table) Len() int { return t.n }

// Probe walks the values stored under one hash's tag, in probe order.
type Probe struct {
	t   *Table
	i   int    // the next slot; -1 once the walk has met a free slot
	tag uint64 // in the slot's high half
}

// Probe returns a walk over the values stored under hash h; it meets the
// values of other hashes with the same tag too, which the caller tells
// apart by their keys.
func (t *Table) Probe(h uint64) Probe {
	if t.n == 0 {
		return Probe{i: -1}
	}
	return Probe{t: t, i: t.home(tagOf(h)), tag: h &^ 0xffffffff}
}

// Next returns the next value under the probe's tag, or false at the end.
func (p *Probe) Next() (uint32, bool) {
	for p.i >= 0 {
		s := p.t.slots
		x := s[p.i]
		if x == 0 {
			break
		}
		if p.i++; p.i == len(s) {
			p.i = 0
		}
		if x&^0xffffffff == p.tag {
			return uint32(x) - 1, true
		}
	}
	p.i = -1
	return 0, false
}

// Find returns the value stored under h for which eq holds.
func (t *Table) Find(h uint64, eq func(v uint32) bool) (uint32, bool) {
	for p := t.Probe(h); ; {
		v, ok := p.Next()
		if !ok || eq(v) {
			return v, ok
		}
	}
}

// Add stores value v under hash h.
func (t *Table) Add(h uint64, v uint32) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.resize(max(8, 2*len(t.slots)))
	}
	t.put(uint64(tagOf(h))<<32 | uint64(v) + 1)
	t.n++
}

func (t *Table) put(slot uint64) {
	for i := t.home(uint32(slot >> 32)); ; {
		if t.slots[i] == 0 {
			t.slots[i] = slot
			return
		}
		if i++; i == len(t.slots) {
			i = 0
		}
	}
}

// Replace stores v in place of old under h, and reports whether old was there.
func (t *Table) Replace(h uint64, old, v uint32) bool {
	i, ok := t.slot(h, old)
	if ok {
		t.slots[i] = uint64(tagOf(h))<<32 | uint64(v) + 1
	}
	return ok
}

// Remove takes value v from under h, and reports whether it was there.
func (t *Table) Remove(h uint64, v uint32) bool {
	i, ok := t.slot(h, v)
	if !ok {
		return false
	}
	// Backward-shift deletion: move up the slots after i that may sit
	// there, so that no probe meets a free slot before its value.
	n := len(t.slots)
	for j := i; ; {
		if j++; j == n {
			j = 0
		}
		s := t.slots[j]
		if s == 0 {
			break
		}
		k := t.home(uint32(s >> 32))
		// The slot at j may move to i unless its home lies in (i, j].
		if i <= j && (k <= i || k > j) || i > j && k <= i && k > j {
			t.slots[i] = s
			i = j
		}
	}
	t.slots[i] = 0
	t.n--
	return true
}

func (t *Table) slot(h uint64, v uint32) (int, bool) {
	if t.n == 0 {
		return 0, false
	}
	want := uint64(tagOf(h))<<32 | uint64(v) + 1
	for i := t.home(tagOf(h)); ; {
		switch t.slots[i] {
		case want:
			return i, true
		case 0:
			return 0, false
		}
		if i++; i == len(t.slots) {
			i = 0
		}
	}
}

// Fit makes the table just large enough for what it holds.
func (t *Table) Fit() { t.resize(max(8, (4*t.n+2)/3)) }

// Bytes is the memory of the table's slots.
func (t *Table) Bytes() int { return 8 * cap(t.slots) }

func (t *Table) resize(size int) {
	old := t.slots
	t.slots = make([]uint64, size)
	for _, s := range old {
		if s != 0 {
			t.put(s)
		}
	}
}
