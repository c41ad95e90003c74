package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the database to the file path, which
// must not exist, while the store keeps serving. VACUUM INTO reads one
// snapshot in a read transaction, so writers go on and the copy holds
// exactly the transactions committed before it started; it is compact and
// needs no WAL beside it.
func (s *Store) Backup(ctx context.Context, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	// Created empty and private first, which VACUUM INTO accepts: it would
	// create the file readable by everyone under the usual umask.
	f, err := os.OpenFile(abs, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("sqlite: backup: %s already exists", abs)
	} else if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	err = f.Chmod(0o600)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(abs)
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	if _, err := s.r.ExecContext(ctx, "VACUUM INTO ?", abs); err != nil {
		_ = os.Remove(abs) // a partial copy is worse than none
		return fmt.Errorf("sqlite: backup to %s: %w", abs, err)
	}
	// VACUUM INTO does not sync its output: make the copy durable.
	f, err = os.Open(abs)
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	return nil
}

// IntegrityCheck runs SQLite's integrity_check and returns its first line,
// "ok" for a sound database.
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	var res string
	err := s.r.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res)
	return res, err
}
