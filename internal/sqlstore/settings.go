package sqlstore

import (
	"context"

	"github.com/svc-project/svc"
)

// Setting returns a setting's value (svc.SettingStore).
func (s *Store) Setting(ctx context.Context, name string) (string, error) {
	var v string
	err := s.r.QueryRow(ctx, "SELECT value FROM settings WHERE name = ?", name).Scan(&v)
	if NoRows(err) {
		return "", svc.Errorf(svc.ENOTFOUND, "the setting %s is not set", name)
	}
	return v, err
}

// SetSetting sets a setting (svc.SettingStore).
func (s *Store) SetSetting(ctx context.Context, name, value string) error {
	_, err := s.w.Exec(ctx, "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value", name, value)
	return err
}
