package storetest

import (
	"testing"

	"github.com/svc-project/svc"
)

// Webhook secrets are kept as given, per brand and platform, replaced,
// removed with "", refused for a missing brand, and every change moves the
// config version that servers poll.
func testWebhookSecrets(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	withBrand(t, s, "br_2")
	v0, _ := s.ConfigVersion(ctx)
	for _, c := range []struct{ brand, platform, secret string }{
		{"br_1", svc.PlatformShopify, "first"},
		{"br_1", svc.PlatformShopify, "shpss_0123456789abcdef"},
		{"br_1", svc.PlatformWooCommerce, `w00!"#$%&'()*+,-./:;<=>?@[\]^_{|}~`},
		{"br_2", svc.PlatformWooCommerce, "gone"},
		{"br_2", svc.PlatformWooCommerce, ""},
	} {
		if err := s.SetWebhookSecret(ctx, c.brand, c.platform, c.secret, t0); err != nil {
			t.Fatalf("set %s %s: %v", c.brand, c.platform, err)
		}
	}
	got, err := s.WebhookSecrets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []svc.WebhookSecret{
		{BrandID: "br_1", Platform: svc.PlatformShopify, Secret: "shpss_0123456789abcdef", UpdatedAt: t0},
		{BrandID: "br_1", Platform: svc.PlatformWooCommerce, Secret: `w00!"#$%&'()*+,-./:;<=>?@[\]^_{|}~`, UpdatedAt: t0},
	}
	if len(got) != len(want) {
		t.Fatalf("secrets %v, want %v", got, want)
	}
	for i := range want {
		if g := *got[i]; g.BrandID != want[i].BrandID || g.Platform != want[i].Platform || g.Secret != want[i].Secret || !g.UpdatedAt.Equal(t0) {
			t.Fatalf("secret %d is %v for %q, want %q", i, g, g.Secret, want[i].Secret)
		}
	}
	if v1, _ := s.ConfigVersion(ctx); v1 != v0+5 {
		t.Fatalf("config version %d -> %d, want 5 changes", v0, v1)
	}
	if err := s.SetWebhookSecret(ctx, "br_nope", svc.PlatformShopify, "x", t0); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("secret of a missing brand: %v", err)
	}
	if err := s.SetWebhookSecret(ctx, "br_nope", svc.PlatformShopify, "", t0); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("removal from a missing brand: %v", err)
	}
	for _, bad := range []struct{ platform, secret string }{
		{"magento", "x"}, {svc.PlatformShopify, "with space"}, {svc.PlatformShopify, "tab\there"},
		{svc.PlatformShopify, string(make([]byte, svc.MaxWebhookSecretLen+1))},
	} {
		if err := s.SetWebhookSecret(ctx, "br_1", bad.platform, bad.secret, t0); svc.ErrorCode(err) != svc.EINVALID {
			t.Fatalf("secret %q for %q: %v", bad.secret, bad.platform, err)
		}
	}
}
