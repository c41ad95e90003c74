package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/svc-project/svc"
)

// CreateBrand stores a new brand and, if key is not nil, its first key, in
// one transaction (svc.CreateBrand).
func (s *Store) CreateBrand(ctx context.Context, b *svc.Brand, key *svc.APIKey) error {
	return s.inTx(ctx, func(tx pgx.Tx) error { return svc.CreateBrand(ctx, brandTx{tx}, b, key) })
}

// UpdateBrand replaces the name, domains, flags and thresholds of the brand
// with b.ID (svc.UpdateBrand).
func (s *Store) UpdateBrand(ctx context.Context, b *svc.Brand) error {
	return s.inTx(ctx, func(tx pgx.Tx) error { return svc.UpdateBrand(ctx, brandTx{tx}, b) })
}

// CreateAPIKey stores a key (svc.CreateAPIKey).
func (s *Store) CreateAPIKey(ctx context.Context, k *svc.APIKey) error {
	return s.inTx(ctx, func(tx pgx.Tx) error { return svc.CreateAPIKey(ctx, brandTx{tx}, k) })
}

// RevokeAPIKey revokes the brand's key whose secret or whole prefix is
// given (svc.RevokeAPIKey).
func (s *Store) RevokeAPIKey(ctx context.Context, brandID, secretOrPrefix string, at time.Time) (k *svc.APIKey, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		k, err = svc.RevokeAPIKey(ctx, brandTx{tx}, brandID, secretOrPrefix, at)
		return err
	})
	return k, err
}

// brandTx persists the writes of the brand rules (svc.BrandTx). Domains
// are stored as a text array.
type brandTx struct{ tx pgx.Tx }

func (b brandTx) InsertBrand(ctx context.Context, br *svc.Brand) (bool, error) {
	return affected(b.tx.Exec(ctx, `INSERT INTO brands (id, name, domains, require_key, closed_catalog, min_viewers, min_purchases, created_at, holdout, widget_variant, widget_position, languages, `+svc.RecentColumns+`, `+svc.WidgetColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) ON CONFLICT (id) DO NOTHING`,
		append([]any{br.ID, br.Name, br.Domains, br.RequireKey, br.ClosedCatalog, br.MinViewers, br.MinPurchases, millis(br.CreatedAt), br.Holdout, br.WidgetVariant, br.WidgetPosition, br.Languages},
			append(br.Recent.Row().Values(), br.Widget.Values()...)...)...))
}

func (b brandTx) UpdateBrand(ctx context.Context, br *svc.Brand) (bool, error) {
	return affected(b.tx.Exec(ctx, `UPDATE brands SET name = $1, domains = $2, require_key = $3, closed_catalog = $4,
		min_viewers = $5, min_purchases = $6, holdout = $8, widget_variant = $9, widget_position = $10, languages = $11,
		recent_delay = $12, recent_window = $13, recent_max = $14, recent_k = $15, widget_font = $16, min_carts = $17 WHERE id = $7`,
		append([]any{br.Name, br.Domains, br.RequireKey, br.ClosedCatalog, br.MinViewers, br.MinPurchases, br.ID, br.Holdout, br.WidgetVariant, br.WidgetPosition, br.Languages},
			append(br.Recent.Row().Values(), br.Widget.Values()...)...)...))
}

func (b brandTx) InsertAPIKey(ctx context.Context, k *svc.APIKey) (bool, error) {
	return affected(b.tx.Exec(ctx, `INSERT INTO api_keys (hash, prefix, brand_id, created_at)
		SELECT $1, $2, id, $3 FROM brands WHERE id = $4`, k.Hash[:], k.Prefix, millis(k.CreatedAt), k.BrandID))
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

func (b brandTx) BumpConfigVersion(ctx context.Context) error {
	_, err := b.tx.Exec(ctx, "UPDATE config_version SET version = version + 1")
	return err
}

// affected reports whether a statement changed a row.
func affected(tag pgconn.CommandTag, err error) (bool, error) {
	return err == nil && tag.RowsAffected() > 0, err
}

const brandColumns = "id, name, domains, require_key, closed_catalog, min_viewers, min_purchases, created_at, holdout, widget_variant, widget_position, languages, " + svc.RecentColumns + ", " + svc.WidgetColumns

func scanBrand(row pgx.Row) (*svc.Brand, error) {
	var b svc.Brand
	var created int64
	var recent svc.RecentRow
	if err := row.Scan(append([]any{&b.ID, &b.Name, &b.Domains, &b.RequireKey, &b.ClosedCatalog, &b.MinViewers, &b.MinPurchases, &created, &b.Holdout, &b.WidgetVariant, &b.WidgetPosition, &b.Languages}, append(recent.Dest(), b.Widget.Dest()...)...)...); err != nil {
		return nil, err
	}
	b.Recent = recent.Settings()
	b.CreatedAt = fromMillis(created)
	return &b, nil
}

// Brand returns one brand. Returns ENOTFOUND if there is none with the id.
func (s *Store) Brand(ctx context.Context, id string) (*svc.Brand, error) {
	b, err := scanBrand(s.pool.QueryRow(ctx, "SELECT "+brandColumns+" FROM brands WHERE id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, svc.Errorf(svc.ENOTFOUND, "brand %q not found", id)
	}
	return b, err
}

// Brands returns every brand, oldest first.
func (s *Store) Brands(ctx context.Context) ([]*svc.Brand, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+brandColumns+" FROM brands ORDER BY created_at, id")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*svc.Brand, error) { return scanBrand(r) })
}

const keyColumns = "hash, prefix, brand_id, created_at, revoked_at"

func scanKey(row pgx.CollectableRow) (*svc.APIKey, error) {
	var k svc.APIKey
	var hash []byte
	var created int64
	var revoked *int64
	if err := row.Scan(&hash, &k.Prefix, &k.BrandID, &created, &revoked); err != nil {
		return nil, err
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

// ConfigVersion returns a number that changes whenever a brand or key does.
func (s *Store) ConfigVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.pool.QueryRow(ctx, "SELECT version FROM config_version").Scan(&v)
	return v, err
}
