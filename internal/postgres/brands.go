package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
)

// CreateBrand stores a new brand and, if key is not nil, its first key, in
// one transaction (svc.CreateBrand).
func (s *Store) CreateBrand(ctx context.Context, b *svc.Brand, key *svc.APIKey) error {
	return s.inTx(ctx, func(tx pgx.Tx) error { return svc.CreateBrand(ctx, s.brandTx(tx), b, key) })
}

// UpdateBrand replaces the name, domains, flags and thresholds of the brand
// with b.ID (svc.UpdateBrand).
func (s *Store) UpdateBrand(ctx context.Context, b *svc.Brand) error {
	return s.inTx(ctx, func(tx pgx.Tx) error { return svc.UpdateBrand(ctx, s.brandTx(tx), b) })
}

// CreateAPIKey stores a key (svc.CreateAPIKey).
func (s *Store) CreateAPIKey(ctx context.Context, k *svc.APIKey) error {
	return s.inTx(ctx, func(tx pgx.Tx) error { return svc.CreateAPIKey(ctx, s.brandTx(tx), k) })
}

// RevokeAPIKey revokes the brand's key whose secret or whole prefix is
// given (svc.RevokeAPIKey).
func (s *Store) RevokeAPIKey(ctx context.Context, brandID, secretOrPrefix string, at time.Time) (k *svc.APIKey, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		k, err = svc.RevokeAPIKey(ctx, s.brandTx(tx), brandID, secretOrPrefix, at)
		return err
	})
	return k, err
}

// brandTx persists the writes of the brand rules (svc.BrandTx): the
// brands' in internal/sqlstore, the API keys' here.
type brandTx struct {
	sqlstore.BrandTx
	tx pgx.Tx
}

func (s *Store) brandTx(tx pgx.Tx) brandTx { return brandTx{s.Store.BrandTx(pgQ{tx}), tx} }

func (b brandTx) InsertAPIKey(ctx context.Context, k *svc.APIKey) (bool, error) {
	return affected(b.tx.Exec(ctx, `INSERT INTO api_keys (hash, prefix, brand_id, created_at, label)
		SELECT $1, $2, id, $3, $5 FROM brands WHERE id = $4`, k.Hash[:], k.Prefix, millis(k.CreatedAt), k.BrandID, k.Label))
}

// ActiveAPIKeys locks the matching keys: two admins revoking at once
// cannot both succeed on one key.
func (b brandTx) ActiveAPIKeys(ctx context.Context, brandID string, hash [32]byte, prefix string) ([]*svc.APIKey, error) {
	rows, err := b.tx.Query(ctx, "SELECT "+keyColumns+` FROM api_keys
		WHERE brand_id = $1 AND revoked_at IS NULL AND (hash = $2 OR prefix = $3) FOR UPDATE`, brandID, hash[:], prefix)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanKey)
}

func (b brandTx) RevokeAPIKey(ctx context.Context, hash [32]byte, at time.Time) error {
	_, err := b.tx.Exec(ctx, "UPDATE api_keys SET revoked_at = $1 WHERE hash = $2", millis(at), hash[:])
	return err
}

// affected reports whether a statement changed a row.
func affected(tag pgconn.CommandTag, err error) (bool, error) {
	return err == nil && tag.RowsAffected() > 0, err
}

const keyColumns = "hash, prefix, brand_id, created_at, revoked_at, label, last_used_at"

func scanKey(row pgx.CollectableRow) (*svc.APIKey, error) {
	var k svc.APIKey
	var hash []byte
	var created int64
	var revoked, used *int64
	if err := row.Scan(&hash, &k.Prefix, &k.BrandID, &created, &revoked, &k.Label, &used); err != nil {
		return nil, err
	}
	if used != nil {
		k.LastUsedAt = fromMillis(*used)
	}
	copy(k.Hash[:], hash)
	k.CreatedAt = fromMillis(created)
	if revoked != nil {
		t := fromMillis(*revoked)
		k.RevokedAt = &t
	}
	return &k, nil
}

// APIKeys returns every key, revoked ones included.
func (s *Store) APIKeys(ctx context.Context) ([]*svc.APIKey, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+keyColumns+" FROM api_keys ORDER BY created_at, hash")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanKey)
}

// TouchAPIKeys records the keys' last uses, the later of the stored and
// the given (svc.BrandStore.TouchAPIKeys): in one statement, so that nodes
// flushing together never move a key's last use back.
func (s *Store) TouchAPIKeys(ctx context.Context, uses []svc.KeyUse) error {
	if len(uses) == 0 {
		return nil
	}
	hashes, ats := make([][]byte, len(uses)), make([]int64, len(uses))
	for i, u := range uses {
		hashes[i], ats[i] = u.Hash[:], millis(u.At)
	}
	_, err := s.pool.Exec(ctx, `UPDATE api_keys k SET last_used_at = greatest(coalesce(k.last_used_at, 0), u.at)
		FROM unnest($1::bytea[], $2::bigint[]) AS u(hash, at) WHERE k.hash = u.hash`, hashes, ats)
	return err
}
