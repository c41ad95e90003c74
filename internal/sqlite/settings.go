package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/svc-project/svc"
)

// Setting returns a setting's value (svc.SettingStore).
func (s *Store) Setting(ctx context.Context, name string) (string, error) {
	var v string
	err := s.r.QueryRowContext(ctx, "SELECT value FROM settings WHERE name = ?", name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", svc.Errorf(svc.ENOTFOUND, "the setting %s is not set", name)
	}
	return v, err
}

// SetSetting sets a setting (svc.SettingStore).
func (s *Store) SetSetting(ctx context.Context, name, value string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value", name, value)
		return err
	})
}
