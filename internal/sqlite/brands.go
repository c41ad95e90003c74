package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
)

// CreateBrand stores a new brand and, if key is not nil, its first key, in
// one transaction (svc.CreateBrand).
func (s *Store) CreateBrand(ctx context.Context, b *svc.Brand, key *svc.APIKey) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return svc.CreateBrand(ctx, s.brandTx(tx), b, key) })
}

// UpdateBrand replaces the name, domains, flags and thresholds of the brand
// with b.ID (svc.UpdateBrand).
func (s *Store) UpdateBrand(ctx context.Context, b *svc.Brand) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return svc.UpdateBrand(ctx, s.brandTx(tx), b) })
}

// CreateAPIKey stores a key (svc.CreateAPIKey).
func (s *Store) CreateAPIKey(ctx context.Context, k *svc.APIKey) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return svc.CreateAPIKey(ctx, s.brandTx(tx), k) })
}

// RevokeAPIKey revokes the brand's key whose secret or whole prefix is
// given (svc.RevokeAPIKey).
func (s *Store) RevokeAPIKey(ctx context.Context, brandID, secretOrPrefix string, at time.Time) (k *svc.APIKey, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		k, err = svc.RevokeAPIKey(ctx, s.brandTx(tx), brandID, secretOrPrefix, at)
		return err
	})
	return k, err
}

// brandTx persists the writes of the brand rules (svc.BrandTx): the
// brands' in internal/sqlstore, the API keys' here.
type brandTx struct {
	sqlstore.BrandTx
	tx *sql.Tx
}

func (s *Store) brandTx(tx *sql.Tx) brandTx { return brandTx{s.Store.BrandTx(sqlQ{tx}), tx} }

func (b brandTx) InsertAPIKey(ctx context.Context, k *svc.APIKey) (bool, error) {
	return affected(b.tx.ExecContext(ctx, `INSERT INTO api_keys (hash, prefix, brand_id, created_at, label)
		SELECT ?, ?, id, ?, ? FROM brands WHERE id = ?`, k.Hash[:], k.Prefix, millis(k.CreatedAt), k.Label, k.BrandID))
}

func (b brandTx) ActiveAPIKeys(ctx context.Context, brandID string, hash [32]byte, prefix string) ([]*svc.APIKey, error) {
	rows, err := b.tx.QueryContext(ctx, "SELECT "+keyColumns+` FROM api_keys
		WHERE brand_id = ? AND revoked_at IS NULL AND (hash = ? OR prefix = ?)`, brandID, hash[:], prefix)
	if err != nil {
		return nil, err
	}
	return collectRows(rows, scanKey)
}

func (b brandTx) RevokeAPIKey(ctx context.Context, hash [32]byte, at time.Time) error {
	_, err := b.tx.ExecContext(ctx, "UPDATE api_keys SET revoked_at = ? WHERE hash = ?", millis(at), hash[:])
	return err
}

// affected reports whether a statement changed a row.
func affected(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

const keyColumns = "hash, prefix, brand_id, created_at, revoked_at, label, last_used_at"

func scanKey(row interface{ Scan(...any) error }) (*svc.APIKey, error) {
	var k svc.APIKey
	var hash []byte
	var created int64
	var revoked, used sql.NullInt64
	if err := row.Scan(&hash, &k.Prefix, &k.BrandID, &created, &revoked, &k.Label, &used); err != nil {
		return nil, err
	}
	if used.Valid {
		k.LastUsedAt = fromMillis(used.Int64)
	}
	copy(k.Hash[:], hash)
	k.CreatedAt = fromMillis(created)
	if revoked.Valid {
		t := fromMillis(revoked.Int64)
		k.RevokedAt = &t
	}
	return &k, nil
}

// APIKeys returns every key, revoked ones included.
func (s *Store) APIKeys(ctx context.Context) ([]*svc.APIKey, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT "+keyColumns+" FROM api_keys ORDER BY created_at")
	if err != nil {
		return nil, err
	}
	return collectRows(rows, scanKey)
}

// TouchAPIKeys records the keys' last uses, the later of the stored and
// the given (svc.BrandStore.TouchAPIKeys).
func (s *Store) TouchAPIKeys(ctx context.Context, uses []svc.KeyUse) error {
	if len(uses) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for _, u := range uses {
			if _, err := tx.ExecContext(ctx, "UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE hash = ?",
				millis(u.At), u.Hash[:]); err != nil {
				return err
			}
		}
		return nil
	})
}

// collectRows scans every row and closes rows.
func collectRows[T any](rows *sql.Rows, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
