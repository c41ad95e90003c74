package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// The feed's privacy rules set by `svc brands set` reach a running
// server's recent purchases within a second.
func TestBrandsSetRecentRules(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	b := addBrand(t, dir, "--domain", "shop.example", "--recent-k", "2")
	at := time.Now().Add(-10 * time.Minute).UTC().Format(time.RFC3339)
	for i, city := range []string{"Berlin", "Berlin"} {
		body := map[string]any{"brand_id": b.BrandID, "order": map[string]any{"order_id": fmt.Sprint("o", i),
			"items": []any{map[string]any{"product_id": "p1", "quantity": 1}}},
			"context": map[string]any{"timestamp": at, "country": "DE", "city": city}}
		testwait.Eventually(t, func() error {
			st, _, err := post(s.url+"/api/collect/product-purchase", b.APIKey, "", body)
			if err != nil {
				return err
			}
			return status("purchase", st, 200)
		})
	}
	feed := func() string {
		res, err := http.Get(s.url + "/api/svc/recent-activity?brand_id=" + b.BrandID)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return string(body)
	}
	if got := feed(); strings.Count(got, `"city":"Berlin"`) != 2 {
		t.Fatalf("two Berlin orders with k 2: %s", got)
	}
	var out struct {
		Recent map[string]int `json:"recent"`
	}
	if err := json.Unmarshal([]byte(runCmd(t, "brands", "set", "--data", dir, "--brand", b.BrandID, "--recent-k", "3", "--recent-delay", "11m", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	if r := out.Recent; r["k"] != 3 || r["delay_minutes"] != 11 || r["window_minutes"] != 1440 || r["max_items"] != 10 {
		t.Fatalf("brands set --json: %v", out.Recent)
	}
	testwait.Eventually(t, func() error {
		if got := feed(); got != "{\"items\":[]}\n" {
			return fmt.Errorf("with a delay of 11 minutes the feed shows %s", got)
		}
		return nil
	})
	runCmd(t, "brands", "set", "--data", dir, "--brand", b.BrandID, "--recent-delay", "1m")
	testwait.Eventually(t, func() error {
		if got := feed(); strings.Count(got, `"place":{"country":"DE"}`) != 0 || strings.Count(got, `"place":null`) != 2 {
			return fmt.Errorf("two orders under k 3 have no place: %s", got)
		}
		return nil
	})
}

func TestBrandsRecentRulesErrors(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"brands", "set", "--brand", b.BrandID, "--recent-k", "1"}, "--recent-k must be from 2 to 1000"},
		{[]string{"brands", "set", "--brand", b.BrandID, "--recent-window", "169h"}, "--recent-window must be whole minutes from 1h to 168h"},
		{[]string{"brands", "set", "--brand", b.BrandID, "--recent-window", "2h", "--recent-delay", "2h"}, "--recent-delay must be shorter than the window"},
		{[]string{"brands", "set", "--brand", b.BrandID, "--recent-delay", "30s"}, "--recent-delay must be whole minutes from 1m"},
		{[]string{"brands", "set", "--brand", b.BrandID, "--recent-max", "51"}, "--recent-max must be from 1 to 50"},
		{[]string{"brands", "add", "--name", "X", "--recent-max", "0"}, "--recent-max must be from 1 to 50"},
	} {
		args := append(tc.args[:2:2], append([]string{"--data", dir}, tc.args[2:]...)...)
		err := run(context.Background(), args, noEnv, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
}
