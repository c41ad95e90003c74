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

// The attacks of issue 31 ("What got through", 1, 2, 3 and 14), each
// against a real server: what an anonymous event may say
// (docs/security.md, Provenance), and what the recent purchases feed tells
// (docs/honesty.md).

// offersOf asks product-enrich about a page and returns its offers by brand.
func (f *fixture) offersOf(page map[string]any) map[string]map[string]any {
	f.t.Helper()
	got := decode[map[string]any](f.t, f.do("POST", productPath, page))
	offers, _ := got["offers"].([]any)
	out := map[string]map[string]any{}
	for _, o := range offers {
		o := o.(map[string]any)
		out[o["brand_id"].(string)] = o
	}
	return out
}

// Attack 1, first half: an anonymous view to any open brand gives one of
// its products the title and SKU of another brand's product and a
// phishing URL; product-enrich on the real product's page must not offer
// it, by SKU, GTIN or title.
func TestAnonymousViewMakesNoOffer(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	page := map[string]any{
		"context": map[string]any{"url": "https://www.alpha.example/p/wh1000xm5-black"},
		"product": map[string]any{"title": "Sony WH-1000XM5 Wireless Headphones Black", "sku": "SONY-WH1000XM5-B", "gtin": "4548736132610"},
	}
	if o := f.offersOf(page)["br_beta"]; o == nil || o["method"] != "sku" {
		t.Fatalf("the keyed offer at beta by SKU: %v", o)
	}
	for i, url := range []string{"https://evil.example/login", "https://shop.example/login"} {
		body := map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": fmt.Sprint("fake-", i),
			"title": "Sony WH-1000XM5 Wireless Headphones Black", "sku": "SONY-WH1000XM5-B", "gtin": "4548736132610", "url": url}}
		if r := f.do("POST", viewPath, body); r.status != 200 {
			t.Fatalf("anonymous view: %d %s", r.status, r.body)
		}
	}
	offers := f.offersOf(page)
	if o := offers["br_open"]; o != nil {
		t.Fatalf("an anonymous view's product is offered: %v", o)
	}
	search := f.do("POST", searchPath, map[string]any{"results": []any{map[string]any{"url": "https://shop.example/x", "title": "Sony WH-1000XM5 Wireless Headphones Black"}}})
	if strings.Contains(string(search.body), "fake-") || strings.Contains(string(search.body), "evil.example") {
		t.Fatalf("search enrichment shows the anonymous product: %s", search.body)
	}
	// The brand's own keyed view verifies the title and SKU: offered then,
	// with no link, since no keyed event gave one.
	keyed := map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": "fake-1",
		"title": "Sony WH-1000XM5 Wireless Headphones Black", "sku": "SONY-WH1000XM5-B"}}
	if r := f.do("POST", viewPath, keyed, "X-svc-Api-Key", f.keys["br_open"]); r.status != 200 {
		t.Fatalf("keyed view: %d %s", r.status, r.body)
	}
	if o := f.offersOf(page)["br_open"]; o == nil || o["product_id"] != "fake-1" || o["url"] != nil {
		t.Fatalf("the verified product, without its provisional link: %v", o)
	}
}

// Attack 1, second half: an anonymous view renames a product a Shopify
// webhook created, with a phishing URL; the feed and the dashboard then
// showed it.
func TestAnonymousViewCannotRenameWebhookProduct(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	withSecrets(t, f)
	r := f.shopify("br_open", "orders/create", "hook-1", fixtureFile(t, "shopify-order.json"), shopifySecret)
	wantStatus(t, r, 200, svc.StatusAccepted)
	for _, url := range []string{"https://evil.example/login", "https://shop.example/login"} {
		body := map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": shopifyOrder,
			"title": "Hijacked title", "sku": "HIJACK", "url": url}}
		if r := f.do("POST", viewPath, body, "Origin", "https://shop.example"); r.status != 200 {
			t.Fatalf("anonymous view: %d %s", r.status, r.body)
		}
	}
	var stored *svc.Product
	if err := f.store.Products(context.Background(), func(p *svc.Product) error {
		if p.ProductID == shopifyOrder {
			stored = p
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if stored == nil || *stored.Title != "IPod Nano - 8GB" || *stored.SKU == "HIJACK" || stored.URL == nil || *stored.URL != "https://shop.example/login" ||
		stored.Verified&svc.AttrURL != 0 {
		t.Fatalf("stored product %+v: the webhook's title and SKU, a provisional link on the brand's domain", stored)
	}
	// The feed, 10 minutes on: the webhook's title, no link.
	f.clock.Set(t0.Add(10 * time.Minute))
	feed := f.do("GET", recentPath+"?brand_id=br_open", nil)
	if !strings.Contains(string(feed.body), `{"product_id":"632910392","title":"IPod Nano - 8GB","url":null}`) {
		t.Fatalf("feed: %s", feed.body)
	}
	// The dashboard reads the product's title from the store's export.
	err := f.store.ExportEvents(context.Background(), "br_open", func(e svc.ExportedEvent) error {
		if b, _ := json.Marshal(e); strings.Contains(string(b), "Hijacked") || strings.Contains(string(b), "evil.example") {
			t.Errorf("exported: %s", b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// After a restart, the counts and the index come from the store.
	f.restart()
	feed = f.do("GET", recentPath+"?brand_id=br_open", nil)
	if !strings.Contains(string(feed.body), `"title":"IPod Nano - 8GB","url":null`) {
		t.Fatalf("feed after a restart: %s", feed.body)
	}
}

// A product URL is stored only on its brand's domains, from any source:
// the event counts without it; and a link is shown only while its domain
// is the brand's.
func TestProductURLOnBrandDomains(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	withURL := func(product, url string) map[string]any {
		return map[string]any{"brand_id": "br_open", "product": map[string]any{"product_id": product, "title": "Shoe", "url": url}}
	}
	for _, url := range []string{"https://evil.example/login", "https://shop.example.evil.example/p1", "https://user@shop.example.evil/p1", "https://notshop.example/p1"} {
		if r := f.do("POST", viewPath, withURL("p1", url), key...); r.status != 200 {
			t.Fatalf("keyed, %s: %d %s", url, r.status, r.body)
		}
	}
	if c := f.counts("br_open", "p1"); c[0] != 4 {
		t.Fatalf("keyed views with foreign links count: %v", c)
	}
	batch := map[string]any{"events": []any{
		map[string]any{"type": "product-view", "brand_id": "br_open", "product": map[string]any{"product_id": "p2", "url": "https://evil.example/"}},
		map[string]any{"type": "product-view", "brand_id": "br_open", "product": map[string]any{"product_id": "p2", "url": "https://www.shop.example/p2"}},
	}}
	r := f.do("POST", batchPath, batch, key...)
	var results struct {
		Results []struct {
			Status string `json:"status"`
		} `json:"results"`
	}
	if err := json.Unmarshal(r.body, &results); err != nil || len(results.Results) != 2 || results.Results[0].Status != "accepted" || results.Results[1].Status != "accepted" {
		t.Fatalf("batch: %d %s", r.status, r.body)
	}
	// Anonymous: counted, the link dropped.
	if r := f.do("POST", viewPath, withURL("p3", "https://evil.example/login")); r.status != 200 {
		t.Fatalf("anonymous, foreign url: %d %s", r.status, r.body)
	}
	if c := f.counts("br_open", "p3"); c[0] != 1 {
		t.Fatalf("the anonymous view counts: %v", c)
	}
	urls := map[string]string{}
	_ = f.store.Products(context.Background(), func(p *svc.Product) error {
		if p.URL != nil {
			urls[p.ProductID] = *p.URL
		}
		return nil
	})
	if !reflect.DeepEqual(urls, map[string]string{"p2": "https://www.shop.example/p2"}) {
		t.Fatalf("stored urls %v", urls)
	}

	// A keyed link, then the brand leaves the domain: the feed drops it.
	if r := f.do("POST", viewPath, withURL("p4", "https://shop.example/p4"), key...); r.status != 200 {
		t.Fatalf("keyed view: %d %s", r.status, r.body)
	}
	f.bought("br_open", "o1", 10*time.Minute, "", "", "p4")
	if feed := f.do("GET", recentPath+"?brand_id=br_open", nil); !strings.Contains(string(feed.body), `"url":"https://shop.example/p4"`) {
		t.Fatalf("feed: %s", feed.body)
	}
	ctx := context.Background()
	b, err := f.store.Brand(ctx, "br_open")
	if err != nil {
		t.Fatal(err)
	}
	b.Domains = []string{"newshop.example"}
	if err := f.store.UpdateBrand(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := f.auth.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if feed := f.do("GET", recentPath+"?brand_id=br_open", nil); !strings.Contains(string(feed.body), `{"product_id":"p4","title":"Shoe","url":null}`) {
		t.Fatalf("feed after the domain changed: %s", feed.body)
	}
}

// Attack 2: three anonymous purchases with the brand's Origin, a spam
// title and city, and a timestamp 299 s in the past appeared in the feed
// within seconds. They count, at the time they came, and never show.
func TestAnonymousPurchasesNeverInFeed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i := range 3 {
		body := purchase("br_open", fmt.Sprint("spam-", i), "spam", 1)
		body["order"].(map[string]any)["items"].([]any)[0].(map[string]any)["title"] = "Visit evil.example for 90% off"
		body["context"] = map[string]any{"timestamp": t0.Add(-299 * time.Second).Format(time.RFC3339), "country": "DE", "city": "Call +49 555 scam"}
		if r := f.do("POST", purchasePath, body, "Origin", "https://shop.example"); r.status != 200 {
			t.Fatalf("anonymous purchase: %d %s", r.status, r.body)
		}
	}
	if c := f.counts("br_open", "spam"); c[2] != 3 {
		t.Fatalf("anonymous purchases count: %v", c)
	}
	for _, at := range []time.Duration{time.Second, 5 * time.Minute, 10 * time.Minute, time.Hour} {
		f.clock.Set(t0.Add(at))
		if got := f.recent("brand_id=br_open"); len(got) != 0 {
			t.Fatalf("at +%s the feed shows anonymous orders: %v", at, got)
		}
	}
	n := 0
	err := f.store.ExportEvents(context.Background(), "br_open", func(e svc.ExportedEvent) error {
		p := e.Purchase
		if p == nil {
			return nil
		}
		n++
		if p.Context.City != nil || !p.Meta.Time.Equal(t0) || p.Meta.GivenTime == nil || !p.Meta.GivenTime.Equal(t0.Add(-299*time.Second)) {
			t.Errorf("stored: city %v, counted at %s, given %v; want no city, the receive time, the given time beside", p.Context.City, p.Meta.Time, p.Meta.GivenTime)
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("%d orders exported: %v", n, err)
	}
	// And after a restart, which rebuilds the feed from the store.
	f.restart()
	if got := f.recent("brand_id=br_open"); len(got) != 0 {
		t.Fatalf("after a restart: %v", got)
	}
}

// Attack 3: a keyed order from "Kleinstadt" had its city withheld; two
// anonymous orders naming it raised the count to k, and the real order's
// city appeared.
func TestAnonymousOrdersNeverCountTowardK(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.bought("br_open", "real", 10*time.Minute, "DE", "Kleinstadt", "p1")
	for i := range 2 {
		body := purchase("br_open", fmt.Sprint("guess-", i), "p2", 1)
		body["context"] = map[string]any{"timestamp": t0.Add(-9 * time.Minute).Format(time.RFC3339), "country": "DE", "city": "Kleinstadt"}
		if r := f.do("POST", purchasePath, body, "Origin", "https://shop.example"); r.status != 200 {
			t.Fatalf("anonymous purchase: %d %s", r.status, r.body)
		}
	}
	for _, at := range []time.Duration{0, 10 * time.Minute} {
		f.clock.Set(t0.Add(at))
		r := f.do("GET", recentPath+"?brand_id=br_open", nil)
		if strings.Contains(string(r.body), "Kleinstadt") || strings.Contains(string(r.body), `"country"`) {
			t.Fatalf("at +%s the real order's place shows: %s", at, r.body)
		}
	}
	f.restart()
	if r := f.do("GET", recentPath+"?brand_id=br_open", nil); strings.Contains(string(r.body), "Kleinstadt") {
		t.Fatalf("after a restart: %s", r.body)
	}
}

// Attack 14: polling the feed once a second gave each order's time to the
// second: it appeared 5 minutes after it, and minutes_ago stepped a whole
// number of minutes after it. Ten orders placed at different seconds of
// one minute: when each appears and when its minutes_ago steps must not
// follow its second, and neither comes before the delay nor lies by more
// than a minute.
func TestFeedTimesCoarsened(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	placed := map[string]time.Time{}
	for i := range 10 {
		p := fmt.Sprint("p", i)
		at := t0.Add(-2*time.Minute + time.Duration(1+i*5)*time.Second)
		placed[p] = at
		f.bought("br_open", "o"+p, t0.Sub(at), "", "", p)
	}
	appeared, stepped := map[string]time.Time{}, map[string]time.Time{}
	first := map[string]int{}
	for now := t0; now.Before(t0.Add(8 * time.Minute)); now = now.Add(time.Second) {
		f.clock.Set(now)
		for _, it := range f.recent("brand_id=br_open") {
			var p string
			var minutes int
			if _, err := fmt.Sscanf(it, "%s - %d", &p, &minutes); err != nil {
				t.Fatalf("item %q: %v", it, err)
			}
			if truth := int(now.Sub(placed[p]) / time.Minute); minutes < truth-1 || minutes > truth+1 {
				t.Fatalf("at %s, %s shows %d minutes ago; it was placed %d whole minutes ago", now.Format(time.TimeOnly), p, minutes, truth)
			}
			if _, ok := appeared[p]; !ok {
				appeared[p], first[p] = now, minutes
			} else if _, ok := stepped[p]; !ok && minutes != first[p] {
				stepped[p] = now
			}
		}
	}
	appear, step := map[time.Duration]bool{}, map[time.Duration]bool{}
	for p, at := range placed {
		a, ok := appeared[p]
		switch {
		case !ok:
			t.Fatalf("%s never appeared", p)
		case a.Before(at.Add(svc.DefaultRecentDelay)):
			t.Fatalf("%s appeared %s after it was placed, before the delay", p, a.Sub(at))
		case a.After(at.Add(svc.DefaultRecentDelay + 2*time.Minute)):
			t.Fatalf("%s appeared %s after it was placed", p, a.Sub(at))
		}
		appear[a.Sub(at)] = true
		step[stepped[p].Sub(at)] = true
	}
	// Exact times: every order appears 5:00 after it and steps at 6:00.
	// Coarsened: each its own.
	if len(appear) < 5 || len(step) < 5 {
		t.Fatalf("appearance %v and step %v after placing follow the orders' seconds", appear, step)
	}
}
