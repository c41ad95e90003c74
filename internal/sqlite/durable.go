package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"

	"github.com/svc-project/svc"
)

// Durability. The writer's connection runs with synchronous=NORMAL: a
// commit writes its frames to the log (the -wal file) and returns without
// waiting for the disk. Then it is visible and survives the process dying,
// as the kernel holds the pages, but not a power cut. SyncCommitted makes
// it durable by syncing the log itself, outside SQLite's write lock, so
// that the group commit writes the next batch during the fsync (see
// svc.CommitSyncer). Checkpoints still sync the log before they copy it
// into the database and the database after, as SQLite does at NORMAL,
// so the log is never started over before what it held is on disk.

var _ svc.CommitSyncer = (*Store)(nil)

// logSync makes the log durable. A failed sync is kept: from then on the
// store refuses writes.
type logSync struct {
	path     string               // the -wal file beside the database
	syncFile func(*os.File) error // syncData; tests watch or fail it

	mu  sync.Mutex // one sync at a time: a second adds nothing but waiting
	err error
}

// sync flushes the log's data to the disk. The file is opened for each
// sync rather than held: SQLite deletes and makes it anew when its last
// connection closes, and a held descriptor would sync the deleted one.
func (l *logSync) sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	f, err := os.Open(l.path)
	if err == nil {
		err = l.syncFile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		// The cause is wrapped, not shown: the answer logs it, the client
		// reads the message.
		l.err = &svc.Error{Code: svc.EUNAVAILABLE, Err: fmt.Errorf("sync %s: %w", l.path, err),
			Message: "the store could not make its log durable and takes no more writes until svc is restarted"}
	}
	return l.err
}

// failed returns the error of a sync that failed, or nil.
func (l *logSync) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// SyncCommitted makes every committed transaction durable.
func (s *Store) SyncCommitted() error { return s.log.sync() }

// Append writes a batch and returns once it is durable.
func (s *Store) Append(ctx context.Context, batch []*svc.Write) error {
	if err := s.Commit(ctx, batch); err != nil {
		return err
	}
	return s.SyncCommitted()
}

// inTx runs fn in a write transaction, commits it and makes it durable.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	if err := s.commitTx(ctx, fn); err != nil {
		return err
	}
	return s.SyncCommitted()
}

// commitTx runs fn in a write transaction and commits it, not yet durable.
func (s *Store) commitTx(ctx context.Context, fn func(*sql.Tx) error) error {
	if err := s.log.failed(); err != nil {
		return err
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	return nil
}
