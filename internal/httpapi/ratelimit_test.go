package httpapi

import (
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func TestClientIP(t *testing.T) {
	t.Parallel()
	l := newLimiter(RateLimit{PerSecond: 1, Burst: 1, TrustedProxies: []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128"),
	}})
	tests := []struct {
		name, peer, xff, want string
	}{
		{"no proxy", "198.51.100.7:5000", "", "198.51.100.7"},
		{"untrusted peer's header is ignored", "198.51.100.7:5000", "203.0.113.1", "198.51.100.7"},
		{"trusted proxy", "10.1.2.3:5000", "203.0.113.1", "203.0.113.1"},
		{"chain of trusted proxies", "10.1.2.3:5000", "203.0.113.1, 10.0.0.9, 10.0.0.5", "203.0.113.1"},
		{"client-supplied entries before the real one are ignored", "10.1.2.3:5000", "1.1.1.1, 203.0.113.1", "203.0.113.1"},
		{"garbage stops the walk", "10.1.2.3:5000", "203.0.113.1, garbage, 10.0.0.5", "10.0.0.5"},
		{"trusted proxy without header", "10.1.2.3:5000", "", "10.1.2.3"},
		{"IPv6 proxy", "[::1]:5000", "2001:db8::1", "2001:db8::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.peer
			if tt.xff != "" {
				r.Header.Set("X-Forwarded-For", tt.xff)
			}
			if got := l.clientIP(r); got.String() != tt.want {
				t.Fatalf("clientIP = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestLimiterForgetsIdleAddresses(t *testing.T) {
	t.Parallel()
	l := newLimiter(RateLimit{PerSecond: 1, Burst: 1})
	now := time.Now()
	for i := 0; i < 100; i++ {
		l.allow(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), now)
	}
	if ok, wait := l.allow(netip.AddrFrom4([4]byte{192, 0, 2, 0}), now); ok || wait <= 0 {
		t.Fatalf("second request in the same instant: ok=%v wait=%s", ok, wait)
	}
	l.allow(netip.AddrFrom4([4]byte{198, 51, 100, 1}), now.Add(7*time.Minute))
	if n := l.ips.Len(); n != 1 {
		t.Fatalf("%d addresses held after they went idle, want 1", n)
	}
}

func TestLimiterKeysIPv6ByPrefix(t *testing.T) {
	t.Parallel()
	l := newLimiter(RateLimit{PerSecond: 1, Burst: 1})
	now := time.Now()
	if ok, _ := l.allow(netip.MustParseAddr("2001:db8:1:2::1"), now); !ok {
		t.Fatal("first request refused")
	}
	if ok, _ := l.allow(netip.MustParseAddr("2001:db8:1:2:ffff::9"), now); ok {
		t.Fatal("another address of the same /64 got a fresh bucket")
	}
	if ok, _ := l.allow(netip.MustParseAddr("2001:db8:1:3::1"), now); !ok {
		t.Fatal("another /64 shares the bucket")
	}
}
