package window

import (
	"testing"
	"unsafe"
)

// A million products are held at once: a product must fit the
// allocator's 64-byte class, not the 80- or 96-byte one.
func TestProductSize(t *testing.T) {
	if n := unsafe.Sizeof(product{}); n > 64 {
		t.Fatalf("a product takes %d bytes, want at most 64", n)
	}
	t.Logf("a product takes %d bytes", unsafe.Sizeof(product{}))
}
