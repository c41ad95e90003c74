package postgres

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// SigningKeys returns the keys not expired at now, the current one first
// (svc.SigningKeyStore).
func (s *Store) SigningKeys(ctx context.Context, now time.Time) ([]*svc.SigningKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT kid, seed, created_at, expires_at,
			(SELECT min(n.created_at) FROM signing_keys n WHERE n.created_at > k.created_at)
		FROM signing_keys k WHERE expires_at IS NULL OR expires_at > $1 ORDER BY expires_at IS NOT NULL, created_at DESC`, now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []*svc.SigningKey
	for rows.Next() {
		k, err := scanSigningKey(rows)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

func scanSigningKey(row pgx.Row) (*svc.SigningKey, error) {
	var k svc.SigningKey
	var seed []byte
	var next *time.Time
	if err := row.Scan(&k.ID, &seed, &k.CreatedAt, &k.ExpiresAt, &next); err != nil {
		return nil, err
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("signing key %s: seed of %d bytes", k.ID, len(seed))
	}
	k.Private = ed25519.NewKeyFromSeed(seed)
	k.CreatedAt = k.CreatedAt.UTC()
	if k.ExpiresAt != nil {
		t := k.ExpiresAt.UTC()
		k.ExpiresAt = &t
		if next != nil {
			r := svc.KeyReplacedAt(*next, t)
			k.ReplacedAt = &r
		}
	}
	return &k, nil
}

// InitSigningKey stores k as the current key if there is none and returns
// the current key (svc.SigningKeyStore). Nodes that start together insert
// at once: the unique index on the current key makes all but one insert
// nothing, and each then reads the one that won.
func (s *Store) InitSigningKey(ctx context.Context, k *svc.SigningKey) (cur *svc.SigningKey, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO signing_keys (kid, seed, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			k.ID, k.Private.Seed(), k.CreatedAt); err != nil {
			return err
		}
		cur, err = scanSigningKey(tx.QueryRow(ctx, `SELECT kid, seed, created_at, expires_at, NULL::timestamptz FROM signing_keys WHERE expires_at IS NULL`))
		return err
	})
	return cur, err
}

// RotateSigningKey makes k the current key; the replaced one expires at
// oldExpires (svc.SigningKeyStore).
func (s *Store) RotateSigningKey(ctx context.Context, k *svc.SigningKey, oldExpires time.Time) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE signing_keys SET expires_at = $1 WHERE expires_at IS NULL OR expires_at > $1`, oldExpires); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO signing_keys (kid, seed, created_at) VALUES ($1, $2, $3)`, k.ID, k.Private.Seed(), k.CreatedAt)
		return err
	})
}
