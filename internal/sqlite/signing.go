package sqlite

import (
	"context"
	"crypto/ed25519"
	"database/sql"
	"fmt"
	"time"

	"github.com/svc-project/svc"
)

// SigningKeys returns the keys not expired at now, the current one first
// (svc.SigningKeyStore).
func (s *Store) SigningKeys(ctx context.Context, now time.Time) ([]*svc.SigningKey, error) {
	var keys []*svc.SigningKey
	err := s.eachRow(ctx, func(rows *sql.Rows) error {
		k, err := scanSigningKey(rows)
		keys = append(keys, k)
		return err
	}, `SELECT kid, seed, created_at, expires_at,
			(SELECT min(n.created_at) FROM signing_keys n WHERE n.created_at > k.created_at)
		FROM signing_keys k WHERE expires_at IS NULL OR expires_at > ?
		ORDER BY expires_at IS NOT NULL, created_at DESC`, millis(now))
	return keys, err
}

func scanSigningKey(row interface{ Scan(...any) error }) (*svc.SigningKey, error) {
	var k svc.SigningKey
	var seed []byte
	var created int64
	var expires, next sql.NullInt64
	if err := row.Scan(&k.ID, &seed, &created, &expires, &next); err != nil {
		return nil, err
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("signing key %s: seed of %d bytes", k.ID, len(seed))
	}
	k.Private = ed25519.NewKeyFromSeed(seed)
	k.CreatedAt = fromMillis(created)
	if expires.Valid {
		t := fromMillis(expires.Int64)
		k.ExpiresAt = &t
		if next.Valid {
			r := svc.KeyReplacedAt(fromMillis(next.Int64), t)
			k.ReplacedAt = &r
		}
	}
	return &k, nil
}

// InitSigningKey stores k as the current key if there is none and returns
// the current key (svc.SigningKeyStore).
func (s *Store) InitSigningKey(ctx context.Context, k *svc.SigningKey) (cur *svc.SigningKey, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO signing_keys (kid, seed, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			k.ID, k.Private.Seed(), millis(k.CreatedAt)); err != nil {
			return err
		}
		cur, err = scanSigningKey(tx.QueryRowContext(ctx, `SELECT kid, seed, created_at, expires_at, NULL FROM signing_keys WHERE expires_at IS NULL`))
		return err
	})
	return cur, err
}

// RotateSigningKey makes k the current key; the replaced one expires at
// oldExpires (svc.SigningKeyStore).
func (s *Store) RotateSigningKey(ctx context.Context, k *svc.SigningKey, oldExpires time.Time) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE signing_keys SET expires_at = ? WHERE expires_at IS NULL OR expires_at > ?`,
			millis(oldExpires), millis(oldExpires)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO signing_keys (kid, seed, created_at) VALUES (?, ?, ?)`, k.ID, k.Private.Seed(), millis(k.CreatedAt))
		return err
	})
}
