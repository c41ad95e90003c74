package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// TestProvenanceOnBothStores replays the attacks of issue 31 on what an
// anonymous event may say (1, 2 and 3) against svc serve on each store,
// and reads the feed from a server that starts after them, so from the
// store: an anonymous view renames no product a keyed event named and
// lends it no link; anonymous purchases, one 299 s in the past, never
// reach the feed; anonymous orders naming a keyed order's city never make
// it shown (docs/security.md, Provenance).
func TestProvenanceOnBothStores(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var b brandJSON
			var start func() (stop func(), url string)
			if kind == "sqlite" {
				dir := sqlitetest.Dir(t)
				b = addBrand(t, dir, "--domain", "shop.example")
				start = func() (func(), string) {
					cmd, url := startProcess(t, "--data", dir)
					return func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }, url
				}
			} else {
				store := pgtest.URL(t)
				b = addBrand(t, "", "--store", store, "--domain", "shop.example")
				start = func() (func(), string) {
					_, url := startNode(t, store)
					return func() {}, url
				}
			}
			stop, url := start()
			now := time.Now().UTC()
			send := func(path, key string, body map[string]any) {
				t.Helper()
				if st, m, err := post(url+path, key, "", body); err != nil || st != 200 {
					t.Fatalf("%s %v: %d %v %v", path, body, st, m, err)
				}
			}
			product := func(title, sku, url string) map[string]any {
				return map[string]any{"brand_id": b.BrandID, "product": map[string]any{"product_id": "p1", "title": title, "sku": sku, "url": url}}
			}
			order := func(id, product, city string, ago time.Duration) map[string]any {
				body := purchaseBody(b.BrandID, id, product)
				body["context"] = map[string]any{"timestamp": now.Add(-ago).Format(time.RFC3339), "country": "DE", "city": city}
				return body
			}
			send("/api/collect/product-view", b.APIKey, product("Real shoe", "SKU-1", "https://shop.example/p1"))
			send("/api/collect/product-view", "", product("Hijacked title", "HIJACK", "https://evil.example/login"))
			send("/api/collect/product-purchase", b.APIKey, order("real", "p1", "Kleinstadt", 10*time.Minute))
			send("/api/collect/product-purchase", "", order("guess-1", "p1", "Kleinstadt", 9*time.Minute))
			send("/api/collect/product-purchase", "", order("guess-2", "p1", "Kleinstadt", 9*time.Minute))
			send("/api/collect/product-purchase", "", order("spam", "p2", "Call +49 555 scam", 299*time.Second))
			stop()

			_, url = start()
			res, err := http.Get(url + "/api/svc/recent-activity?brand_id=" + b.BrandID)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var feed struct {
				Items []struct {
					Product    map[string]any `json:"product"`
					Place      map[string]any `json:"place"`
					MinutesAgo int            `json:"minutes_ago"`
				} `json:"items"`
			}
			if err := json.Unmarshal(body, &feed); err != nil || len(feed.Items) != 1 {
				t.Fatalf("feed %s: want the keyed order alone (%v)", body, err)
			}
			it := feed.Items[0]
			if it.Product["title"] != "Real shoe" || it.Product["url"] != "https://shop.example/p1" || it.Place != nil ||
				it.MinutesAgo < 8 || it.MinutesAgo > 11 {
				t.Fatalf("feed %s: want p1 as the keyed view named it, no place (k 3, one keyed order), about 10 minutes ago", body)
			}
			for _, bad := range []string{"Hijacked", "evil.example", "Kleinstadt", "scam"} {
				if strings.Contains(string(body), bad) {
					t.Fatalf("feed shows %q: %s", bad, body)
				}
			}
		})
	}
}
