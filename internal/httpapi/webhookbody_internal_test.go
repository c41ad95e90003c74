package httpapi

import (
	"context"
	"net/netip"
	"testing"
	"time"
)

// One address cannot take more than its share of the budget, nor all
// addresses together more than the whole; what is given back is free
// again, and an address's entry goes with its last request.
func TestWebhookBodiesBudget(t *testing.T) {
	t.Parallel()
	b := newWebhookBodies(10, 4)
	a, c := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	r1, err := b.reserve(short(), a, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.reserve(short(), a, 1); err == nil {
		t.Fatal("an address got more than its share")
	}
	r2, err := b.reserve(short(), c, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.reserve(short(), netip.MustParseAddr("192.0.2.3"), 3); err == nil {
		t.Fatal("more than the whole budget was given out")
	}
	if b.Held() != 8 {
		t.Fatalf("held %d, want 8", b.Held())
	}
	r1()
	r2()
	if r, err := b.reserve(short(), a, 4); err != nil {
		t.Fatal(err)
	} else {
		r()
	}
	if b.Held() != 0 || len(b.addrs) != 0 {
		t.Fatalf("held %d, %d addresses after all were given back", b.Held(), len(b.addrs))
	}
}
