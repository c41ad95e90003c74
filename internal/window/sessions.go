package window

// sessions maps a session hash (never 0) to the second of the session's
// latest view: an open-addressing table with linear probing over two flat
// arrays, 12 bytes a slot, at most three quarters full. Sessions are most
// of the engine's memory, and a Go map costs about 32 bytes an entry here
// and some 190 bytes for a map of one; profiles of a store with 20 million
// views showed 55% of the heap in those maps.
//
// The hashes are keyed SipHash values (Engine.SessionHash) under a secret
// key, so their low bits index the table directly and cannot be chosen by
// a client.
type sessions struct {
	keys []uint64 // 0 marks a free slot
	secs []uint32
	n    int
}

// get returns the second stored for hash h.
func (s *sessions) get(h uint64) (uint32, bool) {
	if s.n == 0 {
		return 0, false
	}
	mask := uint64(len(s.keys) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.keys[i] {
		case h:
			return s.secs[i], true
		case 0:
			return 0, false
		}
	}
}

// set stores sec for hash h, which must not be 0.
func (s *sessions) set(h uint64, sec uint32) {
	if 4*(s.n+1) > 3*len(s.keys) {
		s.grow()
	}
	mask := uint64(len(s.keys) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.keys[i] {
		case h:
			s.secs[i] = sec
			return
		case 0:
			s.keys[i], s.secs[i] = h, sec
			s.n++
			return
		}
	}
}

// sizedSessions returns an empty table that holds n sessions without growing.
func sizedSessions(n int) sessions {
	if n == 0 {
		return sessions{}
	}
	size := 4
	for 4*n > 3*size {
		size *= 2
	}
	return sessions{keys: make([]uint64, size), secs: make([]uint32, size)}
}

func (s *sessions) grow() {
	old := *s
	size := max(4, 2*len(old.keys))
	*s = sessions{keys: make([]uint64, size), secs: make([]uint32, size)}
	old.each(s.set)
}

// each calls fn for every entry.
func (s *sessions) each(fn func(h uint64, sec uint32)) {
	for i, k := range s.keys {
		if k != 0 {
			fn(k, s.secs[i])
		}
	}
}

func (s *sessions) len() int { return s.n }

// bytes is the memory of the table's arrays.
func (s *sessions) bytes() int { return 12 * len(s.keys) }
