package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// migratedFile is the database file of a store migrated once per test
// binary and closed: what sqlitetest.Dir copies, for this package's own
// tests, which cannot import sqlitetest (it imports this package).
var migratedFile = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "svc-sqlite-test-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	s, err := Open(context.Background(), dir)
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, FileName))
})

// migratedDir is a new temporary folder holding a migrated, empty store,
// in a fraction of the CPU a migration costs under the race detector.
func migratedDir(t *testing.T) string {
	t.Helper()
	db, err := migratedFile()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), db, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}
