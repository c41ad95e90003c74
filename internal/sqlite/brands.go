package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/svc-project/svc"
)

// CreateBrand stores a new brand and, if key is not nil, its first key, in
// one transaction (svc.CreateBrand).
func (s *Store) CreateBrand(ctx context.Context, b *svc.Brand, key *svc.APIKey) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return svc.CreateBrand(ctx, brandTx{tx}, b, key) })
}

// UpdateBrand replaces the name, domains, flags and thresholds of the brand
// with b.ID (svc.UpdateBrand).
func (s *Store) UpdateBrand(ctx context.Context, b *svc.Brand) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return svc.UpdateBrand(ctx, brandTx{tx}, b) })
}

// CreateAPIKey stores a key (svc.CreateAPIKey).
func (s *Store) CreateAPIKey(ctx context.Context, k *svc.APIKey) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return svc.CreateAPIKey(ctx, brandTx{tx}, k) })
}

// RevokeAPIKey revokes the brand's key whose secret or whole prefix is
// given (svc.RevokeAPIKey).
func (s *Store) RevokeAPIKey(ctx context.Context, brandID, secretOrPrefix string, at time.Time) (k *svc.APIKey, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		k, err = svc.RevokeAPIKey(ctx, brandTx{tx}, brandID, secretOrPrefix, at)
		return err
	})
	return k, err
}

// brandTx persists the writes of the brand rules (svc.BrandTx). Domains
// are stored as a JSON array.
type brandTx struct{ tx *sql.Tx }

func (b brandTx) InsertBrand(ctx context.Context, br *svc.Brand) (bool, error) {
	domains, err := json.Marshal(br.Domains)
	if err != nil {
		return false, err
	}
	return affected(b.tx.ExecContext(ctx, `INSERT INTO brands (id, name, domains, require_key, closed_catalog, min_viewers, min_purchases, created_at, holdout, widget_variant, widget_position, languages, `+svc.RecentColumns+`, `+svc.WidgetColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		append([]any{br.ID, br.Name, string(domains), br.RequireKey, br.ClosedCatalog, br.MinViewers, br.MinPurchases, millis(br.CreatedAt), br.Holdout, br.WidgetVariant, br.WidgetPosition, br.Languages},
			append(br.Recent.Row().Values(), br.Widget.Values()...)...)...))
}

func (b brandTx) UpdateBrand(ctx context.Context, br *svc.Brand) (bool, error) {
	domains, err := json.Marshal(br.Domains)
	if err != nil {
		return false, err
	}
	return affected(b.tx.ExecContext(ctx, `UPDATE brands SET name = ?, domains = ?, require_key = ?, closed_catalog = ?,
		min_viewers = ?, min_purchases = ?, holdout = ?, widget_variant = ?, widget_position = ?, languages = ?,
		recent_delay = ?, recent_window = ?, recent_max = ?, recent_k = ?, widget_font = ?, min_carts = ? WHERE id = ?`,
		append(append([]any{br.Name, string(domains), br.RequireKey, br.ClosedCatalog, br.MinViewers, br.MinPurchases, br.Holdout, br.WidgetVariant, br.WidgetPosition, br.Languages},
			append(br.Recent.Row().Values(), br.Widget.Values()...)...), br.ID)...))
}

func (b brandTx) InsertAPIKey(ctx context.Context, k *svc.APIKey) (bool, error) {
	return affected(b.tx.ExecContext(ctx, `INSERT INTO api_keys (hash, prefix, brand_id, created_at)
		SELECT ?, ?, id, ? FROM brands WHERE id = ?`, k.Hash[:], k.Prefix, millis(k.CreatedAt), k.BrandID))
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

func (b brandTx) BumpConfigVersion(ctx context.Context) error {
	_, err := b.tx.ExecContext(ctx, "UPDATE config_version SET version = version + 1")
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

const brandColumns = "id, name, domains, require_key, closed_catalog, min_viewers, min_purchases, created_at, holdout, widget_variant, widget_position, languages, " + svc.RecentColumns + ", " + svc.WidgetColumns

func scanBrand(row interface{ Scan(...any) error }) (*svc.Brand, error) {
	var b svc.Brand
	var domains string
	var created int64
	var recent svc.RecentRow
	if err := row.Scan(append([]any{&b.ID, &b.Name, &domains, &b.RequireKey, &b.ClosedCatalog, &b.MinViewers, &b.MinPurchases, &created, &b.Holdout, &b.WidgetVariant, &b.WidgetPosition, &b.Languages}, append(recent.Dest(), b.Widget.Dest()...)...)...); err != nil {
		return nil, err
	}
	b.Recent = recent.Settings()
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
	rows, err := s.r.QueryContext(ctx, "SELECT "+brandColumns+" FROM brands ORDER BY created_at, id")
	if err != nil {
		return nil, err
	}
	return collectRows(rows, scanBrand)
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

// APIKeys returns every key, revoked ones included.
func (s *Store) APIKeys(ctx context.Context) ([]*svc.APIKey, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT "+keyColumns+" FROM api_keys ORDER BY created_at")
	if err != nil {
		return nil, err
	}
	return collectRows(rows, scanKey)
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

// ConfigVersion returns a number that changes whenever a brand or key does.
func (s *Store) ConfigVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.r.QueryRowContext(ctx, "SELECT version FROM config_version").Scan(&v)
	return v, err
}
