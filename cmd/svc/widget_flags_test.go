package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// The widget's corner and languages set by `svc brands add` or `svc brands
// set` reach the widget through the proof answer; bad values name the flag.
func TestBrandsWidgetFlags(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	b := addBrand(t, dir, "--domain", "shop.example", "--widget-position", "end", "--languages", "de,en")
	testwait.Eventually(t, func() error {
		st, _, err := post(s.url+"/api/collect/product-view", b.APIKey, "", viewBody(b.BrandID, "p1"))
		if err != nil {
			return err
		}
		return status("view", st, 200)
	})
	widget := func() map[string]any { return proof(t, s.url, b.BrandID, "p1")["widget"].(map[string]any) }
	if w := widget(); w["position"] != "end" || !reflect.DeepEqual(w["languages"], []any{"de", "en"}) {
		t.Fatalf("proof widget %v after brands add --widget-position end --languages de,en", w)
	}
	var out struct {
		Position  string   `json:"widget_position"`
		Languages []string `json:"languages"`
	}
	if err := json.Unmarshal([]byte(runCmd(t, "brands", "set", "--data", dir, "--brand", b.BrandID, "--widget-position", "start", "--languages", "", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	if out.Position != "start" || !reflect.DeepEqual(out.Languages, []string{"en", "de", "fr", "es"}) {
		t.Fatalf("brands set --widget-position start --languages '': %+v", out)
	}
	testwait.Eventually(t, func() error {
		if w := widget(); w["position"] != "start" || !reflect.DeepEqual(w["languages"], []any{"en", "de", "fr", "es"}) {
			return fmt.Errorf("proof widget %v, want start and every language", w)
		}
		return nil
	})
	for _, bad := range [][]string{{"--widget-position", "left"}, {"--languages", "en,nl"}, {"--languages", "en,en"}} {
		err := run(context.Background(), append([]string{"brands", "set", "--data", dir, "--brand", b.BrandID}, bad...), noEnv, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), bad[0]+" must be") {
			t.Errorf("brands set %v: err %v, want one naming %s", bad, err, bad[0])
		}
	}
}

// The widget's parts, font and carts threshold, set by `svc brands set`,
// reach the proof; bad values name the flag.
func TestBrandsWidgetLookFlags(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	s := startServer(t, "--data", dir)
	b := addBrand(t, dir, "--domain", "shop.example")
	var out struct {
		Variant  string `json:"widget_variant"`
		Font     string `json:"widget_font"`
		MinCarts int    `json:"min_carts"`
	}
	if err := json.Unmarshal([]byte(runCmd(t, "brands", "set", "--data", dir, "--brand", b.BrandID,
		"--widget-variant", "now inline carts", "--widget-font", "inherit", "--min-carts", "5", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	if out.Variant != "now inline carts" || out.Font != "inherit" || out.MinCarts != 5 {
		t.Fatalf("brands set: %+v", out)
	}
	testwait.Eventually(t, func() error {
		st, _, err := post(s.url+"/api/collect/product-view", b.APIKey, "", viewBody(b.BrandID, "p1"))
		if err != nil {
			return err
		}
		if err := status("view", st, 200); err != nil {
			return err
		}
		p := proof(t, s.url, b.BrandID, "p1")
		w, th := p["widget"].(map[string]any), p["thresholds"].(map[string]any)
		if w["variant"] != "now inline carts" || w["font"] != "inherit" || th["carts"] != 5.0 {
			return fmt.Errorf("proof widget %v, thresholds %v", w, th)
		}
		return nil
	})
	for _, bad := range [][]string{{"--widget-font", "serif"}, {"--min-carts", "-1"}, {"--widget-variant", "inline banner"}} {
		err := run(context.Background(), append([]string{"brands", "set", "--data", dir, "--brand", b.BrandID}, bad...), noEnv, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), bad[0]+" must be") {
			t.Errorf("brands set %v: err %v, want one naming %s", bad, err, bad[0])
		}
	}
}
