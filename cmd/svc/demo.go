package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/script"
	"github.com/svc-project/svc/internal/tracker"
)

// Demo brand and product, created by serve --demo.
const (
	demoBrandID   = "br_demo"
	demoProductID = "demo-sneaker"
)

// setupDemo creates the demo brand (once per data folder) and product, and a
// fresh key for this run (revoking the earlier runs' keys). It returns the
// demo page and the text to print: the ids, the key and commands to paste.
func setupDemo(ctx context.Context, store svc.Store, t *tracker.Tracker, brands *auth.Cache, base string) (http.Handler, string, error) {
	if _, err := store.Brand(ctx, demoBrandID); svc.ErrorCode(err) == svc.ENOTFOUND {
		// A demo shows one visitor their own visits, so its thresholds are 1:
		// still real counts, never invented ones.
		b := &svc.Brand{ID: demoBrandID, Name: "Demo Shop", Domains: []string{"localhost", "127.0.0.1"},
			MinViewers: 1, MinPurchases: 1, CreatedAt: time.Now().UTC()}
		if err := store.CreateBrand(ctx, b, nil); err != nil {
			return nil, "", err
		}
	} else if err != nil {
		return nil, "", err
	}
	keys, err := store.APIKeys(ctx)
	if err != nil {
		return nil, "", err
	}
	for _, k := range keys {
		if k.BrandID == demoBrandID && k.RevokedAt == nil {
			if _, err := store.RevokeAPIKey(ctx, demoBrandID, k.Prefix, time.Now()); err != nil {
				return nil, "", err
			}
		}
	}
	secret, key := svc.NewAPIKey(demoBrandID, time.Now())
	if err := store.CreateAPIKey(ctx, key); err != nil {
		return nil, "", err
	}
	if err := brands.Refresh(ctx); err != nil {
		return nil, "", err
	}
	p := script.DemoProduct{
		BrandID: demoBrandID, ProductID: demoProductID, SKU: "TR2-42", Title: "Trail Runner 2",
		Description: "A light trail shoe with a grippy sole. Demo product: the counts beside it are real.",
		Price:       89.90, Currency: "EUR", URL: base + "/demo",
	}
	if _, err := t.EnsureProduct(ctx, &svc.Product{BrandID: demoBrandID, ProductID: demoProductID, SKU: &p.SKU, Title: &p.Title, URL: &p.URL}); err != nil {
		return nil, "", err
	}
	page, err := script.DemoPage(p, script.Snippet(scriptURL(base), ScriptGlobal, demoBrandID))
	if err != nil {
		return nil, "", err
	}
	text := fmt.Sprintf(`
Demo brand ready.
  brand_id:   %[2]s
  product_id: %[3]s
  api_key:    %[4]s   (a new one each run; the last run's is revoked)

Open %[1]s/demo to see the widget count your own visits (each browser tab is a session).

Try the API:
  curl -s -X POST %[1]s/api/collect/product-view -H 'Content-Type: application/json' -H 'X-svc-Api-Key: %[4]s' \
    -d '{"brand_id":"%[2]s","product":{"product_id":"%[3]s"},"context":{"session_id":"s-1"}}'
  curl -s -X POST %[1]s/api/collect/product-purchase -H 'Content-Type: application/json' -H 'X-svc-Api-Key: %[4]s' \
    -d '{"brand_id":"%[2]s","order":{"order_id":"o-1","currency":"EUR","total_value":89.9,"items":[{"product_id":"%[3]s","quantity":1,"unit_price":89.9}]}}'
  curl -s '%[1]s/api/svc/product-proof?brand_id=%[2]s&product_id=%[3]s'
  curl -s -X POST %[1]s/api/svc/search-enrich -H 'Content-Type: application/json' \
    -d '{"query":"trail runner","results":[{"url":"%[1]s/demo?utm_source=search","price":89.9,"currency":"EUR"}],"user_context":{"locale":"en-GB"}}'
`, base, demoBrandID, demoProductID, secret)
	return page, text, nil
}
