package sqlstore

import (
	"context"
	"time"

	"github.com/svc-project/svc"
)

// SetWebhookSecret stores or removes a brand's webhook secret
// (svc.SetWebhookSecret).
func (s *Store) SetWebhookSecret(ctx context.Context, brandID, platform, secret string, at time.Time) error {
	return s.inTx(ctx, func(tx Querier) error {
		return svc.SetWebhookSecret(ctx, BrandTx{tx, s.d}, brandID, platform, secret, at)
	})
}

// WebhookSecrets returns every brand's webhook secrets.
func (s *Store) WebhookSecrets(ctx context.Context) ([]*svc.WebhookSecret, error) {
	return Collect(ctx, s.r, func(row Row) (*svc.WebhookSecret, error) {
		var w svc.WebhookSecret
		var at int64
		err := row.Scan(&w.BrandID, &w.Platform, &w.Secret, &at)
		w.UpdatedAt = FromMillis(at)
		return &w, err
	}, "SELECT brand_id, platform, secret, updated_at FROM webhook_secrets ORDER BY brand_id, platform")
}

// PutWebhookSecret stores a brand's secret for a platform
// (svc.WebhookSecretTx).
func (b BrandTx) PutWebhookSecret(ctx context.Context, w svc.WebhookSecret) (bool, error) {
	return affected(b.tx.Exec(ctx, `INSERT INTO webhook_secrets (brand_id, platform, secret, updated_at)
		SELECT id, ?, ?, ? FROM brands WHERE id = ?
		ON CONFLICT (brand_id, platform) DO UPDATE SET secret = excluded.secret, updated_at = excluded.updated_at`,
		w.Platform, w.Secret, Millis(w.UpdatedAt), w.BrandID))
}

// DeleteWebhookSecret removes a brand's secret for a platform
// (svc.WebhookSecretTx).
func (b BrandTx) DeleteWebhookSecret(ctx context.Context, brandID, platform string) (bool, error) {
	if _, err := b.tx.Exec(ctx, "DELETE FROM webhook_secrets WHERE brand_id = ? AND platform = ?", brandID, platform); err != nil {
		return false, err
	}
	var n int
	err := b.tx.QueryRow(ctx, "SELECT count(*) FROM brands WHERE id = ?", brandID).Scan(&n)
	return n > 0, err
}
