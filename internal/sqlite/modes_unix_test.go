//go:build unix

package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
)

// The outside probe found that with umask 022 the database, its log and backups
// were readable by everyone. Every file the store writes is 0600 and its
// folder 0700, whatever the umask, and files an older version left behind
// are set right when the store opens.
func TestFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0) // the loosest: a mode that relied on the umask shows
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	// A database an older version left readable by everyone.
	if err := os.WriteFile(filepath.Join(dir, sqlite.FileName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	release, err := s.LockServer()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, []*svc.Write{view("p1", "k1")}); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(dir, "backup.db")
	if err := s.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{dir: 0o700}
	for _, name := range []string{sqlite.FileName, sqlite.FileName + "-wal", sqlite.FileName + "-shm", "serve.lock", sqlite.WriteGateName, "backup.db"} {
		want[filepath.Join(dir, name)] = 0o600
	}
	for path, mode := range want {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %v, want %v", filepath.Base(path), got, mode)
		}
	}
}
