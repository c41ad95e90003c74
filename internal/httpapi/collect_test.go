package httpapi_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/viewblock"
)

const (
	viewPath     = "/api/collect/product-view"
	purchasePath = "/api/collect/product-purchase"
)

func TestCollectView(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// The closed brand's catalog has one product; no row adds to what
	// another row reads, so each passes alone and in any order.
	if _, err := f.tracker.EnsureProduct(context.Background(), &svc.Product{BrandID: "br_closed", ProductID: "catalogued"}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 129)
	tests := []struct {
		name       string
		body       any
		headers    []string
		wantStatus int
		wantFields []string // for 400: the fields named, sorted
	}{
		{"minimal anonymous view", view("br_open", "p1", nil), nil, 200, nil},
		{"full keyed view", map[string]any{
			"brand_id": "br_open",
			"product":  map[string]any{"product_id": "p1", "sku": "SKU-1", "title": "Shoe", "url": "https://shop.example/p/1"},
			"context":  map[string]any{"timestamp": "2026-11-21T09:59:00Z", "session_id": "s1", "country": "DE", "locale": "de-DE"},
		}, []string{"X-svc-Api-Key", "KEY:br_open"}, 200, nil},
		{"identifiers", map[string]any{"brand_id": "br_open",
			"product": map[string]any{"product_id": "p1", "gtin": "4006381333931", "mpn": "WH-1000XM5", "brand": "Sony"}}, nil, 200, nil},
		{"bad identifiers", map[string]any{"brand_id": "br_open",
			"product": map[string]any{"product_id": "p1", "gtin": "4006381333932", "mpn": "", "brand": long}}, nil, 400,
			[]string{"product.brand", "product.gtin", "product.mpn"}},
		{"gtin of 11 digits", map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": "p1", "gtin": "03600029145"}}, nil, 400, []string{"product.gtin"}},
		{"gtin with letters", map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": "p1", "gtin": "4006381333a31"}}, nil, 400, []string{"product.gtin"}},
		{"aliases", map[string]any{"brand_id": "br_open",
			"product": map[string]any{"product_id": "8123", "aliases": []string{"FHB-42", "44000000000042", "https://shop.example/p/boot"}}}, nil, 200, nil},
		{"bad aliases named each", map[string]any{"brand_id": "br_open",
			"product": map[string]any{"product_id": "p1", "aliases": []string{"ok", "", long, "a\nb"}}}, nil, 400,
			[]string{"product.aliases[1]", "product.aliases[2]", "product.aliases[3]"}},
		{"too many aliases", map[string]any{"brand_id": "br_open",
			"product": map[string]any{"product_id": "p1", "aliases": strings.Split("a b c d e f g h i j k l m n o p q", " ")}}, nil, 400,
			[]string{"product.aliases"}},
		{"aliases not an array", `{"brand_id":"br_open","product":{"product_id":"p1","aliases":"FHB-42"}}`, nil, 400, []string{"product.aliases"}},
		{"unknown fields are ignored", `{"brand_id":"br_open","product":{"product_id":"p1","color":"red"},"extra":[1,2]}`, nil, 200, nil},
		{"nulls mean absent", `{"brand_id":"br_open","product":{"product_id":"p1","sku":null},"context":null}`, nil, 200, nil},
		{"missing brand and product", `{}`, nil, 400, []string{"brand_id", "product.product_id"}},
		{"every field bad", map[string]any{
			"brand_id": long,
			"product":  map[string]any{"product_id": "", "sku": "", "title": strings.Repeat("t", 513), "url": "ftp://shop.example/p"},
			"context":  map[string]any{"timestamp": "2026-11-21 10:00:00", "session_id": "a\x00b", "country": "de", "locale": "de_DE"},
		}, nil, 400, []string{"brand_id", "context.country", "context.locale", "context.session_id", "context.timestamp", "product.product_id", "product.sku", "product.title", "product.url"}},
		{"timestamp without offset", view("br_open", "p1", map[string]any{"timestamp": "2026-11-21T10:00:00"}), nil, 400, []string{"context.timestamp"}},
		{"relative url", map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": "p", "url": "/p/1"}}, nil, 400, []string{"product.url"}},
		{"wrong types named once", `{"brand_id":5,"product":"p1","context":{"country":1}}`, nil, 400, []string{"brand_id", "context.country", "product"}},
		{"not JSON", `{"brand_id":`, nil, 400, nil},
		{"empty body", ``, nil, 400, nil},
		{"array body", `[1]`, nil, 400, nil},
		{"body over 64 KiB", `{"brand_id":"br_open","pad":"` + strings.Repeat("x", 64<<10) + `"}`, nil, 413, nil},
		{"unknown key", view("br_open", "p1", nil), []string{"X-svc-Api-Key", "sk_nope"}, 401, nil},
		{"empty key header", view("br_open", "p1", nil), []string{"X-svc-Api-Key", ""}, 401, nil},
		{"revoked key", view("br_open", "p1", nil), []string{"X-svc-Api-Key", "REVOKED"}, 401, nil},
		{"key of another brand", view("br_open", "p1", nil), []string{"X-svc-Api-Key", "KEY:br_locked"}, 401, nil},
		{"unknown key beats a bad body", `{}`, []string{"X-svc-Api-Key", "sk_nope"}, 401, nil},
		{"header name in any case", view("br_open", "p1", nil), []string{"x-svc-api-key", "KEY:br_open"}, 200, nil},
		{"unknown brand", view("br_nope", "p1", nil), nil, 404, nil},
		{"require_key without key", view("br_locked", "p1", nil), nil, 401, nil},
		{"require_key with key", view("br_locked", "p1", nil), []string{"X-svc-Api-Key", "KEY:br_locked"}, 200, nil},
		{"foreign origin without key", view("br_open", "p1", nil), []string{"Origin", "https://evil.example"}, 401, nil},
		{"lookalike origin", view("br_open", "p1", nil), []string{"Origin", "https://notshop.example"}, 401, nil},
		{"null origin", view("br_open", "p1", nil), []string{"Origin", "null"}, 401, nil},
		{"brand origin", view("br_open", "p1", nil), []string{"Origin", "https://shop.example"}, 200, nil},
		{"subdomain origin with port", view("br_open", "p1", nil), []string{"Origin", "http://www.shop.example:8443"}, 200, nil},
		{"foreign origin with key", view("br_open", "p1", nil), []string{"Origin", "https://evil.example", "X-svc-Api-Key", "KEY:br_open"}, 200, nil},
		{"closed catalog, new product, anonymous", view("br_closed", "new-anonymous", nil), nil, 404, nil},
		{"closed catalog, new product, keyed", view("br_closed", "new-keyed", nil), []string{"X-svc-Api-Key", "KEY:br_closed"}, 200, nil},
		{"closed catalog, known product, anonymous", view("br_closed", "catalogued", nil), nil, 200, nil},
		{"keyed timestamp 6 min ahead", view("br_open", "p1", map[string]any{"timestamp": t0.Add(6 * time.Minute).Format(time.RFC3339)}), []string{"X-svc-Api-Key", "KEY:br_open"}, 400, []string{"context.timestamp"}},
		{"keyed timestamp 4 min ahead", view("br_open", "p1", map[string]any{"timestamp": t0.Add(4 * time.Minute).Format(time.RFC3339)}), []string{"X-svc-Api-Key", "KEY:br_open"}, 200, nil},
		{"keyed timestamp older than retention", view("br_open", "p1", map[string]any{"timestamp": t0.Add(-36 * 24 * time.Hour).Format(time.RFC3339)}), []string{"X-svc-Api-Key", "KEY:br_open"}, 400, []string{"context.timestamp"}},
		{"anonymous timestamp far off is accepted", view("br_open", "p1", map[string]any{"timestamp": "2020-01-01T00:00:00+02:00"}), nil, 200, nil},
		{"bad idempotency key", view("br_open", "p1", nil), []string{"Idempotency-Key", "ключ"}, 400, []string{"Idempotency-Key"}},
		{"timestamp rule listed beside other bad fields", map[string]any{
			"brand_id": "br_open", "product": map[string]any{"product_id": "p1", "url": "nope"},
			"context": map[string]any{"timestamp": t0.Add(time.Hour).Format(time.RFC3339)},
		}, []string{"X-svc-Api-Key", "KEY:br_open"}, 400, []string{"context.timestamp", "product.url"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do("POST", viewPath, tt.body, f.headers(tt.headers)...)
			if r.status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.status, tt.wantStatus, r.body)
			}
			if r.status == 200 {
				m := r.json(t)
				if m["status"] != "accepted" || m["event_id"] == "" {
					t.Fatalf("body %s", r.body)
				}
				return
			}
			if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
				t.Fatalf("Content-Type %q", ct)
			}
			p := r.json(t)
			if p["status"] != float64(tt.wantStatus) || p["title"] == "" || !strings.HasPrefix(p["type"].(string), "https://") {
				t.Fatalf("problem %s", r.body)
			}
			if got := r.fields(t); tt.wantFields != nil && !reflect.DeepEqual(got, tt.wantFields) {
				t.Fatalf("fields %v, want %v\n%s", got, tt.wantFields, r.body)
			}
		})
	}
}

// headers replaces KEY:brand and REVOKED with the fixture's secrets.
func (f *fixture) headers(h []string) []string {
	out := append([]string(nil), h...)
	for i, v := range out {
		if b, ok := strings.CutPrefix(v, "KEY:"); ok {
			out[i] = f.keys[b]
		} else if v == "REVOKED" {
			out[i] = f.revoked
		}
	}
	return out
}

func TestCollectPurchase(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	items := func(n int) map[string]any {
		var lines []any
		for i := 0; i < n; i++ {
			lines = append(lines, fmt.Sprint("p", i), 1)
		}
		return purchase("br_open", fmt.Sprint("big-", n), lines...)
	}
	tests := []struct {
		name       string
		body       any
		headers    []string
		wantStatus int
		wantFields []string
	}{
		{"one line", purchase("br_open", "o1", "p1", 2), nil, 200, nil},
		{"500 lines", items(500), nil, 200, nil},
		{"501 lines", items(501), nil, 400, []string{"order.items"}},
		{"no items", purchase("br_open", "o2"), nil, 400, []string{"order.items"}},
		{"missing everything", `{"order":{}}`, nil, 400, []string{"brand_id", "order.items", "order.order_id"}},
		{"bad lines", `{"brand_id":"br_open","order":{"order_id":"o3","currency":"eur","total_value":-1,"items":[
			{"product_id":"p1"},{"product_id":"p1","quantity":0},{"product_id":"p1","quantity":1.5},
			{"quantity":"2"},{"product_id":"p1","quantity":1,"unit_price":-0.01,"sku":""}]},
			"context":{"timestamp":"yesterday","session_id":""}}`, nil, 400, []string{
			"context.session_id", "context.timestamp", "order.currency",
			"order.items[0].quantity", "order.items[1].quantity", "order.items[2].quantity",
			"order.items[3].product_id", "order.items[3].quantity",
			"order.items[4].sku", "order.items[4].unit_price", "order.total_value"}},
		{"items not an array", `{"brand_id":"br_open","order":{"order_id":"o4","items":{}}}`, nil, 400, []string{"order.items"}},
		{"huge quantity", purchase("br_open", "o5", "p1", 1e30), nil, 400, []string{"order.items[0].quantity"}},
		{"unknown brand", purchase("br_nope", "o6", "p1", 1), nil, 404, nil},
		{"closed catalog, one unknown line", purchase("br_closed", "o7", "new-a", 1, "new-b", 1), nil, 404, nil},
		{"require_key without key", purchase("br_locked", "o8", "p1", 1), nil, 401, nil},
		{"foreign origin", purchase("br_open", "o9", "p1", 1), []string{"Origin", "https://evil.example"}, 401, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do("POST", purchasePath, tt.body, f.headers(tt.headers)...)
			if r.status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.status, tt.wantStatus, r.body)
			}
			if r.status != 400 {
				return
			}
			if got := r.fields(t); !reflect.DeepEqual(got, tt.wantFields) {
				t.Fatalf("fields %v, want %v\n%s", got, tt.wantFields, r.body)
			}
		})
	}
	// The refused closed-catalog order registered neither of its products.
	if r := f.do("POST", viewPath, view("br_closed", "new-a", nil)); r.status != 404 {
		t.Fatalf("product of a refused order was registered: %d", r.status)
	}
}

func TestDuplicateOrderCountsOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first := f.do("POST", purchasePath, purchase("br_open", "o1", "p1", 2, "p2", 1, "p1", 3)).json(t)
	again := f.do("POST", purchasePath, purchase("br_open", "o1", "p1", 9)).json(t)
	if first["status"] != "accepted" || again["status"] != "duplicate" || again["event_id"] != first["event_id"] {
		t.Fatalf("first %v, again %v", first, again)
	}
	// The same order id at another brand is another order.
	if other := f.do("POST", purchasePath, purchase("br_locked", "o1", "p1", 1), "X-svc-Api-Key", f.keys["br_locked"]).json(t); other["status"] != "accepted" {
		t.Fatalf("other brand: %v", other)
	}
	if got := f.counts("br_open", "p1"); got != [4]int{0, 0, 1, 5} {
		t.Fatalf("p1 counts %v, want 1 purchase of 5 units", got)
	}
	if got := f.counts("br_open", "p2"); got != [4]int{0, 0, 1, 1} {
		t.Fatalf("p2 counts %v", got)
	}
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first := f.do("POST", viewPath, view("br_open", "p1", nil), "Idempotency-Key", "req-1")
	again := f.do("POST", viewPath, view("br_open", "p1", nil), "Idempotency-Key", "req-1")
	if first.status != 200 || again.status != 200 {
		t.Fatalf("statuses %d %d", first.status, again.status)
	}
	if a, b := first.json(t), again.json(t); a["event_id"] != b["event_id"] || b["status"] != "accepted" {
		t.Fatalf("first %v, replay %v", a, b)
	}
	if first.header.Get("Idempotent-Replayed") != "" || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("Idempotent-Replayed: %q then %q", first.header.Get("Idempotent-Replayed"), again.header.Get("Idempotent-Replayed"))
	}
	// Another brand may use the same key for its own request.
	if r := f.do("POST", viewPath, view("br_locked", "p1", nil), "Idempotency-Key", "req-1", "X-svc-Api-Key", f.keys["br_locked"]); r.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("key shared across brands")
	}
	if got := f.counts("br_open", "p1"); got[0] != 1 {
		t.Fatalf("views %d, want 1", got[0])
	}
	// A replayed key survives a restart, and expires after 24 hours.
	f.restart()
	if r := f.do("POST", viewPath, view("br_open", "p1", nil), "Idempotency-Key", "req-1"); r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("after restart: not replayed")
	}
	f.clock.Set(t0.Add(24*time.Hour + time.Second))
	if r := f.do("POST", viewPath, view("br_open", "p1", nil), "Idempotency-Key", "req-1"); r.header.Get("Idempotent-Replayed") != "" || r.status != 200 {
		t.Fatalf("after 24 h: replayed (%d)", r.status)
	}
}

func TestAnonymousTimestampFarOffCountsNow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hourAgo := t0.Add(-time.Hour).Format(time.RFC3339)
	f.do("POST", viewPath, view("br_open", "p1", map[string]any{"timestamp": hourAgo}))
	f.do("POST", viewPath, view("br_open", "p1", map[string]any{"timestamp": hourAgo}), "X-svc-Api-Key", f.keys["br_open"])
	// The anonymous one counts at receive time, inside a 1-minute window;
	// the keyed one keeps its hour-old timestamp.
	if m := f.proof("br_open", "p1", "&window_views=1").json(t); m["views"] != 1.0 {
		t.Fatalf("1 min window: %v", m)
	}
	if m := f.proof("br_open", "p1", "&window_views=61").json(t); m["views"] != 2.0 {
		t.Fatalf("61 min window: %v", m)
	}
	// The given time is kept on the stored event.
	db, err := sql.Open("sqlite", filepath.Join(f.dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var given int64
	rows, err := db.QueryContext(context.Background(), "SELECT data FROM view_blocks")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			t.Fatal(err)
		}
		vs, err := viewblock.Decode(nil, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if !v.Keyed && v.HasGiven {
				given = v.Given
			}
		}
	}
	if given != t0.Add(-time.Hour).UnixMilli() {
		t.Fatalf("the anonymous view's given time %d, want %d", given, t0.Add(-time.Hour).UnixMilli())
	}
}

func TestIdempotencyKeyScope(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	if r := f.do("POST", viewPath, view("br_open", "p1", nil), "Idempotency-Key", "order-1001"); r.status != 200 {
		t.Fatalf("view: %d", r.status)
	}
	// The same key on another endpoint, or from a keyed sender, is another request.
	p := f.do("POST", purchasePath, purchase("br_open", "o1", "p1", 1), append(key, "Idempotency-Key", "order-1001")...)
	if p.status != 200 || p.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("purchase with a view's key: %d %s", p.status, p.body)
	}
	v := f.do("POST", viewPath, view("br_open", "p1", nil), append(key, "Idempotency-Key", "order-1001")...)
	if v.status != 200 || v.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("keyed view with an anonymous view's key: %d", v.status)
	}
	if got := f.counts("br_open", "p1"); got != [4]int{2, 0, 1, 1} {
		t.Fatalf("counts %v, want 2 views and 1 purchase", got)
	}
	// The same key with another body is refused, and counts nothing.
	c := f.do("POST", viewPath, view("br_open", "p2", nil), "Idempotency-Key", "order-1001")
	if c.status != 409 {
		t.Fatalf("reuse with another body: %d %s", c.status, c.body)
	}
	if r := f.do("GET", "/api/svc/product-proof?brand_id=br_open&product_id=p2", nil); r.status != 404 {
		t.Fatalf("the refused view registered its product: %d", r.status)
	}
}

func TestClosedCatalogAnonymousEventsChangeNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_closed"]}
	known := view("br_closed", "known", nil)
	known["product"] = map[string]any{"product_id": "known", "title": "Real", "url": "https://shop.example/real"}
	if r := f.do("POST", viewPath, known, key...); r.status != 200 {
		t.Fatalf("keyed view: %d", r.status)
	}
	evil := view("br_closed", "known", nil)
	evil["product"] = map[string]any{"product_id": "known", "title": "HACKED", "url": "https://evil.example/x"}
	if r := f.do("POST", viewPath, evil); r.status != 200 {
		t.Fatalf("anonymous view of a known product: %d", r.status)
	}
	order := `{"brand_id":"br_closed","order":{"order_id":"o1","items":[
		{"product_id":"known","title":"HACKED","quantity":1},{"product_id":"unknown","quantity":1}]}}`
	if r := f.do("POST", purchasePath, order); r.status != 404 {
		t.Fatalf("order with an unknown product: %d", r.status)
	}
	var title, url string
	_ = f.store.Products(context.Background(), func(p *svc.Product) error {
		if p.ProductID == "known" {
			title, url = *p.Title, *p.URL
		}
		return nil
	})
	if title != "Real" || url != "https://shop.example/real" {
		t.Fatalf("anonymous events changed the product: %q %q", title, url)
	}
	if got := f.counts("br_closed", "known"); got != [4]int{2, 0, 0, 0} {
		t.Fatalf("counts %v, want the 2 views and no purchase", got)
	}
}
