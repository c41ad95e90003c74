package sqlstore

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/svc-project/svc"
)

// The signing keys' times are timestamps of the dialect (Dialect.Time):
// timestamptz in PostgreSQL, unix milliseconds in SQLite.

// SigningKeys returns the keys not expired at now, the current one first
// (svc.SigningKeyStore).
func (s *Store) SigningKeys(ctx context.Context, now time.Time) ([]*svc.SigningKey, error) {
	return Collect(ctx, s.r, scanSigningKey, `SELECT kid, seed, created_at, expires_at,
			(SELECT min(n.created_at) FROM signing_keys n WHERE n.created_at > k.created_at)
		FROM signing_keys k WHERE expires_at IS NULL OR expires_at > ?
		ORDER BY expires_at IS NOT NULL, created_at DESC`, s.d.Time(now))
}

func scanSigningKey(row Row) (*svc.SigningKey, error) {
	var k svc.SigningKey
	var seed []byte
	var created, expires, next NullTime
	if err := row.Scan(&k.ID, &seed, &created, &expires, &next); err != nil {
		return nil, err
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("signing key %s: seed of %d bytes", k.ID, len(seed))
	}
	k.Private = ed25519.NewKeyFromSeed(seed)
	k.CreatedAt = created.Time
	if expires.Valid {
		t := expires.Time
		k.ExpiresAt = &t
		if next.Valid {
			r := svc.KeyReplacedAt(next.Time, t)
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
	err = s.inTx(ctx, func(tx Querier) error {
		if _, err := tx.Exec(ctx, `INSERT INTO signing_keys (kid, seed, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			k.ID, k.Private.Seed(), s.d.Time(k.CreatedAt)); err != nil {
			return err
		}
		cur, err = scanSigningKey(tx.QueryRow(ctx, `SELECT kid, seed, created_at, expires_at, NULL FROM signing_keys WHERE expires_at IS NULL`))
		return err
	})
	return cur, err
}

// RotateSigningKey makes k the current key; the replaced one expires at
// oldExpires (svc.SigningKeyStore).
func (s *Store) RotateSigningKey(ctx context.Context, k *svc.SigningKey, oldExpires time.Time) error {
	return s.inTx(ctx, func(tx Querier) error {
		if _, err := tx.Exec(ctx, `UPDATE signing_keys SET expires_at = ? WHERE expires_at IS NULL OR expires_at > ?`,
			s.d.Time(oldExpires), s.d.Time(oldExpires)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO signing_keys (kid, seed, created_at) VALUES (?, ?, ?)`, k.ID, k.Private.Seed(), s.d.Time(k.CreatedAt))
		return err
	})
}
