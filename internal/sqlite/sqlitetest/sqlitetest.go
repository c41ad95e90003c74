// Package sqlitetest gives each test a data folder whose embedded store is
// already migrated: a copy of one store migrated once per test binary.
// Migrating a new file costs over a second of CPU under the race detector,
// about six times what opening a migrated one costs, and most tests start
// from an empty store.
package sqlitetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/svc-project/svc/internal/sqlite"
)

// migrated is the database file of a store that sqlite.Open migrated and
// Close checkpointed: what every new store holds before its first write.
var migrated = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "svc-sqlitetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	s, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	// Only the database file is copied: a log left beside it would hold
	// part of the migrations (the write gate's empty file stays, and is
	// made again by the next Open).
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Name() != sqlite.FileName && e.Name() != sqlite.WriteGateName {
			return nil, fmt.Errorf("sqlitetest: a closed store left %s beside %s", e.Name(), sqlite.FileName)
		}
	}
	return os.ReadFile(filepath.Join(dir, sqlite.FileName))
})

// Dir returns a new temporary folder (t.TempDir) holding a migrated, empty
// store: what sqlite.Open leaves in a new folder, in a fraction of the
// time. Pass it to sqlite.Open or to svc's --data.
func Dir(t testing.TB) string {
	t.Helper()
	db, err := migrated()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, sqlite.FileName), db, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}
