//go:build !unix

package sqlite

// LockServer does nothing where flock is not available: run one server
// per data folder.
func (s *Store) LockServer() (release func(), err error) { return func() {}, nil }
