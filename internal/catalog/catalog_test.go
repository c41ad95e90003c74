package catalog

import (
	"testing"

	"github.com/svc-project/svc"
)

func TestRefIndex(t *testing.T) {
	x := refIndex{sparse: map[svc.ProductRef]uint32{}}
	refs := []svc.ProductRef{1, 2, 5000, 3, 1 << 40, 4, -7}
	for i, r := range refs {
		x.set(r, uint32(i))
	}
	for i := svc.ProductRef(6); i < 6000; i++ { // the slice grows past 5000
		if i != 5000 {
			x.set(i, 99)
		}
	}
	for i, r := range refs {
		if got, ok := x.get(r); !ok || got != uint32(i) {
			t.Errorf("get(%d) = %d, %v; want %d", r, got, ok, i)
		}
	}
	if _, ok := x.get(6001); ok {
		t.Error("an unset reference was found")
	}
}
