package httpapi

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/keyedrate"
)

// RateLimit limits anonymous requests per client address (docs/decisions.md, Abuse).
type RateLimit struct {
	PerSecond float64 // sustained requests per second per address; 0 turns the limit off
	Burst     int     // requests an address may send at once
	// TrustedProxies are the proxies whose X-Forwarded-For is believed;
	// from anyone else the header is ignored.
	TrustedProxies []netip.Prefix
}

// limiter holds a token bucket per client address.
type limiter struct {
	cfg RateLimit
	ips *buckets[netip.Addr]
}

func newLimiter(cfg RateLimit) *limiter {
	if cfg.PerSecond <= 0 {
		return nil
	}
	return &limiter{cfg: cfg, ips: newBuckets[netip.Addr](rate.Limit(cfg.PerSecond), cfg.Burst)}
}

// buckets are a token bucket per key (internal/keyedrate): the rate
// limit's per address, the budgets' per address and per brand.
type buckets[K comparable] = keyedrate.Buckets[K]

func newBuckets[K comparable](limit rate.Limit, burst int) *buckets[K] {
	return keyedrate.New[K](limit, burst)
}

// subscriber is the address limits count ip under: an IPv6 client counts
// by its /64, since one subscriber usually holds a whole /64 and would
// otherwise get a fresh count per address.
func subscriber(ip netip.Addr) netip.Addr {
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().Addr()
	}
	return ip
}

// allow takes a token for ip's subscriber, or says how long until one is
// there.
func (l *limiter) allow(ip netip.Addr, now time.Time) (bool, time.Duration) {
	lim := l.ips.Get(subscriber(ip), now)
	if lim.AllowN(now, 1) {
		return true, 0
	}
	r := lim.ReserveN(now, 1)
	wait := r.DelayFrom(now)
	r.CancelAt(now) // only asked how long; the token is not taken
	return false, wait
}

// clientIP is the address a request comes from (ClientIP).
func (l *limiter) clientIP(r *http.Request) netip.Addr { return ClientIP(r, l.cfg.TrustedProxies) }

// ClientIP is the address a request comes from: the peer, or, when the
// peer is one of the trusted proxies, the nearest address in
// X-Forwarded-For that is not one.
func ClientIP(r *http.Request, proxies []netip.Prefix) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	ip = ip.Unmap()
	if !trusted(proxies, ip) {
		return ip
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a forged or broken entry: stop at the last good address
		}
		ip = hop.Unmap()
		if !trusted(proxies, ip) {
			break
		}
	}
	return ip
}

// trusted reports whether ip is one of the trusted proxies.
func trusted(proxies []netip.Prefix, ip netip.Addr) bool {
	for _, p := range proxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// limit refuses anonymous requests over the limit with 429 and Retry-After.
// Requests with a valid API key are brands' servers: never limited here.
// kind names the events of a collect route, for the metrics.
func (s *Server) limit(kind string, next http.Handler) http.Handler {
	if s.limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if key, _, _ := s.authenticate(r); key != nil {
			next.ServeHTTP(w, r)
			return
		}
		ok, wait := s.limiter.allow(s.limiter.clientIP(r), time.Now())
		if ok {
			next.ServeHTTP(w, r)
			return
		}
		if kind != "" {
			s.opts.Metrics.Event(kind, "rejected_"+svc.ERATELIMIT)
		}
		setRetryAfter(w, wait)
		s.handle(func(http.ResponseWriter, *http.Request) error {
			return svc.Errorf(svc.ERATELIMIT, "too many requests from this address; retry after the time in Retry-After, or send an API key")
		}).ServeHTTP(w, r)
	})
}

// setRetryAfter tells a refused client how long to wait: whole seconds,
// rounded up, at least one.
func setRetryAfter(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(max(wait.Seconds(), 1)))))
}
