package sqlstore

import (
	"context"
	"time"

	"github.com/svc-project/svc"
)

// The API keys' statements. TouchAPIKeys stays in each store: PostgreSQL
// touches every key in one set-based statement, SQLite one by one.

// CreateBrand stores a new brand and, if key is not nil, its first key, in
// one transaction (svc.CreateBrand).
func (s *Store) CreateBrand(ctx context.Context, b *svc.Brand, key *svc.APIKey) error {
	return s.inTx(ctx, func(tx Querier) error { return svc.CreateBrand(ctx, BrandTx{tx, s.d}, b, key) })
}

// UpdateBrand replaces the name, domains, flags and thresholds of the brand
// with b.ID (svc.UpdateBrand).
func (s *Store) UpdateBrand(ctx context.Context, b *svc.Brand) error {
	return s.inTx(ctx, func(tx Querier) error { return svc.UpdateBrand(ctx, BrandTx{tx, s.d}, b) })
}

// CreateAPIKey stores a key (svc.CreateAPIKey).
func (s *Store) CreateAPIKey(ctx context.Context, k *svc.APIKey) error {
	return s.inTx(ctx, func(tx Querier) error { return svc.CreateAPIKey(ctx, BrandTx{tx, s.d}, k) })
}

// RevokeAPIKey revokes the brand's key whose secret or whole prefix is
// given (svc.RevokeAPIKey).
func (s *Store) RevokeAPIKey(ctx context.Context, brandID, secretOrPrefix string, at time.Time) (k *svc.APIKey, err error) {
	err = s.inTx(ctx, func(tx Querier) error {
		k, err = svc.RevokeAPIKey(ctx, BrandTx{tx, s.d}, brandID, secretOrPrefix, at)
		return err
	})
	return k, err
}

// InsertAPIKey stores a key of an existing brand (svc.BrandTx).
func (b BrandTx) InsertAPIKey(ctx context.Context, k *svc.APIKey) (bool, error) {
	return affected(b.tx.Exec(ctx, `INSERT INTO api_keys (hash, prefix, brand_id, created_at, label)
		SELECT ?, ?, id, ?, ? FROM brands WHERE id = ?`, k.Hash[:], k.Prefix, Millis(k.CreatedAt), k.Label, k.BrandID))
}

// ActiveAPIKeys locks the matching keys where other nodes write: two
// admins revoking at once cannot both succeed on one key (svc.BrandTx).
func (b BrandTx) ActiveAPIKeys(ctx context.Context, brandID string, hash [32]byte, prefix string) ([]*svc.APIKey, error) {
	return Collect(ctx, b.tx, scanKey, "SELECT "+keyColumns+` FROM api_keys
		WHERE brand_id = ? AND revoked_at IS NULL AND (hash = ? OR prefix = ?)`+b.d.ForUpdate(), brandID, hash[:], prefix)
}

// RevokeAPIKey marks the key revoked (svc.BrandTx).
func (b BrandTx) RevokeAPIKey(ctx context.Context, hash [32]byte, at time.Time) error {
	_, err := b.tx.Exec(ctx, "UPDATE api_keys SET revoked_at = ? WHERE hash = ?", Millis(at), hash[:])
	return err
}

// APIKeys returns every key, revoked ones included (svc.BrandStore).
func (s *Store) APIKeys(ctx context.Context) ([]*svc.APIKey, error) {
	return Collect(ctx, s.r, scanKey, "SELECT "+keyColumns+" FROM api_keys ORDER BY created_at, hash")
}

const keyColumns = "hash, prefix, brand_id, created_at, revoked_at, label, last_used_at"

func scanKey(row Row) (*svc.APIKey, error) {
	var k svc.APIKey
	var hash []byte
	var created int64
	var revoked, used *int64
	if err := row.Scan(&hash, &k.Prefix, &k.BrandID, &created, &revoked, &k.Label, &used); err != nil {
		return nil, err
	}
	if used != nil {
		k.LastUsedAt = FromMillis(*used)
	}
	copy(k.Hash[:], hash)
	k.CreatedAt = FromMillis(created)
	if revoked != nil {
		t := FromMillis(*revoked)
		k.RevokedAt = &t
	}
	return &k, nil
}
