package httpapi_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestProofFieldsAndWindows(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	at := func(d time.Duration) map[string]any {
		return map[string]any{"timestamp": t0.Add(-d).Format(time.RFC3339), "session_id": fmt.Sprint("s", d)}
	}
	// Views at the edges of the 60- and 15-minute windows, purchases at the
	// edges of 24 and 48 hours; keyed, so their timestamps are kept.
	for _, d := range []time.Duration{0, 14*time.Minute + 59*time.Second, 15 * time.Minute, 59*time.Minute + 59*time.Second, time.Hour} {
		f.do("POST", viewPath, view("br_open", "p1", at(d)), key...)
	}
	f.do("POST", viewPath, view("br_open", "p1", at(0)), key...) // same session again
	for i, d := range []time.Duration{24*time.Hour - time.Second, 24 * time.Hour, 48*time.Hour - time.Second, 48 * time.Hour} {
		body := purchase("br_open", fmt.Sprint("o", i), "p1", 2)
		body["context"] = map[string]any{"timestamp": t0.Add(-d).Format(time.RFC3339)}
		if r := f.do("POST", purchasePath, body, key...); r.status != 200 {
			t.Fatalf("purchase: %d %s", r.status, r.body)
		}
	}
	tests := []struct {
		name  string
		query string
		want  map[string]any
	}{
		{"defaults", "", map[string]any{
			"brand_id": "br_open", "product_id": "p1",
			"views_last_60_min": 5.0, "purchases_last_24h": 1.0,
			"views": 5.0, "purchases": 1.0, "viewers": 4.0, "units": 2.0,
			"window_views": 60.0, "window_purchases": 24.0, "generated_at": "2026-11-21T10:00:00Z",
			"thresholds": map[string]any{"viewers": 3.0, "purchases": 1.0, "carts": 3.0},
			"carts":      0.0, "carts_last_60_min": 0.0, "window_carts": 60.0,
			"viewers_now": nil, "window_now": 5.0, "reasons": map[string]any{"viewers_now": "below_threshold"},
			"widget": map[string]any{"holdout": 0.0, "position": "start", "languages": []any{"en", "de", "fr", "es"}},
		}},
		{"15 minutes and 48 hours", "&window_views=15&window_purchases=48", map[string]any{
			"brand_id": "br_open", "product_id": "p1",
			"views_last_15_min": 3.0, "purchases_last_48h": 3.0,
			"views": 3.0, "purchases": 3.0, "viewers": 2.0, "units": 6.0,
			"window_views": 15.0, "window_purchases": 48.0, "generated_at": "2026-11-21T10:00:00Z",
			"thresholds": map[string]any{"viewers": 3.0, "purchases": 1.0, "carts": 3.0},
			"carts":      0.0, "carts_last_60_min": 0.0, "window_carts": 60.0,
			"viewers_now": nil, "window_now": 5.0, "reasons": map[string]any{"viewers_now": "below_threshold"},
			"widget": map[string]any{"holdout": 0.0, "position": "start", "languages": []any{"en", "de", "fr", "es"}},
		}},
		{"largest windows", "&window_views=10080&window_purchases=720", map[string]any{
			"brand_id": "br_open", "product_id": "p1",
			"views_last_10080_min": 6.0, "purchases_last_720h": 4.0,
			"views": 6.0, "purchases": 4.0, "viewers": 5.0, "units": 8.0,
			"window_views": 10080.0, "window_purchases": 720.0, "generated_at": "2026-11-21T10:00:00Z",
			"thresholds": map[string]any{"viewers": 3.0, "purchases": 1.0, "carts": 3.0},
			"carts":      0.0, "carts_last_60_min": 0.0, "window_carts": 60.0,
			"viewers_now": nil, "window_now": 5.0, "reasons": map[string]any{"viewers_now": "below_threshold"},
			"widget": map[string]any{"holdout": 0.0, "position": "start", "languages": []any{"en", "de", "fr", "es"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.proof("br_open", "p1", tt.query)
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if got := r.json(t); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
	// One second later the oldest view inside 60 minutes leaves it.
	f.clock.Set(t0.Add(time.Second))
	if m := f.proof("br_open", "p1", "").json(t); m["views"] != 4.0 || m["purchases"] != 0.0 {
		t.Fatalf("a second later: %v", m)
	}
	// The counts are rebuilt from the store after a restart.
	f.restart()
	if m := f.proof("br_open", "p1", "").json(t); m["views"] != 4.0 || m["viewers"] != 3.0 {
		t.Fatalf("after restart: %v", m)
	}
	if m := f.proof("br_open", "p1", "&window_purchases=48").json(t); m["purchases"] != 2.0 || m["units"] != 4.0 {
		t.Fatalf("after restart: %v", m)
	}
}

func TestProofErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.do("POST", viewPath, view("br_open", "p1", nil))
	f.do("POST", viewPath, view("br_locked", "p1", nil), "X-svc-Api-Key", f.keys["br_locked"])
	tests := []struct {
		name       string
		path       string
		headers    []string
		wantStatus int
		wantFields []string
	}{
		{"ok", "?brand_id=br_open&product_id=p1", nil, 200, nil},
		{"missing both ids", "", nil, 400, []string{"brand_id", "product_id"}},
		{"windows too small", "?brand_id=br_open&product_id=p1&window_views=0&window_purchases=0", nil, 400, []string{"window_purchases", "window_views"}},
		{"windows too large", "?brand_id=br_open&product_id=p1&window_views=10081&window_purchases=721", nil, 400, []string{"window_purchases", "window_views"}},
		{"windows not integers", "?brand_id=br_open&product_id=p1&window_views=1.5&window_purchases=abc", nil, 400, []string{"window_purchases", "window_views"}},
		// A parameter read twice is refused, not first-wins (an outside probe).
		{"repeated parameters", "?brand_id=br_open&brand_id=br_other&product_id=p1&window_views=7&window_views=abc", nil, 400, []string{"brand_id", "window_views"}},
		{"repeated with the same value", "?brand_id=br_open&product_id=p1&product_id=p1", nil, 400, []string{"product_id"}},
		{"repeated and escaped", "?brand_id=br_open&product_id=p1&window%5Fpurchases=2&window_purchases=2", nil, 400, []string{"window_purchases"}},
		{"repeated parameter not read", "?brand_id=br_open&product_id=p1&utm=a&utm=b", nil, 200, nil},
		{"unknown brand", "?brand_id=br_nope&product_id=p1", nil, 404, nil},
		{"product never seen", "?brand_id=br_open&product_id=p404", nil, 404, nil},
		{"invalid key", "?brand_id=br_open&product_id=p1", []string{"X-svc-Api-Key", "sk_bad"}, 401, nil},
		{"revoked key", "?brand_id=br_open&product_id=p1", []string{"X-svc-Api-Key", "REVOKED"}, 401, nil},
		{"key of another brand", "?brand_id=br_open&product_id=p1", []string{"X-svc-Api-Key", "KEY:br_locked"}, 401, nil},
		{"require_key without key", "?brand_id=br_locked&product_id=p1", nil, 401, nil},
		{"require_key with key", "?brand_id=br_locked&product_id=p1", []string{"X-svc-Api-Key", "KEY:br_locked"}, 200, nil},
		{"foreign origin", "?brand_id=br_open&product_id=p1", []string{"Origin", "https://evil.example"}, 401, nil},
		{"brand origin", "?brand_id=br_open&product_id=p1", []string{"Origin", "https://shop.example"}, 200, nil},
	}
	// A brand's own thresholds travel with its proof.
	if m := f.proof("br_locked", "p1", "", "X-svc-Api-Key", f.keys["br_locked"]).json(t); !reflect.DeepEqual(m["thresholds"], map[string]any{"viewers": 5.0, "purchases": 2.0, "carts": 4.0}) ||
		m["widget"].(map[string]any)["font"] != "inherit" {
		t.Fatalf("thresholds %v, widget %v", m["thresholds"], m["widget"])
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do("GET", "/api/svc/product-proof"+tt.path, nil, f.headers(tt.headers)...)
			if r.status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.status, tt.wantStatus, r.body)
			}
			if r.status == 400 {
				if got := r.fields(t); !reflect.DeepEqual(got, tt.wantFields) {
					t.Fatalf("fields %v, want %v", got, tt.wantFields)
				}
			}
		})
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	pre := f.do("OPTIONS", viewPath, nil,
		"Origin", "https://shop.example",
		"Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "content-type,idempotency-key,x-svc-api-key") // sorted, as browsers send it
	if pre.status != 204 || pre.header.Get("Access-Control-Allow-Origin") != "https://shop.example" ||
		pre.header.Get("Access-Control-Allow-Methods") != "POST" || pre.header.Get("Access-Control-Max-Age") == "" {
		t.Fatalf("preflight %d %v", pre.status, pre.header)
	}
	get := f.do("OPTIONS", "/api/svc/product-proof", nil, "Origin", "https://shop.example", "Access-Control-Request-Method", "GET")
	if get.status != 204 || get.header.Get("Access-Control-Allow-Origin") == "" {
		t.Fatalf("proof preflight %d %v", get.status, get.header)
	}
	r := f.do("POST", viewPath, view("br_open", "p1", nil), "Origin", "https://shop.example")
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "https://shop.example" {
		t.Fatalf("actual request %d %v", r.status, r.header)
	}
	// Refusals carry CORS headers too, so the page's script can read why.
	r = f.do("POST", viewPath, view("br_open", "p1", nil), "Origin", "https://evil.example")
	if r.status != 401 || r.header.Get("Access-Control-Allow-Origin") != "https://evil.example" {
		t.Fatalf("refusal %d %v", r.status, r.header)
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if r := f.do("GET", "/healthz", nil); r.status != 200 {
		t.Fatalf("healthz %d", r.status)
	}
	if r := f.do("GET", "/readyz", nil); r.status != 200 {
		t.Fatalf("readyz %d", r.status)
	}
	// The mux's own answers are problem+json too.
	for _, tt := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/nope", 404, ""},
		{"GET", viewPath, 405, "POST"},
		{"DELETE", "/api/svc/product-proof", 405, "GET"},
	} {
		r := f.do(tt.method, tt.path, nil)
		if r.status != tt.status || r.header.Get("Content-Type") != "application/problem+json" || r.header.Get("Allow") != tt.allow {
			t.Errorf("%s %s: %d %q Allow %q", tt.method, tt.path, r.status, r.header.Get("Content-Type"), r.header.Get("Allow"))
		}
	}
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, path := range []string{"/healthz", "/api/svc/product-proof", "/nope"} {
		h := f.do("GET", path, nil).header
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" ||
			h.Get("Content-Security-Policy") != "default-src 'none'; frame-ancestors 'none'" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: %v", path, h)
		}
	}
}
