package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// Setting returns a setting's value (svc.SettingStore).
func (s *Store) Setting(ctx context.Context, name string) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, "SELECT value FROM settings WHERE name = $1", name).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", svc.Errorf(svc.ENOTFOUND, "the setting %s is not set", name)
	}
	return v, err
}

// SetSetting sets a setting (svc.SettingStore).
func (s *Store) SetSetting(ctx context.Context, name, value string) error {
	_, err := s.pool.Exec(ctx, "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value", name, value)
	return err
}
