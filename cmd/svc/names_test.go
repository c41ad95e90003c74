package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// TestOneProductManyNames is the storefront's story on both stores: the
// page counts a view under the platform's product id, with its variant's
// SKU as an alias; the signed webhook orders another variant; the proof by
// the product id, the ordered variant's id or its SKU counts the order.
// Then Shopify's order export: its paid orders, less refunds, map onto the
// same product by the line's name, its SKU becomes a name, and the product
// keeps its title. The operator lists the names, and merges a product the
// page made under an old id.
func TestOneProductManyNames(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			flags := []string{"--data", sqlitetest.Dir(t)}
			if store == "postgres" {
				flags = []string{"--store", pgtest.URL(t)}
			} else if err := os.MkdirAll(flags[1], 0o755); err != nil {
				t.Fatal(err)
			}
			srv := startServer(t, append([]string{"--rate-limit", "0"}, flags...)...)
			admin := func(args ...string) string { t.Helper(); return runCmd(t, append(args, flags...)...) }
			var b brandJSON
			if err := json.Unmarshal([]byte(admin("brands", "add", "--name", "Forest", "--domain", "shop.example", "--json")), &b); err != nil {
				t.Fatal(err)
			}
			const secret = "shpss_0123456789abcdef"
			admin("brands", "set", "--brand", b.BrandID, "--shopify-secret", secret)

			// The page: an anonymous view under the platform's product id.
			page := map[string]any{"brand_id": b.BrandID, "product": map[string]any{"product_id": "8123456789012",
				"aliases": []string{"FHB-42", "44000000000042", "https://shop.example/products/forest-hiker-boot"}}}
			testwait.Eventually(t, func() error { // the server learns of the brand within a second
				code, m, err := post(srv.url+"/api/collect/product-view", "", "", page)
				if err == nil && code != 200 {
					err = fmt.Errorf("the page's view: %d %v", code, m)
				}
				return err
			})
			// The webhook: an order of another variant.
			order := []byte(`{"id":5801234567890,"currency":"EUR","total_price":"240.00","created_at":"` + time.Now().UTC().Format(time.RFC3339) + `",
				"line_items":[{"id":13001,"product_id":8123456789012,"variant_id":44000000000043,"sku":"FHB-43","title":"Forest Hiker Boot",
				"variant_title":"EU 43","name":"Forest Hiker Boot - EU 43","quantity":2,"price":"120.00"}]}`)
			testwait.Eventually(t, func() error { return shopifyHook(srv.url, b.BrandID, secret, "orders/create", order) })
			counts := func(product string, purchases, units, views int) error {
				m, err := proofWithin(srv.url, b.BrandID, product)
				if err != nil {
					return err
				}
				if p, u, v := int(m["purchases"].(float64)), int(m["units"].(float64)), int(m["views"].(float64)); p != purchases || u != units || v != views {
					return fmt.Errorf("proof by %s: %d purchases, %d units, %d views; want %d, %d, %d", product, p, u, v, purchases, units, views)
				}
				return nil
			}
			for _, name := range []string{"8123456789012", "FHB-43", "44000000000043"} {
				testwait.Eventually(t, func() error { return counts(name, 1, 2, 1) })
			}
			// The page's SKU was only an anonymous alias: it names nothing.
			if code := proofStatus(srv.url, b.BrandID, "FHB-42"); code != 404 {
				t.Fatalf("the proof by an alias only a browser gave: %d, want 404", code)
			}
			// An older page that sends the ordered variant's SKU as its id counts the product.
			if code, _, err := post(srv.url+"/api/collect/product-view", "", "", viewBody(b.BrandID, "FHB-43")); err != nil || code != 200 {
				t.Fatalf("a view by the SKU: %d %v", code, err)
			}
			testwait.Eventually(t, func() error { return counts("8123456789012", 1, 2, 2) })

			// Shopify's export: paid, partially paid, partly refunded count;
			// pending, refunded, voided and cancelled orders do not.
			file := writeOrderExport(t, [][]string{
				{"#1001", "paid", "240.00", "", "", "2", "Forest Hiker Boot - EU 42", "120.00", "FHB-42", "6001"},
				{"#1002", "pending", "120.00", "", "", "1", "Forest Hiker Boot - EU 42", "120.00", "FHB-42", "6002"},
				{"#1003", "partially_refunded", "360.00", "120.00", "", "3", "Forest Hiker Boot - EU 44", "120.00", "FHB-44", "6003"},
				{"#1004", "refunded", "120.00", "120.00", "", "1", "Forest Hiker Boot - EU 42", "120.00", "FHB-42", "6004"},
				{"#1005", "voided", "120.00", "", "", "1", "Forest Hiker Boot - EU 42", "120.00", "FHB-42", "6005"},
				{"#1006", "paid", "120.00", "", "yes", "1", "Forest Hiker Boot - EU 42", "120.00", "FHB-42", "6006"},
				{"#1007", "partially_paid", "120.00", "", "", "1", "Forest Hiker Boot - EU 45", "120.00", "FHB-45", "6007"},
			})
			out := admin("import", "--brand", b.BrandID, "--file", file)
			if s := importSummaryOf(t, out); s["imported"] != 3 || s["nothing to count"] != 4 {
				t.Fatalf("import summary %v:\n%s", s, out)
			}
			// 1 webhook order + 3 imported; 2 + 2 + (3 - 1 refunded) + 1 units.
			for _, name := range []string{"FHB-42", "FHB-44", "8123456789012", "44000000000043"} {
				testwait.Eventually(t, func() error { return counts(name, 4, 7, 2) })
			}
			var listed struct {
				ProductID string   `json:"product_id"`
				Title     string   `json:"title"`
				Names     []string `json:"names"`
			}
			if err := json.Unmarshal([]byte(admin("products", "names", "--brand", b.BrandID, "--product", "FHB-45", "--json")), &listed); err != nil {
				t.Fatal(err)
			}
			if listed.ProductID != "8123456789012" || listed.Title != "Forest Hiker Boot" || !sameSet(listed.Names, []string{"44000000000043", "FHB-43", "FHB-42", "FHB-44", "FHB-45"}) {
				t.Fatalf("products names: %+v", listed)
			}

			// A product the page made under another id: merged, the
			// server recounts, and its id names the product.
			if code, _, err := post(srv.url+"/api/collect/product-view", "", "", viewBody(b.BrandID, "forest-hiker-boot")); err != nil || code != 200 {
				t.Fatalf("a view under an old id: %d %v", code, err)
			}
			testwait.Eventually(t, func() error { return counts("forest-hiker-boot", 0, 0, 1) })
			merged := admin("products", "merge", "--brand", b.BrandID, "--into", "FHB-42", "--from", "forest-hiker-boot")
			if !strings.Contains(merged, "merged product forest-hiker-boot into 8123456789012") {
				t.Fatalf("products merge: %s", merged)
			}
			for _, name := range []string{"forest-hiker-boot", "8123456789012"} {
				testwait.Eventually(t, func() error { return counts(name, 4, 7, 3) })
			}
		})
	}
}

func shopifyHook(base, brand, secret, topic string, body []byte) error {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	req, _ := http.NewRequest("POST", base+"/api/connect/shopify/"+brand, bytes.NewReader(body))
	req.Header.Set("X-Shopify-Topic", topic)
	req.Header.Set("X-Shopify-Hmac-Sha256", base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	req.Header.Set("X-Shopify-Webhook-Id", fmt.Sprintf("wh-%x", sha256.Sum256(body)))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	return status("the webhook", res.StatusCode, 200)
}

// proofWithin reads the proof over 30 days of purchases.
func proofWithin(base, brand, product string) (map[string]any, error) {
	res, err := http.Get(fmt.Sprintf("%s/api/svc/product-proof?brand_id=%s&product_id=%s&window_purchases=720", base, brand, product))
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil || res.StatusCode != 200 {
		return nil, fmt.Errorf("proof by %s: %d %v %v", product, res.StatusCode, m, err)
	}
	return m, nil
}

func proofStatus(base, brand, product string) int {
	res, err := http.Get(fmt.Sprintf("%s/api/svc/product-proof?brand_id=%s&product_id=%s", base, brand, product))
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

// writeExport writes orders of one line each in Shopify's order export, as
// Orders > Export writes it (shopifyHeader): Name, Financial Status,
// Total, Refunded Amount, Cancelled at (any text: cancelled), Lineitem
// quantity, Lineitem name, Lineitem price, Lineitem sku, Id.
func writeOrderExport(t *testing.T, orders [][]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "orders_export_1.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	idx := map[string]int{}
	for i, c := range shopifyHeader {
		idx[c] = i
	}
	_ = w.Write(shopifyHeader)
	at := time.Now().Add(-time.Hour).In(time.FixedZone("EST", -5*3600)).Format("2006-01-02 15:04:05 -0700")
	for _, o := range orders {
		row := make([]string, len(shopifyHeader))
		row[idx["Name"]], row[idx["Financial Status"]], row[idx["Total"]], row[idx["Refunded Amount"]] = o[0], o[1], o[2], o[3]
		if o[4] != "" {
			row[idx["Cancelled at"]] = at
		}
		row[idx["Lineitem quantity"]], row[idx["Lineitem name"]], row[idx["Lineitem price"]], row[idx["Lineitem sku"]], row[idx["Id"]] = o[5], o[6], o[7], o[8], o[9]
		row[idx["Created at"]], row[idx["Paid at"]], row[idx["Currency"]] = at, at, "EUR"
		row[idx["Vendor"]], row[idx["Lineitem requires shipping"]], row[idx["Lineitem taxable"]] = "Forest", "true", "true"
		_ = w.Write(row)
	}
	w.Flush()
	if err := errorsJoin(w.Error(), f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
