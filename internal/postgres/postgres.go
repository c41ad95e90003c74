// Package postgres is the store svc nodes share when one machine is not
// enough: PostgreSQL through pgx, with the embedded store's semantics, and a
// change feed that brings each node what the others committed.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is the PostgreSQL store. It is safe for concurrent use, and any
// number of Store values, in any number of processes, may share a database.
type Store struct {
	*sqlstore.Store // the queries both stores share

	pool *pgxpool.Pool
	own  ownTxs // this Store's event transactions, which the feed skips

	stopFolds chan struct{}
	folded    chan struct{} // closed when the folds have stopped
}

var (
	_ svc.Store      = (*Store)(nil)
	_ svc.ChangeFeed = (*Store)(nil)
)

// Open connects to the database at url (postgres://user@host/db?...) and
// migrates it to the schema this binary knows. Nodes starting together
// migrate one after the other, under an advisory lock.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// Without a bound, a connection to a host that drops packets
		// waits minutes; connect_timeout in the URL overrides this.
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Store{pool: pool}
	s.Store = s.shared()
	if err := s.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %s: %w", describe(cfg), err)
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.moveViewRows(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	s.stopFolds, s.folded = make(chan struct{}), make(chan struct{})
	go s.foldLoop()
	return s, nil
}

// foldLoop adds the queued viewers to their sketches every foldEvery
// until Close.
func (s *Store) foldLoop() {
	defer close(s.folded)
	tick := time.NewTicker(foldEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.stopFolds:
			return
		case <-tick.C:
			if err := s.FoldViewers(context.Background()); err != nil { // they stay queued for the next try
				slog.Warn("postgres: fold of the queued viewers (rollup_viewers) failed", "err", err)
			}
		}
	}
}

// describe names the database without the password, for errors.
func describe(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	return fmt.Sprintf("database %q on %s:%d as %q", c.Database, c.Host, c.Port, c.User)
}

func (s *Store) migrate(ctx context.Context) error {
	dir, _ := fs.Sub(migrations, "migrations") // embedded above: cannot fail
	// Probe the lock every second for up to five minutes: a node that
	// starts beside a migrating one waits for it, then finds nothing to do.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return fmt.Errorf("postgres: migrations: %w", err)
	}
	db := stdlib.OpenDBFromPool(s.pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, dir, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("postgres: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	return nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.pool.Ping(ctx)
}

// CheckWrite rewrites the erasure version as it is: a new row version,
// written to the log as every append is.
func (s *Store) CheckWrite(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, "UPDATE erasure_version SET version = version")
	return err
}

// Close closes the connections.
func (s *Store) Close() error {
	s.stopFolding()
	s.pool.Close()
	return nil
}

// stopFolding stops foldLoop and waits for it; the queued viewers stay
// for the next fold, of any node.
func (s *Store) stopFolding() {
	if s.stopFolds != nil {
		close(s.stopFolds)
		<-s.folded
		s.stopFolds = nil
	}
}

// querier is what the pool and a transaction have in common.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// inTx runs fn in a transaction and commits it.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func optMillis(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	ms := millis(*t)
	return &ms
}

// eachRow runs a query and calls scan for every row.
func eachRow(ctx context.Context, q querier, scan func(pgx.Rows) error, query string, args ...any) error {
	return sqlstore.Each(ctx, pgQ{q}, func(r sqlstore.Row) error { return scan(r.(pgx.Rows)) }, query, args...)
}

// isStatementError tells an error the server reported about a statement
// from a lost connection: after the first, a batch can be retried write by
// write; after the second, nobody knows what was committed.
func isStatementError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr)
}
