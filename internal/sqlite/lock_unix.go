//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
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

// writeGate takes turns at the write lock with the other processes that
// write the file (svc import, svc forget, a second Store), by flock on
// WriteGateName beside it. SQLite's busy handler polls for the lock with
// sleeps of up to 100 ms, and a server committing without pause took it
// again between two polls: another process waited out its whole busy
// timeout, and failed, beside a busy server. A process holds the gate
// from before its BEGIN IMMEDIATE until it has the lock, so that the
// others wait for their turn at the gate, not at the lock.
type writeGate struct {
	// mu is held by inTx for a whole transaction: the process's writers
	// come to the gate one at a time, once the one before has committed
	// (one waiting for the writer's connection held the gate meanwhile,
	// and flock is per open file, not per goroutine).
	mu sync.Mutex
	f  *os.File
}

func openWriteGate(dir string) (*writeGate, error) {
	f, err := os.OpenFile(filepath.Join(dir, WriteGateName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil { // whatever the umask
		f.Close()
		return nil, err
	}
	return &writeGate{f: f}, nil
}

// pass runs begin while it holds the gate; mu is held.
func (g *writeGate) pass(begin func() error) error {
	for {
		err := syscall.Flock(int(g.f.Fd()), syscall.LOCK_EX)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("sqlite: %s: %w", WriteGateName, err)
		}
	}
	defer syscall.Flock(int(g.f.Fd()), syscall.LOCK_UN)
	return begin()
}

func (g *writeGate) close() error { return g.f.Close() }
