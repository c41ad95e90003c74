package svc_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

func TestAllowsOrigin(t *testing.T) {
	b := &svc.Brand{Domains: []string{"shop.example", "127.0.0.1"}}
	tests := []struct {
		origin string
		want   bool
	}{
		{"https://shop.example", true},
		{"http://shop.example:8080", true},
		{"https://www.shop.example", true},
		{"https://a.b.shop.example", true},
		{"https://SHOP.EXAMPLE", true},
		{"https://shop.example.", true},
		{"http://127.0.0.1:3000", true},
		{"https://notshop.example", false},
		{"https://shop.example.evil.test", false},
		{"https://example", false},
		{"null", false},
		{"", false},
		{"shop.example", false},
		// Only a web page of the brand's site counts (docs/security.md, What we tested and how).
		{"chrome-extension://shop.example", false},
		{"moz-extension://shop.example", false},
		{"ftp://shop.example", false},
		{"ws://shop.example", false},
		{"HTTPS://shop.example", true}, // url.Parse lowers the scheme
		{"https://evil@shop.example", false},
		{"https://shop.example/path", false},
		{"https://shop.example?", false},
	}
	for _, tt := range tests {
		if got := b.AllowsOrigin(tt.origin); got != tt.want {
			t.Errorf("AllowsOrigin(%q) = %v, want %v", tt.origin, got, tt.want)
		}
	}
	if (&svc.Brand{}).AllowsOrigin("https://shop.example") {
		t.Error("a brand without domains allows an origin")
	}
}

func TestNormalizeDomain(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"Shop.Example", "shop.example", true},
		{"shop.example.", "shop.example", true},
		{" localhost ", "localhost", true},
		{"127.0.0.1", "127.0.0.1", true},
		{"xn--bcher-kva.example", "xn--bcher-kva.example", true},
		{"https://shop.example", "", false},
		{"shop.example:8080", "", false},
		{"shop.example/path", "", false},
		{"-bad.example", "", false},
		{"a..b", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := svc.NormalizeDomain(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("NormalizeDomain(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNewAPIKey(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	a, ka := svc.NewAPIKey("br_1", now)
	b, _ := svc.NewAPIKey("br_1", now)
	if a == b || len(a) != 46 || !strings.HasPrefix(a, "sk_") || strings.Trim(a[3:], "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != "" {
		t.Fatalf("keys %q %q", a, b)
	}
	if ka.Prefix != a[:svc.KeyPrefixLen] || ka.Hash != svc.HashAPIKey(a) || ka.BrandID != "br_1" {
		t.Fatalf("key record %+v", ka)
	}
	if id := svc.NewBrandID(); len(id) != 15 || !strings.HasPrefix(id, "br_") || id == svc.NewBrandID() {
		t.Fatalf("brand id %q", id)
	}
}

func TestBrandValidate(t *testing.T) {
	b := &svc.Brand{Name: "  Acme ", Domains: []string{"Shop.Example.", "127.0.0.1"}, MinViewers: 3, MinPurchases: 1}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if b.Name != "Acme" || b.Domains[0] != "shop.example" || b.Domains[1] != "127.0.0.1" {
		t.Fatalf("not normalized: %+v", b)
	}
	bad := &svc.Brand{Name: " ", Domains: []string{"ok.example", "https://x.example/"}, MinViewers: 0, MinPurchases: -1,
		Widget: svc.WidgetSettings{Font: "Comic Sans", Accent: "#FFEE00", MinCarts: -2}}
	err := bad.Validate()
	var e *svc.Error
	if !errors.As(err, &e) || e.Code != svc.EINVALID {
		t.Fatalf("err %v, want EINVALID", err)
	}
	var got []string
	for _, f := range e.Fields {
		got = append(got, f.Field+" "+f.Message)
	}
	want := []string{"name is required", `domains[1] "https://x.example/" is not a host name such as shop.example`, "min_viewers must be at least 1", "min_purchases must be at least 1",
		`widget_font must be "inherit" (the page's font) or empty (svc's)`, "widget_accent must be dark enough to read on white: 1.2:1, at least 4.5:1", "min_carts must be at least 1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("fields\n%q\nwant\n%q", got, want)
	}
}

// An accent is a colour #rrggbb that keeps 4.5:1 on white: svc's own
// (5.9:1) passes, a light yellow does not (WCAG 2's contrast ratio).
func TestAccentContrast(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{{"#0b69a3", 5.9, true}, {"#000000", 21, true}, {"#ffffff", 1, true}, {"#767676", 4.5, true}, {"#c2185b", 5.9, true}, {"red", 0, false}, {"#12345", 0, false}, {"#gggggg", 0, false}} {
		got, ok := svc.AccentContrast(tt.in)
		if ok != tt.ok || math.Abs(got-tt.want) > 0.05 {
			t.Errorf("%s: %.2f, %t; want %.1f, %t", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	b := &svc.Brand{Name: "A", MinViewers: 1, MinPurchases: 1, Widget: svc.WidgetSettings{Accent: " #C2185B "}}
	if err := b.Validate(); err != nil || b.Widget.Accent != "#c2185b" {
		t.Errorf("an accent in capitals: %q, %v", b.Widget.Accent, err)
	}
}

func TestValidWidgetVariant(t *testing.T) {
	for v, want := range map[string]bool{"": true, "inline": true, "now toasts": true, "inline now toasts": true, "now inline carts toasts": true, "carts": true,
		"toast": false, "now now": false, " now": false, "now  toasts": false, "Inline": false} {
		if got := svc.ValidWidgetVariant(v); got != want {
			t.Errorf("ValidWidgetVariant(%q) = %t", v, got)
		}
	}
}
