package svc

import (
	"context"
	"fmt"
	"time"
)

// Shop platforms whose webhooks svc receives (docs/integrations.md). Each
// signs its webhooks with a secret that the brand's operator sets.
const (
	PlatformShopify     = "shopify"
	PlatformWooCommerce = "woocommerce"
)

// Platforms lists the platforms, in the order commands print them.
var Platforms = []string{PlatformShopify, PlatformWooCommerce}

// MaxWebhookSecretLen bounds a webhook secret. Shopify's are 64 hex
// characters (or an app's client secret), WooCommerce's whatever the shop
// typed; 512 leaves room for both.
const MaxWebhookSecretLen = 512

// WebhookSecret is the secret a platform signs a brand's webhooks with. It
// is kept as given, not hashed: verifying an HMAC needs the secret itself.
// It is never logged, exported or printed back (docs/security.md).
type WebhookSecret struct {
	BrandID   string
	Platform  string
	Secret    string
	UpdatedAt time.Time
}

// String hides the secret, so that no %v of a WebhookSecret can log it.
func (s WebhookSecret) String() string {
	return fmt.Sprintf("webhook secret of brand %s for %s (hidden)", s.BrandID, s.Platform)
}

// WebhookSecretStore keeps brands' webhook secrets. Changes bump the
// config version, so that running servers use a new secret within a second.
type WebhookSecretStore interface {
	// SetWebhookSecret stores the brand's secret for the platform, replacing
	// any; an empty secret removes it. Returns ENOTFOUND if the brand does
	// not exist, EINVALID for an unknown platform or a bad secret.
	SetWebhookSecret(ctx context.Context, brandID, platform, secret string, at time.Time) error
	// WebhookSecrets returns every brand's secrets.
	WebhookSecrets(ctx context.Context) ([]*WebhookSecret, error)
}

// WebhookSecretTx is what SetWebhookSecret asks of a store, inside one
// transaction.
type WebhookSecretTx interface {
	// PutWebhookSecret stores the secret, replacing the brand's one for the
	// platform; it reports false, and stores nothing, when the brand does
	// not exist.
	PutWebhookSecret(ctx context.Context, s WebhookSecret) (bool, error)
	// DeleteWebhookSecret removes the brand's secret for the platform; it
	// reports false when the brand does not exist.
	DeleteWebhookSecret(ctx context.Context, brandID, platform string) (bool, error)
	BumpConfigVersion(ctx context.Context) error
}

// SetWebhookSecret checks and stores a secret (WebhookSecretStore.SetWebhookSecret).
func SetWebhookSecret(ctx context.Context, tx WebhookSecretTx, brandID, platform, secret string, at time.Time) error {
	if err := ValidateWebhookSecret(platform, secret); err != nil {
		return err
	}
	var ok bool
	var err error
	if secret == "" {
		ok, err = tx.DeleteWebhookSecret(ctx, brandID, platform)
	} else {
		ok, err = tx.PutWebhookSecret(ctx, WebhookSecret{BrandID: brandID, Platform: platform, Secret: secret, UpdatedAt: at.UTC()})
	}
	switch {
	case err != nil:
		return err
	case !ok:
		return Errorf(ENOTFOUND, "brand %q not found", brandID)
	}
	return tx.BumpConfigVersion(ctx)
}

// ValidateWebhookSecret checks a platform and a secret given for it: the
// secret ("" removes it) is 1 to MaxWebhookSecretLen printable ASCII
// characters without spaces, as both platforms' secrets are; the messages
// never quote it.
func ValidateWebhookSecret(platform, secret string) error {
	known := false
	for _, p := range Platforms {
		known = known || p == platform
	}
	field := platform + "_secret"
	switch {
	case !known:
		return Invalid([]FieldError{{Field: "platform", Message: fmt.Sprintf("must be one of %v", Platforms)}})
	case len(secret) > MaxWebhookSecretLen:
		return Invalid([]FieldError{{Field: field, Message: fmt.Sprintf("must be at most %d characters", MaxWebhookSecretLen)}})
	}
	for i := 0; i < len(secret); i++ {
		if secret[i] <= ' ' || secret[i] > '~' {
			return Invalid([]FieldError{{Field: field, Message: "must be printable ASCII characters without spaces"}})
		}
	}
	return nil
}
