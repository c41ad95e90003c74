// Package sqlite is the embedded store of svc: one SQLite file in WAL mode,
// through the pure-Go driver modernc.org/sqlite, so the binary needs no cgo.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// FileName is the database file inside the data folder.
const FileName = "svc.db"

// Store is the SQLite store. It is safe for concurrent use; writes go
// through one connection, as SQLite allows one writer at a time anyway.
type Store struct {
	*sqlstore.Store // the queries both stores share

	reads // on r
	path  string
	w     *sql.DB // one connection: every write transaction
	gate  *writeGate
	r     *sql.DB // a pool for reads, which WAL lets run beside the writer

	stopCheckpoints chan struct{}
	stopOnce        sync.Once
	checkpoints     chan struct{} // closed when the checkpointer has stopped

	readDSN  string // of r's connections
	feed     feedState
	stmts    stmtCache // of the write path, on w
	products productCache
	hours    hourCache // of Append's fast path; emptied by any other write
	// productsMu orders the writes of products with the updates of the
	// cache: a commit and the cache change it makes happen as one.
	productsMu sync.Mutex
	// writerVersion is the writer's data_version at its last Append
	// (othersWrote); guarded by productsMu.
	writerVersion int64
}

var _ svc.Store = (*Store)(nil)

// WriteGateName is the write gate's file in the data folder (writeGate):
// empty, it stays after a close, as serve.lock does.
const WriteGateName = "writer.lock"

// Open opens (creating if needed) the store in the folder dir and migrates
// it to the schema this binary knows.
func Open(ctx context.Context, dir string) (*Store, error) {
	path := filepath.Join(dir, FileName)
	if err := private(dir, path); err != nil {
		return nil, fmt.Errorf("sqlite: data folder: %w", err)
	}
	// synchronous(FULL): in WAL mode only FULL fsyncs the log at each
	// commit, which is what makes an acknowledged event survive a power cut.
	// wal_autocheckpoint: the log is copied into the database by
	// checkpointLoop, beside the writer; the writer does it only if that
	// falls far behind.
	dsn := func(txlock string, extra ...string) string {
		q := url.Values{}
		for _, p := range append([]string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)",
			fmt.Sprintf("wal_autocheckpoint(%d)", backstopCheckpointPages)}, extra...) {
			q.Add("_pragma", p)
		}
		q.Set("_txlock", txlock)
		return "file:" + path + "?" + q.Encode()
	}
	// temp_store(MEMORY) on the writer: a statement that may fail halfway
	// through a transaction (the rollups' multi-row upserts) keeps a
	// statement journal of the pages it changes, which past 64 KiB went to
	// a temporary file: a write call a page, a tenth of collect's CPU on
	// the single writer (bench/RESULTS.md, Findings). It holds no more
	// than the pages one statement changes; the readers' sorts stay on
	// disk.
	w, err := sql.Open("sqlite", dsn("immediate", "temp_store(MEMORY)"))
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	r, err := sql.Open("sqlite", dsn("deferred"))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	r.SetMaxOpenConns(4)
	gate, err := openWriteGate(dir)
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	s := &Store{reads: reads{r}, path: path, w: w, r: r, gate: gate, readDSN: dsn("deferred")}
	s.Store = s.shared()
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if s.stmts, err = prepareAll(ctx, w, writeQueries); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: prepare: %w", err)
	}
	s.stopCheckpoints, s.checkpoints = make(chan struct{}), make(chan struct{})
	go s.checkpointLoop()
	return s, nil
}

// private makes the data folder 0700 and the database file 0600 before
// SQLite opens it, whatever the umask: the events name shoppers' sessions.
// SQLite gives the log and the shared-memory file the database file's
// mode; the modes of files left by an older version are set right too.
func private(dir, path string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Chmod(path+suffix, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

const (
	// checkpointEvery is how often checkpointLoop copies the log into the
	// database: about a thousand frames at the highest collect rates.
	checkpointEvery = 500 * time.Millisecond
	// backstopCheckpointPages (16 MiB of log) is where the writer
	// checkpoints at commit itself, as SQLite does by default at 1,000.
	backstopCheckpointPages = 4000
)

// checkpointLoop checkpoints the log from a reader connection, so that
// copying pages into the database and its fsync do not hold up a commit:
// at SQLite's default the commit that crossed 1,000 pages of log did it,
// and every writer waited for that one.
func (s *Store) checkpointLoop() {
	defer close(s.checkpoints)
	tick := time.NewTicker(checkpointEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.stopCheckpoints:
			return
		case <-tick.C:
			_, _, _ = s.checkpoint(context.Background()) // the next tick tries again
		}
	}
}

// checkpoint copies what it can of the log into the database, waiting for
// no reader or writer (PASSIVE). Once all of the log is copied, the next
// write transaction starts the log over. It returns the frames in the log
// and the frames copied.
func (s *Store) checkpoint(ctx context.Context) (frames, copied int, err error) {
	var busy int
	err = s.r.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, copied, err
}

func (s *Store) migrate(ctx context.Context) error {
	// A migration may rewrite a whole table in one statement: its
	// statement journal goes to a file, as by default, rather than into
	// memory (the writer's setting, Open, is for its small statements).
	if _, err := s.w.ExecContext(ctx, "PRAGMA temp_store = DEFAULT"); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	defer s.w.ExecContext(context.WithoutCancel(ctx), "PRAGMA temp_store = MEMORY")
	dir, _ := fs.Sub(migrations, "migrations") // embedded above: cannot fail
	p, err := goose.NewProvider(goose.DialectSQLite3, s.w, dir)
	if err != nil {
		return fmt.Errorf("sqlite: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("sqlite: migrate %s: %w", s.path, err)
	}
	return s.moveViewRows(ctx)
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.r.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// CheckWrite commits checkWriteBytes to the log, as a batch of events
// would: after a full disk failed a commit, a commit of one page may still
// fit in the log's slack while the next batch does not. The disk must have
// that much free, too: once a checkpoint has copied the log, SQLite writes
// it again from its start, so a check may fit in the log's file on a full
// disk that fails the next batch to outgrow it.
func (s *Store) CheckWrite(ctx context.Context) error {
	if free, ok := diskFree(filepath.Dir(s.path)); ok && free < checkWriteBytes {
		return fmt.Errorf("sqlite: %d bytes free on the data folder's disk", free)
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE write_check SET payload = randomblob(?)", checkWriteBytes)
		return err
	})
}

const checkWriteBytes = 256 << 10

// Close closes the database; the WAL is checkpointed by the last close.
func (s *Store) Close() error {
	if s.stopCheckpoints != nil {
		s.stopOnce.Do(func() { close(s.stopCheckpoints) })
		<-s.checkpoints
	}
	return errors.Join(s.closeFeed(), s.stmts.close(), s.r.Close(), s.w.Close(), s.gate.close())
}

// inTx runs fn in a write transaction and commits it. The process's
// write transactions run one at a time (writeGate.mu), and each takes its
// turn with the other processes' at the gate.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	var tx *sql.Tx
	err := s.gate.pass(func() (err error) {
		tx, err = s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the write lock
		return err
	})
	if err != nil {
		return err
	}
	if !keepsHours(ctx) {
		s.hours.clear() // it may change hour rows: none is stale once it holds the writer
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// eachRow runs a query on the read pool and calls scan for every row.
func (s *Store) eachRow(ctx context.Context, scan func(*sql.Rows) error, query string, args ...any) error {
	return eachRowOf(ctx, s.r, scan, query, args...)
}
