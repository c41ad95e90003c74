package window

import (
	"math/rand/v2"
	"testing"
)

// The table must agree with a Go map through growth and updates.
func TestSessionsAgreeWithAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var s sessions
	want := map[uint64]uint32{}
	for i := range 50_000 {
		h := rng.Uint64()>>rng.IntN(60) | 1 // small and large hashes, never 0
		if i%3 == 0 && len(want) > 0 {
			for k := range want { // an update of a held key
				h = k
				break
			}
		}
		sec := uint32(i)
		s.set(h, sec)
		want[h] = sec
		if probe := rng.Uint64() | 1; rng.IntN(4) == 0 {
			got, ok := s.get(probe)
			w, wok := want[probe]
			if got != w || ok != wok {
				t.Fatalf("get(%x) = %d, %v; want %d, %v", probe, got, ok, w, wok)
			}
		}
	}
	if s.len() != len(want) {
		t.Fatalf("len %d, want %d", s.len(), len(want))
	}
	n := 0
	s.each(func(h uint64, sec uint32) {
		n++
		if want[h] != sec {
			t.Fatalf("%x: %d, want %d", h, sec, want[h])
		}
	})
	if n != len(want) || sessionsLoadDen*s.len() > sessionsLoadNum*int(s.size) {
		t.Fatalf("each saw %d of %d; %d slots", n, len(want), s.size)
	}
	size := s.size
	s.fit()
	if s.size >= size || s.len() != len(want) || fittedLoadDen*s.len() > fittedLoadNum*int(s.size) ||
		sessionsLoadDen*s.len() <= sessionsLoadNum*int(s.size) {
		t.Fatalf("fit: %d slots for %d sessions, %d before", s.size, s.len(), size)
	}
	s.each(func(h uint64, sec uint32) {
		if want[h] != sec {
			t.Fatalf("after fit, %x: %d, want %d", h, sec, want[h])
		}
	})
	lacked := uint64(1)
	for _, held := want[lacked]; held; _, held = want[lacked] {
		lacked++
	}
	if _, ok := s.get(lacked); ok {
		t.Fatal("a fitted table finds a session it lacks")
	}
	s.set(lacked, 7) // a new session grows the fitted table back under 4/5
	if sec, ok := s.get(lacked); !ok || sec != 7 || sessionsLoadDen*s.len() > sessionsLoadNum*int(s.size) {
		t.Fatalf("after a new session: %d, %v; %d slots for %d", sec, ok, s.size, s.len())
	}
	var empty sessions
	if _, ok := empty.get(42); ok || empty.bytes() != 0 {
		t.Fatal("the empty table holds something")
	}
}
