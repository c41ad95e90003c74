package window

import (
	"math/bits"
	"unsafe"
)

// sessions maps a session hash (never 0) to the second of the session's
// latest view: an open-addressing table with linear probing, 12 bytes a
// slot in one allocation, at most 4/5 full. Sessions are most of the
// engine's memory (profiles of a store with 20 million views: 55% of the
// heap in Go maps of 32 bytes an entry and some 190 bytes for a map of one;
// 40% with a power-of-two table of two arrays, whose slots were on average
// just over half full). So the table grows by a quarter, not twice, and
// keeps its keys and seconds in one slice.
//
// The hashes are keyed SipHash values (Engine.SessionHash) under a secret
// key, so a client cannot choose them; a slot is picked from a hash by Fibonacci hashing and a multiply
// (Lemire's fast range), which spreads any hash over any table size.
//
// The words are held by a pointer to the first, 16 bytes with the sizes
// rather than a slice's 24 (see timeline).
type sessions struct {
	// words holds size keys (0 marks a free slot), then the seconds two
	// to a word: slot i's second is the low or high half of word size+i/2.
	words *uint64
	size  uint32
	n     uint32
}

// slots returns the table's words: size keys, then the seconds.
func (s *sessions) slots() []uint64 {
	if s.words == nil {
		return nil
	}
	return unsafe.Slice(s.words, int(s.size)+int(s.size+1)/2)
}

const (
	sessionsLoadNum, sessionsLoadDen = 4, 5 // the largest share of slots in use
	fibonacci                        = 0x9e3779b97f4a7c15

	// A table that is only read until its next new session, as a
	// snapshot's or a trimmed one, is made up to 9/10 full: 31 MB less
	// for 19 million sessions than at 4/5. Finding a session there takes
	// some 5 probes rather than 3, and missing one some 50, once: the
	// next new session grows the table back under 4/5.
	fittedLoadNum, fittedLoadDen = 9, 10
)

// sizedSessions returns an empty table that holds n sessions without growing.
func sizedSessions(n int) sessions {
	return loadedSessions(n, sessionsLoadNum, sessionsLoadDen)
}

// fittedSessions returns an empty table for n sessions at most 9/10 full,
// which grows on the first session more.
func fittedSessions(n int) sessions {
	return loadedSessions(n, fittedLoadNum, fittedLoadDen)
}

// loadedSessions returns an empty table for n sessions at most num/den
// full: always one slot free at least, which ends every probe.
func loadedSessions(n, num, den int) sessions {
	if n == 0 {
		return sessions{}
	}
	size := max(n+1, (den*n+num-1)/num)
	return sessions{words: unsafe.SliceData(make([]uint64, size+(size+1)/2)), size: uint32(size)}
}

func (s *sessions) home(h uint64) uint32 {
	hi, _ := bits.Mul64(h*fibonacci, uint64(s.size))
	return uint32(hi)
}

func (s *sessions) sec(slots []uint64, i uint32) uint32 {
	return uint32(slots[s.size+i/2] >> (32 * (i & 1)))
}

func (s *sessions) setSec(slots []uint64, i, sec uint32) {
	w := &slots[s.size+i/2]
	shift := 32 * (i & 1)
	*w = *w&^(0xffffffff<<shift) | uint64(sec)<<shift
}

// get returns the second stored for hash h.
func (s *sessions) get(h uint64) (uint32, bool) {
	if s.n == 0 {
		return 0, false
	}
	slots := s.slots()
	for i := s.home(h); ; {
		switch slots[i] {
		case h:
			return s.sec(slots, i), true
		case 0:
			return 0, false
		}
		if i++; i == s.size {
			i = 0
		}
	}
}

// set stores sec for hash h, which must not be 0.
func (s *sessions) set(h uint64, sec uint32) {
	if sessionsLoadDen*(s.n+1) > sessionsLoadNum*s.size {
		s.grow()
	}
	s.put(h, sec)
}

// put stores sec for hash h, which must not be 0, in a table with room
// for it: it never grows the table, so that a fitted one can be filled.
func (s *sessions) put(h uint64, sec uint32) {
	slots := s.slots()
	for i := s.home(h); ; {
		switch slots[i] {
		case h:
			s.setSec(slots, i, sec)
			return
		case 0:
			slots[i] = h
			s.setSec(slots, i, sec)
			s.n++
			return
		}
		if i++; i == s.size {
			i = 0
		}
	}
}

// grow makes room for a quarter more sessions than the table holds.
func (s *sessions) grow() {
	old := *s
	*s = sizedSessions(int(old.n) + max(int(old.n)/4, 1))
	old.each(s.set)
}

// fit makes the table as small as a fitted one.
func (s *sessions) fit() {
	if fitted := fittedSessions(int(s.n)); fitted.size < s.size {
		s.each(fitted.put)
		*s = fitted
	}
}

// each calls fn for every entry.
func (s *sessions) each(fn func(h uint64, sec uint32)) {
	slots := s.slots()
	for i, k := range slots[:s.size] {
		if k != 0 {
			fn(k, s.sec(slots, uint32(i)))
		}
	}
}

func (s *sessions) len() int { return int(s.n) }

// bytes is the memory of the table.
func (s *sessions) bytes() int { return 8 * len(s.slots()) }
