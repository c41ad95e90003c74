package sqlstore

import (
	"context"
	"strings"

	"github.com/svc-project/svc"
)

// BrandTx persists the writes of the brand rules (svc.BrandTx), the API
// keys' among them (keys.go), and of svc.SetWebhookSecret in a transaction.
type BrandTx struct {
	tx Querier
	d  *Dialect
}

// InsertBrand stores a new brand (svc.BrandTx).
func (b BrandTx) InsertBrand(ctx context.Context, br *svc.Brand) (bool, error) {
	values, err := brandSettingValues(b.d, br)
	if err != nil {
		return false, err
	}
	return affected(b.tx.Exec(ctx, qBrandInsert, append([]any{br.ID, Millis(br.CreatedAt)}, values...)...))
}

// UpdateBrand replaces a brand's fields but its creation time (svc.BrandTx).
func (b BrandTx) UpdateBrand(ctx context.Context, br *svc.Brand) (bool, error) {
	values, err := brandSettingValues(b.d, br)
	if err != nil {
		return false, err
	}
	return affected(b.tx.Exec(ctx, qBrandUpdate, append(values, br.ID)...))
}

// BumpConfigVersion changes the number ConfigVersion returns (svc.BrandTx).
func (b BrandTx) BumpConfigVersion(ctx context.Context) error {
	_, err := b.tx.Exec(ctx, "UPDATE config_version SET version = version + 1")
	return err
}

// affected reports whether a statement changed a row.
func affected(n int64, err error) (bool, error) { return err == nil && n > 0, err }

// brandSettingColumns are a brand's columns but its id and creation
// time, in the order of brandSettingValues and brandSettingDest: a new
// setting is a column here, its value and its destination, and the
// statements follow.
const brandSettingColumns = "name, domains, require_key, closed_catalog, min_viewers, min_purchases, holdout, widget_variant, widget_position, languages, " +
	recentColumns + ", " + widgetColumns

const brandColumns = "id, created_at, " + brandSettingColumns

var (
	qBrandInsert = "INSERT INTO brands (" + brandColumns + ") VALUES (" + placeholders(2+len(strings.Split(brandSettingColumns, ", "))) + ") ON CONFLICT (id) DO NOTHING"
	qBrandUpdate = "UPDATE brands SET " + strings.ReplaceAll(brandSettingColumns, ", ", " = ?, ") + " = ? WHERE id = ?"
)

// placeholders is n ? placeholders, separated by commas.
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// brandSettingValues are the values of brandSettingColumns.
func brandSettingValues(d *Dialect, br *svc.Brand) ([]any, error) {
	domains, err := d.Strings(br.Domains)
	if err != nil {
		return nil, err
	}
	return append([]any{br.Name, domains, br.RequireKey, br.ClosedCatalog, br.MinViewers, br.MinPurchases, br.Holdout, br.WidgetVariant, br.WidgetPosition, br.Languages},
		append(recentRow(br.Recent).values(), widgetValues(br.Widget)...)...), nil
}

// brandSettingDest are where a scan of brandSettingColumns goes.
func (s *Store) brandSettingDest(b *svc.Brand, recent *recentSettings) []any {
	return append([]any{&b.Name, s.d.ScanStrings(&b.Domains), &b.RequireKey, &b.ClosedCatalog, &b.MinViewers, &b.MinPurchases, &b.Holdout, &b.WidgetVariant, &b.WidgetPosition, &b.Languages},
		append(recent.dest(), widgetDest(&b.Widget)...)...)
}

func (s *Store) scanBrand(row Row) (*svc.Brand, error) {
	var b svc.Brand
	var created int64
	var recent recentSettings
	if err := row.Scan(append([]any{&b.ID, &created}, s.brandSettingDest(&b, &recent)...)...); err != nil {
		return nil, err
	}
	b.Recent = recent.settings()
	b.CreatedAt = FromMillis(created)
	return &b, nil
}

// Brand returns one brand. Returns ENOTFOUND if there is none with the id.
func (s *Store) Brand(ctx context.Context, id string) (*svc.Brand, error) {
	b, err := s.scanBrand(s.r.QueryRow(ctx, "SELECT "+brandColumns+" FROM brands WHERE id = ?", id))
	if NoRows(err) {
		return nil, svc.Errorf(svc.ENOTFOUND, "brand %q not found", id)
	}
	return b, err
}

// Brands returns every brand, oldest first.
func (s *Store) Brands(ctx context.Context) ([]*svc.Brand, error) {
	return Collect(ctx, s.r, s.scanBrand, "SELECT "+brandColumns+" FROM brands ORDER BY created_at, id")
}

// ConfigVersion returns a number that changes whenever a brand or key does.
func (s *Store) ConfigVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.r.QueryRow(ctx, "SELECT version FROM config_version").Scan(&v)
	return v, err
}
