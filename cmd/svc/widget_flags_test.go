package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/testwait"
)

// The widget's corner and languages set by `svc brands add` or `svc brands
// set` reach the widget through the proof answer; bad values name the flag.
func TestBrandsWidgetFlags(t *testing.T) {
	dir := t.TempDir()
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
