package httpapi_test

import (
	"net/http"
	"net/netip"
	"strconv"
	"testing"

	"github.com/svc-project/svc/internal/httpapi"
)

func TestBotsAreAnsweredButNotCounted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, ua := range []string{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "curl/8.5.0", ""} {
		r := f.do("POST", viewPath, view("br_open", "p1", nil), "User-Agent", ua)
		if m := r.json(t); r.status != 200 || m["status"] != "accepted" || m["counted"] != false || m["reason"] != "bot" || m["event_id"] != nil {
			t.Fatalf("bot %q: %d %s", ua, r.status, r.body)
		}
	}
	// A bot's request is still checked: a bad one is refused as any other.
	if r := f.do("POST", viewPath, `{}`, "User-Agent", "curl/8.5.0"); r.status != 400 {
		t.Fatalf("bad bot request: %d", r.status)
	}
	// A keyed request is a brand's server, whatever its agent.
	if r := f.do("POST", viewPath, view("br_open", "p1", nil), "User-Agent", "curl/8.5.0", "X-svc-Api-Key", f.keys["br_open"]); r.json(t)["counted"] != nil {
		t.Fatalf("keyed curl not counted: %s", r.body)
	}
	if r := f.do("POST", viewPath, view("br_open", "p1", nil)); r.json(t)["event_id"] == nil {
		t.Fatalf("browser not counted: %s", r.body)
	}
	if got := f.counts("br_open", "p1"); got[0] != 2 {
		t.Fatalf("views %d, want 2: the keyed one and the browser's", got[0])
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	// A token a quarter of an hour: at 1 a second, a machine slow enough
	// to take 4 s over the 12 requests refilled the bucket mid-test.
	f := newFixture(t, httpapi.Options{RateLimit: httpapi.RateLimit{
		PerSecond: 1.0 / 900, Burst: 5,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
	}})
	send := func(headers ...string) (ok, limited int, retryAfter string) {
		for i := 0; i < 12; i++ {
			r := f.do("POST", viewPath, view("br_open", "p1", nil), headers...)
			switch r.status {
			case 200:
				ok++
			case http.StatusTooManyRequests:
				limited++
				retryAfter = r.header.Get("Retry-After")
				if r.header.Get("Content-Type") != "application/problem+json" {
					t.Fatalf("429 without problem+json: %v", r.header)
				}
			default:
				t.Fatalf("status %d: %s", r.status, r.body)
			}
		}
		return ok, limited, retryAfter
	}
	ok, limited, retry := send()
	if ok != 5 || limited != 7 {
		t.Fatalf("anonymous: %d accepted, %d limited; want the burst of 5 and 7 refused", ok, limited)
	}
	if n, err := strconv.Atoi(retry); err != nil || n < 1 {
		t.Fatalf("Retry-After %q", retry)
	}
	// X-Forwarded-For from a peer that is not a trusted proxy changes nothing.
	if ok, _, _ := send("X-Forwarded-For", "203.0.113.9"); ok != 0 {
		t.Fatalf("a forged X-Forwarded-For escaped the limit: %d accepted", ok)
	}
	// A keyed load is not limited.
	if ok, limited, _ := send("X-svc-Api-Key", f.keys["br_open"]); ok != 12 || limited != 0 {
		t.Fatalf("keyed: %d accepted, %d limited", ok, limited)
	}
	// The proof is limited too.
	if r := f.do("GET", "/api/svc/product-proof?brand_id=br_open&product_id=p1", nil); r.status != http.StatusTooManyRequests {
		t.Fatalf("proof over the limit: %d", r.status)
	}
}
