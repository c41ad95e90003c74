package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

const recentPath = "/api/svc/recent-activity"

// bought sends a keyed order of the products, d before t0, to the place.
func (f *fixture) bought(brand, order string, d time.Duration, country, city string, products ...string) {
	f.t.Helper()
	var lines []any
	for _, p := range products {
		lines = append(lines, p, 1)
	}
	body := purchase(brand, order, lines...)
	ctx := map[string]any{"timestamp": t0.Add(-d).Format(time.RFC3339), "session_id": "sess-" + order}
	if country != "" {
		ctx["country"] = country
	}
	if city != "" {
		ctx["city"] = city
	}
	body["context"] = ctx
	if r := f.do("POST", purchasePath, body, "X-svc-Api-Key", f.keys[brand]); r.status != 200 {
		f.t.Fatalf("purchase %s: %d %s", order, r.status, r.body)
	}
}

// recent reads the feed and returns its items as "product place minutes".
func (f *fixture) recent(query string, headers ...string) []string {
	f.t.Helper()
	r := f.do("GET", recentPath+"?"+query, nil, headers...)
	if r.status != 200 {
		f.t.Fatalf("recent %s: %d %s", query, r.status, r.body)
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		f.t.Fatalf("Cache-Control %q", cc)
	}
	var body struct {
		Items []map[string]json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || body.Items == nil {
		f.t.Fatalf("body %s: %v", r.body, err)
	}
	out := []string{}
	for _, it := range body.Items {
		if len(it) != 3 || it["product"] == nil || it["place"] == nil || it["minutes_ago"] == nil {
			f.t.Fatalf("an item has exactly product, place and minutes_ago: %s", r.body)
		}
		var p struct {
			ProductID string  `json:"product_id"`
			Title     *string `json:"title"`
			URL       *string `json:"url"`
		}
		var prod map[string]any
		_ = json.Unmarshal(it["product"], &prod)
		if err := json.Unmarshal(it["product"], &p); err != nil || len(prod) != 3 {
			f.t.Fatalf("product %s: want product_id, title and url", it["product"])
		}
		var place map[string]string
		_ = json.Unmarshal(it["place"], &place)
		var minutes int
		if err := json.Unmarshal(it["minutes_ago"], &minutes); err != nil {
			f.t.Fatalf("minutes_ago %s is not an integer", it["minutes_ago"])
		}
		where := "-"
		if place != nil {
			where = place["country"]
			if c, ok := place["city"]; ok {
				where += "/" + c
			}
			if len(place) > 2 || where == "" {
				f.t.Fatalf("place %s", it["place"])
			}
		}
		out = append(out, fmt.Sprintf("%s %s %d", p.ProductID, where, minutes))
	}
	return out
}

func TestRecentActivity(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// br_open: the default rules (delay 5 min, window 24 h, 10 items, k 3)
	// and a purchase threshold of 1.
	f.bought("br_open", "o1", 10*time.Minute, "DE", "Berlin", "p1")
	f.bought("br_open", "o2", 20*time.Minute, "DE", "Berlin", "p1")
	f.bought("br_open", "o3", 30*time.Minute, "DE", "Berlin", "p2")
	f.bought("br_open", "o4", 40*time.Minute, "DE", "Munich", "p2")
	f.bought("br_open", "o5", 2*time.Minute, "DE", "Berlin", "p1")    // inside the delay
	f.bought("br_open", "o6", 25*time.Hour, "FR", "Paris", "p1")      // outside the window
	f.bought("br_open", "o7", 50*time.Minute, "FR", "Paris", "p3")    // the only order to France
	f.bought("br_open", "o8", 60*time.Minute, "", "", "p1", "p2")     // no place given
	f.bought("br_open", "o9", 70*time.Minute, "", "Hamburg", "p1")    // a city without a country
	f.bought("br_locked", "x1", 15*time.Minute, "DE", "Berlin", "p1") // another brand
	// The title and link a keyed view gives are shown; an anonymous view's
	// are provisional, and never shown (docs/security.md, Provenance).
	f.do("POST", viewPath, map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": "p1", "title": "Shoe", "url": "https://shop.example/p1"}},
		"X-svc-Api-Key", f.keys["br_open"])
	f.do("POST", viewPath, map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": "p3", "title": "Provisional", "url": "https://shop.example/p3"}})

	// Times are coarsened (docs/honesty.md): an order placed at a whole
	// minute shows as placed up to a minute later, so a minute less ago.
	want := []string{
		"p1 DE/Berlin 9", "p1 DE/Berlin 19", "p2 DE/Berlin 29", // three Berlin orders: k = 3
		"p2 DE 39",                      // one Munich order: the country alone, which four share
		"p3 - 49",                       // one French order: no place
		"p2 - 59", "p1 - 59", "p1 - 69", // no country: no place
	}
	if got := f.recent("brand_id=br_open"); !reflect.DeepEqual(got, want) {
		t.Fatalf("feed\n got %v\nwant %v", got, want)
	}
	r := f.do("GET", recentPath+"?brand_id=br_open", nil)
	for _, private := range []string{"o1", "sess-", "session", "order", "email", "name", "timestamp", "Hamburg", "Munich", "Paris", "br_open"} {
		if strings.Contains(string(r.body), private) {
			t.Fatalf("the feed shows %q: %s", private, r.body)
		}
	}
	if !strings.Contains(string(r.body), `{"product_id":"p1","title":"Shoe","url":"https://shop.example/p1"}`) ||
		!strings.Contains(string(r.body), `{"product_id":"p3","title":null,"url":null}`) {
		t.Fatalf("products: %s", r.body)
	}
	if got := f.recent("brand_id=br_open&product_id=p2"); !reflect.DeepEqual(got, []string{"p2 DE/Berlin 29", "p2 DE 39", "p2 - 59"}) {
		t.Fatalf("p2's feed %v: its places are counted over the brand's orders", got)
	}
	if got := f.recent("brand_id=br_open&product_id=never-seen"); len(got) != 0 {
		t.Fatalf("a product never seen: %v", got)
	}

	// The counts and the feed are rebuilt from the store after a restart.
	f.restart()
	if got := f.recent("brand_id=br_open"); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a restart\n got %v\nwant %v", got, want)
	}

	// The delay: o5 never shows before it is five minutes old, and shows
	// by the time it is seven: a minute after the delay from its
	// coarsened time, which is within the minute after it was placed.
	f.clock.Set(t0.Add(3 * time.Minute))
	if got := f.recent("brand_id=br_open"); got[0] != "p1 DE/Berlin 12" {
		t.Fatalf("o5 at 5:00: %v", got)
	}
	f.clock.Set(t0.Add(5 * time.Minute))
	if got := f.recent("brand_id=br_open"); got[0] != "p1 DE/Berlin 6" || len(got) != 9 {
		t.Fatalf("o5 at 7:00: %v", got)
	}

	// The window: a day after o1 nothing older is shown, and places
	// follow what is left (two Berlin orders are fewer than k).
	f.clock.Set(t0.Add(24*time.Hour - 10*time.Minute))
	if got := f.recent("brand_id=br_open"); !reflect.DeepEqual(got, []string{"p1 - 1431"}) {
		t.Fatalf("a day later: %v", got)
	}
	f.clock.Set(t0.Add(24*time.Hour - 2*time.Minute))
	if got := f.recent("brand_id=br_open"); len(got) != 0 {
		t.Fatalf("o5 leaves the window a day after it: %v", got)
	}
}

func TestRecentActivityBrandRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	b := &svc.Brand{ID: "br_rules", Name: "Rules", Domains: []string{"rules.example"}, MinViewers: 3, MinPurchases: 2, CreatedAt: t0,
		Recent: svc.RecentSettings{Delay: time.Minute, Window: 2 * time.Hour, MaxItems: 2, K: 2}}
	secret, k := svc.NewAPIKey(b.ID, t0)
	if err := f.store.CreateBrand(ctx, b, k); err != nil {
		t.Fatal(err)
	}
	f.keys[b.ID] = secret
	f.restart()
	f.bought("br_rules", "o1", 3*time.Minute, "DE", "Köln", "p1")
	f.bought("br_rules", "o2", 4*time.Minute, "DE", "Köln", "p1")
	f.bought("br_rules", "o3", 5*time.Minute, "AT", "Wien", "p2") // p2 has one order: below the threshold of 2
	f.bought("br_rules", "o4", 6*time.Minute, "DE", "Bonn", "p1")
	f.bought("br_rules", "o5", 2*time.Minute, "DE", "Köln", "p1") // inside the one-minute delay, coarsened
	f.bought("br_rules", "o6", 2*time.Hour, "DE", "Köln", "p1")   // at the edge of the window: out
	// Two items at most; Köln has k = 2 orders, Bonn one, Germany three.
	if got := f.recent("brand_id=br_rules"); !reflect.DeepEqual(got, []string{"p1 DE/Köln 2", "p1 DE/Köln 3"}) {
		t.Fatalf("feed %v", got)
	}
	if got := f.recent("brand_id=br_rules&product_id=p2"); len(got) != 0 {
		t.Fatalf("a product below the purchase threshold is never shown: %v", got)
	}
	// Anonymous orders from a bot are never stored, so never shown.
	body := purchase("br_rules", "bot-1", "p2", 1)
	r := f.do("POST", purchasePath, body, "Origin", "https://rules.example", "User-Agent", "Googlebot/2.1 (+http://www.google.com/bot.html)")
	if m := r.json(t); m["reason"] != "bot" {
		t.Fatalf("bot: %s", r.body)
	}
	if got := f.recent("brand_id=br_rules&product_id=p2"); len(got) != 0 {
		t.Fatalf("a bot's order counts: %v", got)
	}
}

func TestRecentActivityRequests(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name       string
		query      string
		headers    []string
		wantStatus int
		wantFields []string
	}{
		{"brand only", "brand_id=br_open", nil, 200, nil},
		{"brand and product", "brand_id=br_open&product_id=p1", nil, 200, nil},
		{"no brand", "product_id=p1", nil, 400, []string{"brand_id"}},
		{"empty brand and long product", "brand_id=&product_id=" + strings.Repeat("x", 129), nil, 400, []string{"brand_id", "product_id"}},
		{"brand twice", "brand_id=br_open&brand_id=br_locked", nil, 400, []string{"brand_id"}},
		{"unknown brand", "brand_id=br_nope", nil, 404, nil},
		{"require_key without key", "brand_id=br_locked", nil, 401, nil},
		{"require_key with key", "brand_id=br_locked", []string{"X-svc-Api-Key", "KEY:br_locked"}, 200, nil},
		{"foreign origin", "brand_id=br_open", []string{"Origin", "https://evil.example"}, 401, nil},
		{"brand origin", "brand_id=br_open", []string{"Origin", "https://shop.example"}, 200, nil},
		{"revoked key", "brand_id=br_open", []string{"X-svc-Api-Key", "REVOKED"}, 401, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do("GET", recentPath+"?"+tt.query, nil, f.headers(tt.headers)...)
			if r.status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.status, tt.wantStatus, r.body)
			}
			if r.status == 200 && string(r.body) != "{\"items\":[]}\n" {
				t.Fatalf("body %s", r.body)
			}
			if tt.wantFields != nil && !reflect.DeepEqual(r.fields(t), tt.wantFields) {
				t.Fatalf("fields %v, want %v: %s", r.fields(t), tt.wantFields, r.body)
			}
		})
	}
}

func TestPurchasePlaceValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	body := purchase("br_open", "o1", "p1", 1)
	body["context"] = map[string]any{"country": "de", "city": " "}
	r := f.do("POST", purchasePath, body)
	if r.status != 400 || !reflect.DeepEqual(r.fields(t), []string{"context.city", "context.country"}) {
		t.Fatalf("%d %s", r.status, r.body)
	}
	body["context"] = map[string]any{"country": "DE", "city": strings.Repeat("x", svc.MaxCityLen+1)}
	if r := f.do("POST", purchasePath, body); r.status != 400 || !reflect.DeepEqual(r.fields(t), []string{"context.city"}) {
		t.Fatalf("%d %s", r.status, r.body)
	}
	body["context"] = map[string]any{"country": "DE", "city": "Frankfurt\nam Main"}
	if r := f.do("POST", purchasePath, body); r.status != 400 || !reflect.DeepEqual(r.fields(t), []string{"context.city"}) {
		t.Fatalf("%d %s", r.status, r.body)
	}
	body["context"] = map[string]any{"country": "DE", "city": "Frankfurt am Main"}
	if r := f.do("POST", purchasePath, body); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

// A cancelled order disappears from the feed and from the counts; a
// refund of some units leaves the purchase; the places follow.
func TestCancelledOrderLeavesFeedAndCounts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	f.bought("br_open", "o1", 10*time.Minute, "DE", "Berlin", "p1")
	f.bought("br_open", "o2", 20*time.Minute, "DE", "Berlin", "p1", "p2")
	f.bought("br_open", "o3", 30*time.Minute, "DE", "Berlin", "p2")
	if got := f.recent("brand_id=br_open"); !reflect.DeepEqual(got, []string{"p1 DE/Berlin 9", "p2 DE/Berlin 19", "p1 DE/Berlin 19", "p2 DE/Berlin 29"}) {
		t.Fatalf("before: %v", got)
	}
	cancel := func(body map[string]any) {
		t.Helper()
		if r := f.do("POST", "/api/collect/order-cancel", body, key...); r.status != 200 {
			t.Fatalf("cancel %v: %d %s", body, r.status, r.body)
		}
	}
	// o2 bought one p1 and one p2; refunding p2 takes that product out.
	cancel(map[string]any{"brand_id": "br_open", "order_id": "o2", "items": []any{map[string]any{"product_id": "p2", "quantity": 1}}})
	if got := f.recent("brand_id=br_open"); !reflect.DeepEqual(got, []string{"p1 DE/Berlin 9", "p1 DE/Berlin 19", "p2 DE/Berlin 29"}) {
		t.Fatalf("after refunding o2's p2: %v", got)
	}
	if c := f.counts("br_open", "p2"); c[2] != 1 {
		t.Fatalf("p2's purchases after the refund: %v", c)
	}
	// The whole of o1: three Berlin orders become two, fewer than k.
	cancel(map[string]any{"brand_id": "br_open", "order_id": "o1"})
	want := []string{"p1 - 19", "p2 - 29"}
	if got := f.recent("brand_id=br_open"); !reflect.DeepEqual(got, want) {
		t.Fatalf("after cancelling o1: %v", got)
	}
	if c := f.counts("br_open", "p1"); c[2] != 1 || c[3] != 1 {
		t.Fatalf("p1's purchases and units after cancelling o1: %v", c)
	}
	// The store agrees: after a restart the feed is rebuilt the same.
	f.restart()
	if got := f.recent("brand_id=br_open"); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a restart: %v", got)
	}
	if c := f.counts("br_open", "p1"); c[2] != 1 {
		t.Fatalf("p1 after a restart: %v", c)
	}
}
