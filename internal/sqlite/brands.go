package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/svc-project/svc"
)

const bumpVersion = "UPDATE config_version SET version = version + 1"

// CreateBrand stores a new brand and, if key is not nil, its first key, in
// one transaction. Returns ECONFLICT if the brand's id is taken.
func (s *Store) CreateBrand(ctx context.Context, b *svc.Brand, key *svc.APIKey) error {
	n := b.Stored()
	domains, err := json.Marshal(n.Domains)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO brands (id, name, domains, require_key, closed_catalog, min_viewers, min_purchases, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			b.ID, b.Name, string(domains), b.RequireKey, b.ClosedCatalog, n.MinViewers,
			n.MinPurchases, millis(b.CreatedAt))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return svc.Errorf(svc.ECONFLICT, "brand %q exists", b.ID)
		}
		if key != nil {
			if err := insertKey(ctx, tx, key); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, bumpVersion)
		return err
	})
}

const brandColumns = "id, name, domains, require_key, closed_catalog, min_viewers, min_purchases, created_at"

func scanBrand(row interface{ Scan(...any) error }) (*svc.Brand, error) {
	var b svc.Brand
	var domains string
	var created int64
	if err := row.Scan(&b.ID, &b.Name, &domains, &b.RequireKey, &b.ClosedCatalog, &b.MinViewers, &b.MinPurchases, &created); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(domains), &b.Domains); err != nil {
		return nil, err
	}
	b.CreatedAt = fromMillis(created)
	return &b, nil
}

// Brand returns one brand. Returns ENOTFOUND if there is none with the id.
func (s *Store) Brand(ctx context.Context, id string) (*svc.Brand, error) {
	b, err := scanBrand(s.r.QueryRowContext(ctx, "SELECT "+brandColumns+" FROM brands WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svc.Errorf(svc.ENOTFOUND, "brand %q not found", id)
	}
	return b, err
}

// Brands returns every brand, oldest first.
func (s *Store) Brands(ctx context.Context) ([]*svc.Brand, error) {
	var out []*svc.Brand
	err := s.eachRow(ctx, func(rows *sql.Rows) error {
		b, err := scanBrand(rows)
		out = append(out, b)
		return err
	}, "SELECT "+brandColumns+" FROM brands ORDER BY created_at, id")
	return out, err
}

// CreateAPIKey stores a key. Returns ENOTFOUND if its brand does not exist.
func (s *Store) CreateAPIKey(ctx context.Context, k *svc.APIKey) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := insertKey(ctx, tx, k); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, bumpVersion)
		return err
	})
}

func insertKey(ctx context.Context, tx *sql.Tx, k *svc.APIKey) error {
	res, err := tx.ExecContext(ctx, `INSERT INTO api_keys (hash, prefix, brand_id, created_at)
		SELECT ?, ?, id, ? FROM brands WHERE id = ?`, k.Hash[:], k.Prefix, millis(k.CreatedAt), k.BrandID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return svc.Errorf(svc.ENOTFOUND, "brand %q not found", k.BrandID)
	}
	return nil
}

const keyColumns = "hash, prefix, brand_id, created_at, revoked_at"

func scanKey(row interface{ Scan(...any) error }) (*svc.APIKey, error) {
	var k svc.APIKey
	var hash []byte
	var created int64
	var revoked sql.NullInt64
	if err := row.Scan(&hash, &k.Prefix, &k.BrandID, &created, &revoked); err != nil {
		return nil, err
	}
	copy(k.Hash[:], hash)
	k.CreatedAt = fromMillis(created)
	if revoked.Valid {
		t := fromMillis(revoked.Int64)
		k.RevokedAt = &t
	}
	return &k, nil
}

// RevokeAPIKey revokes the brand's key whose secret or whole prefix is
// given. Returns ENOTFOUND if no active key of the brand matches, and
// ECONFLICT if a prefix matches more than one.
func (s *Store) RevokeAPIKey(ctx context.Context, brandID, secretOrPrefix string, at time.Time) (*svc.APIKey, error) {
	if err := svc.CheckRevocation(brandID, secretOrPrefix); err != nil {
		return nil, err
	}
	var revoked *svc.APIKey
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		hash := svc.HashAPIKey(secretOrPrefix)
		rows, err := tx.QueryContext(ctx, "SELECT "+keyColumns+` FROM api_keys
			WHERE brand_id = ? AND revoked_at IS NULL AND (hash = ? OR prefix = ?)`,
			brandID, hash[:], secretOrPrefix)
		if err != nil {
			return err
		}
		var matches []*svc.APIKey
		for rows.Next() {
			k, err := scanKey(rows)
			if err != nil {
				rows.Close()
				return err
			}
			matches = append(matches, k)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		k, err := svc.KeyToRevoke(matches, brandID, secretOrPrefix)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE api_keys SET revoked_at = ? WHERE hash = ?", millis(at), k.Hash[:]); err != nil {
			return err
		}
		t := at.UTC()
		revoked = k
		revoked.RevokedAt = &t
		_, err = tx.ExecContext(ctx, bumpVersion)
		return err
	})
	return revoked, err
}

// APIKeys returns every key, revoked ones included.
func (s *Store) APIKeys(ctx context.Context) ([]*svc.APIKey, error) {
	var out []*svc.APIKey
	err := s.eachRow(ctx, func(rows *sql.Rows) error {
		k, err := scanKey(rows)
		out = append(out, k)
		return err
	}, "SELECT "+keyColumns+" FROM api_keys ORDER BY created_at")
	return out, err
}

// ConfigVersion returns a number that changes whenever a brand or key does.
func (s *Store) ConfigVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.r.QueryRowContext(ctx, "SELECT version FROM config_version").Scan(&v)
	return v, err
}

// UpdateBrand replaces the name, domains, flags and thresholds of the brand
// with b.ID. Returns ENOTFOUND if there is none.
func (s *Store) UpdateBrand(ctx context.Context, b *svc.Brand) error {
	n := b.Stored()
	domains, err := json.Marshal(n.Domains)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE brands SET name = ?, domains = ?, require_key = ?, closed_catalog = ?,
			min_viewers = ?, min_purchases = ? WHERE id = ?`,
			b.Name, string(domains), b.RequireKey, b.ClosedCatalog, n.MinViewers,
			n.MinPurchases, b.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return svc.Errorf(svc.ENOTFOUND, "brand %q not found", b.ID)
		}
		_, err = tx.ExecContext(ctx, bumpVersion)
		return err
	})
}
