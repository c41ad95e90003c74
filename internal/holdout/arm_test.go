package holdout_test

import (
	"testing"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
)

// The FNV-1a 32-bit values are the reference ones of the FNV authors'
// test suite (http://www.isthe.com/chongo/src/fnv/test_fnv.c), mod 100.
func TestSessionBucket(t *testing.T) {
	for _, c := range []struct {
		id   string
		hash uint32
	}{
		{"", 0x811c9dc5},
		{"a", 0xe40c292c},
		{"foobar", 0xbf9cf968},
		{"chongo was here!\n", 0xd49930d5},
	} {
		if got, want := holdout.SessionBucket(c.id), int(c.hash%100); got != want {
			t.Errorf("SessionBucket(%q) = %d, want %d", c.id, got, want)
		}
	}
	// UTF-8 bytes, not UTF-16 units or runes: "é" is 0xc3 0xa9.
	h := uint32(0x811c9dc5)
	for _, b := range []byte{0xc3, 0xa9} {
		h = (h ^ uint32(b)) * 16777619
	}
	if got := holdout.SessionBucket("é"); got != int(h%100) {
		t.Errorf("SessionBucket(é) = %d, want %d", got, h%100)
	}
}

func TestArmOf(t *testing.T) {
	// "a" is in bucket 0xe40c292c % 100 = 20.
	for _, c := range []struct {
		id      string
		holdout int
		want    string
	}{
		{"a", 0, holdout.ArmShown},
		{"a", 20, holdout.ArmShown},
		{"a", 21, holdout.ArmHeldOut},
		{"a", 50, holdout.ArmHeldOut},
		{"", 50, ""},
	} {
		if got := holdout.ArmOf(c.id, c.holdout); got != c.want {
			t.Errorf("ArmOf(%q, %d) = %q, want %q", c.id, c.holdout, got, c.want)
		}
	}
	// Over many sessions the held-out share is the holdout.
	held := 0
	for i := range 100000 {
		if holdout.ArmOf(svc.NewBrandID()+string(rune('a'+i%26)), 10) == holdout.ArmHeldOut {
			held++
		}
	}
	if held < 9500 || held > 10500 {
		t.Errorf("%d of 100000 sessions held out at 10%%, want about 10000", held)
	}
}
