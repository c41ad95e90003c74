package main

import (
	"context"
	"fmt"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/tracker"
)

// Demo brand and product, created by serve --demo.
const (
	demoBrandID   = "br_demo"
	demoProductID = "demo-sneaker"
)

// setupDemo creates the demo brand (once per data folder) and product, and a
// fresh key for this run (revoking the earlier runs' keys), and prints
// ready-to-paste commands.
func setupDemo(ctx context.Context, env environment, store svc.Store, t *tracker.Tracker, base string) error {
	if _, err := store.Brand(ctx, demoBrandID); svc.ErrorCode(err) == svc.ENOTFOUND {
		b := &svc.Brand{ID: demoBrandID, Name: "Demo Shop", Domains: []string{"localhost", "127.0.0.1"}, CreatedAt: time.Now().UTC()}
		if err := store.CreateBrand(ctx, b, nil); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	keys, err := store.APIKeys(ctx)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.BrandID == demoBrandID && k.RevokedAt == nil {
			if _, err := store.RevokeAPIKey(ctx, demoBrandID, k.Prefix, time.Now()); err != nil {
				return err
			}
		}
	}
	secret, key := svc.NewAPIKey(demoBrandID, time.Now())
	if err := store.CreateAPIKey(ctx, key); err != nil {
		return err
	}
	if err := t.RefreshAuth(ctx); err != nil {
		return err
	}
	title, url := "Trail Runner 2 – demo sneaker", base+"/demo"
	if _, err := t.EnsureProduct(ctx, &svc.Product{BrandID: demoBrandID, ProductID: demoProductID, Title: &title, URL: &url}); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, `
Demo brand ready.
  brand_id:   %[2]s
  product_id: %[3]s
  api_key:    %[4]s   (a new one each run; the last run's is revoked)

Try it:
  curl -s -X POST %[1]s/api/collect/product-view -H 'Content-Type: application/json' \
    -d '{"brand_id":"%[2]s","product":{"product_id":"%[3]s"},"context":{"session_id":"s-1"}}'
  curl -s -X POST %[1]s/api/collect/product-purchase -H 'Content-Type: application/json' -H 'X-svc-Api-Key: %[4]s' \
    -d '{"brand_id":"%[2]s","order":{"order_id":"o-1","currency":"EUR","total_value":89.9,"items":[{"product_id":"%[3]s","quantity":1,"unit_price":89.9}]}}'
  curl -s '%[1]s/api/svc/product-proof?brand_id=%[2]s&product_id=%[3]s'
`, base, demoBrandID, demoProductID, secret)
	return nil
}
