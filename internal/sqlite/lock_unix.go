//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// LockServer claims the data folder for one server. Admin commands share
// the file with a server, but two servers on one file would each count
// only their own events, and the writer's memory of products assumes it is
// the only one that writes them. The lock is the kernel's (flock), so it
// goes with the process, even on SIGKILL. Release it when the server stops.
func (s *Store) LockServer() (release func(), err error) {
	name := filepath.Join(filepath.Dir(s.path), "serve.lock")
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil { // whatever the umask
		f.Close()
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another svc serve uses the data folder %s: one server per folder (run more nodes on PostgreSQL)", filepath.Dir(s.path))
		}
		return nil, fmt.Errorf("lock the data folder: %w", err)
	}
	return func() { f.Close() }, nil
}
