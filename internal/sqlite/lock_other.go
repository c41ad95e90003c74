//go:build !unix

package sqlite

import "sync"

// LockServer does nothing where flock is not available: run one server
// per data folder.
func (s *Store) LockServer() (release func(), err error) { return func() {}, nil }

// writeGate is nothing where flock is not available: SQLite's busy
// handler alone orders the processes that write the file.
type writeGate struct {
	mu sync.Mutex // as on unix: the process's write transactions, one at a time
}

func openWriteGate(string) (*writeGate, error) { return &writeGate{}, nil }

func (*writeGate) pass(begin func() error) error { return begin() }

func (*writeGate) close() error { return nil }
