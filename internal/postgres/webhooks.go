package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// SetWebhookSecret stores or removes a brand's webhook secret
// (svc.SetWebhookSecret).
func (s *Store) SetWebhookSecret(ctx context.Context, brandID, platform, secret string, at time.Time) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		return svc.SetWebhookSecret(ctx, secretTx{s.brandTx(tx)}, brandID, platform, secret, at)
	})
}

// WebhookSecrets returns every brand's webhook secrets.
func (s *Store) WebhookSecrets(ctx context.Context) ([]*svc.WebhookSecret, error) {
	rows, err := s.pool.Query(ctx, "SELECT brand_id, platform, secret, updated_at FROM webhook_secrets ORDER BY brand_id, platform")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (*svc.WebhookSecret, error) {
		var w svc.WebhookSecret
		var at int64
		err := row.Scan(&w.BrandID, &w.Platform, &w.Secret, &at)
		w.UpdatedAt = fromMillis(at)
		return &w, err
	})
}

// secretTx persists the writes of svc.SetWebhookSecret.
type secretTx struct{ brandTx }

func (b secretTx) PutWebhookSecret(ctx context.Context, w svc.WebhookSecret) (bool, error) {
	return affected(b.tx.Exec(ctx, `INSERT INTO webhook_secrets (brand_id, platform, secret, updated_at)
		SELECT id, $1, $2, $3 FROM brands WHERE id = $4
		ON CONFLICT (brand_id, platform) DO UPDATE SET secret = excluded.secret, updated_at = excluded.updated_at`,
		w.Platform, w.Secret, millis(w.UpdatedAt), w.BrandID))
}

func (b secretTx) DeleteWebhookSecret(ctx context.Context, brandID, platform string) (bool, error) {
	if _, err := b.tx.Exec(ctx, "DELETE FROM webhook_secrets WHERE brand_id = $1 AND platform = $2", brandID, platform); err != nil {
		return false, err
	}
	var ok bool
	err := b.tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM brands WHERE id = $1)", brandID).Scan(&ok)
	return ok, err
}
