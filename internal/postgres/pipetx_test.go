package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres/pgtest"
)

// roundTrips is a TCP proxy in front of the test's server that counts the
// server's ReadyForQuery messages: one ends each round trip of the
// extended protocol (a Sync) and each simple query.
type roundTrips struct {
	ln    net.Listener
	ready atomic.Int64
}

func newRoundTrips(t *testing.T, server string) *roundTrips {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &roundTrips{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", server)
			if err != nil {
				c.Close()
				return
			}
			go func() { io.Copy(s, c); s.Close() }()
			go func() { p.count(c, s); c.Close() }()
		}
	}()
	return p
}

// count copies the server's messages to the client, counting the
// ReadyForQuery ('Z') ones but those that end the pool's pings (an empty
// query, 'I', before them: pgxpool pings a connection idle for over a
// second). Every server message has a type byte and a length (the
// client's startup message has no type, the server's none).
func (p *roundTrips) count(to io.Writer, from io.Reader) {
	head := make([]byte, 5)
	var last byte
	for {
		if _, err := io.ReadFull(from, head); err != nil {
			return
		}
		if head[0] == 'Z' && last != 'I' {
			p.ready.Add(1)
		}
		last = head[0]
		body := int64(binary.BigEndian.Uint32(head[1:])) - 4
		if _, err := to.Write(head); err != nil {
			return
		}
		if _, err := io.CopyN(to, from, body); err != nil {
			return
		}
	}
}

// TestAppendRoundTrips: a group commit of views of known products takes
// three round trips (the look-up with the BEGIN, the inserts that return
// rows, the other inserts and the rollups' writes with the COMMIT), with
// the change feed followed; pgx's Begin and Commit took two more.
func TestAppendRoundTrips(t *testing.T) {
	s, proxy := openCounted(t)
	StopFolds(s) // their round trips on the one connection would count
	before := proxy.ready.Load()
	batch := sessionViews(8, "s1")
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if got := proxy.ready.Load() - before; got != 3 {
		t.Errorf("an Append of 8 views took %d round trips, want 3", got)
	}
	for i, w := range batch {
		if w.Result.Status != svc.StatusAccepted {
			t.Errorf("view %d: %+v", i, w.Result)
		}
	}
	if n := rolledUpViews(t, s); n != 16 {
		t.Errorf("rollups hold %d views, want 16: the writes sent with the COMMIT were lost", n)
	}
}

// TestAppendFailingAtCommit: a write refused by a statement sent with the
// COMMIT (here a trigger refuses its session's rollup row) fails alone, the
// others of its batch stand, and the connection goes back to the pool
// idle, ready for the next batch.
func TestAppendFailingAtCommit(t *testing.T) {
	s, _ := openCounted(t)
	if _, err := s.pool.Exec(ctx, `CREATE FUNCTION refuse_bad() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.session_id = 'bad' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$;
		CREATE TRIGGER refuse_bad BEFORE INSERT ON rollup_sessions FOR EACH ROW EXECUTE FUNCTION refuse_bad()`); err != nil {
		t.Fatal(err)
	}
	good, bad := sessionViews(1, "s2")[0], sessionViews(1, "bad")[0]
	conns := s.pool.Stat().NewConnsCount()
	if err := s.Append(ctx, []*svc.Write{good, bad}); err != nil {
		t.Fatalf("the batch failed: %v", err)
	}
	if n := s.pool.Stat().NewConnsCount() - conns; n != 0 {
		t.Errorf("%d connections opened again: the failed transaction's was left in it, and closed", n)
	}
	if code := svc.ErrorCode(bad.Result.Err); code != svc.EINTERNAL {
		t.Errorf("the refused write: %+v, want an error %q", bad.Result, svc.EINTERNAL)
	}
	if r := good.Result; r.Err != nil || r.Status != svc.StatusAccepted {
		t.Errorf("the good write: %+v, want accepted", r)
	}
	next := sessionViews(1, "s3")
	if err := s.Append(ctx, next); err != nil || next[0].Result.Status != svc.StatusAccepted {
		t.Fatalf("the next batch: %v, %+v", err, next[0].Result)
	}
	if n := rolledUpViews(t, s); n != 10 {
		t.Errorf("rollups hold %d views, want 10 (8 before, the good write, the next)", n)
	}
}

var ctx = context.Background()

// openCounted opens a store of one connection through a roundTrips proxy,
// follows its change feed as a server does, and registers 8 products.
func openCounted(t *testing.T) (*Store, *roundTrips) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newRoundTrips(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	q := u.Query()
	q.Set("pool_max_conns", "1")
	u.RawQuery = q.Encode()
	s, err := Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	now := time.Now()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadSnapshot(ctx, func(svc.EventReader) error { return nil }); err != nil { // follows the feed
		t.Fatal(err)
	}
	if err := s.Append(ctx, sessionViews(8, "s1")); err != nil { // the products, registered
		t.Fatal(err)
	}
	return s, proxy
}

var viewNumber atomic.Int64

// sessionViews returns views of products p0 to p(k-1) in the session.
func sessionViews(k int, session string) []*svc.Write {
	now := time.Now()
	ws := make([]*svc.Write, k)
	for i := range ws {
		ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", i)},
			Context: svc.ViewContext{SessionID: &session}}
		ev.Meta = svc.EventMeta{EventID: fmt.Sprintf("00000000-0000-7000-8000-%012d", viewNumber.Add(1)), Time: now, ReceivedAt: now}
		ws[i] = &svc.Write{View: ev, MayRegister: true}
	}
	return ws
}

func rolledUpViews(t *testing.T, s *Store) int64 {
	var n int64
	if err := s.pool.QueryRow(ctx, "SELECT coalesce(sum(views), 0) FROM rollup_hours WHERE product <> 0").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCommitAfterCallbacks: writes sent with the COMMIT whose callback
// fails (as a raced product's look-up does) must leave nothing committed
// and say so, since Append then decides the batch again: such writes go
// in a round trip before the COMMIT.
func TestCommitAfterCallbacks(t *testing.T) {
	s, err := Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.pool.Exec(ctx, "CREATE TABLE pipe_rows (n int)"); err != nil {
		t.Fatal(err)
	}
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx := &pipeTx{conn: c.Conn()}
	last := &pgx.Batch{}
	last.Queue("INSERT INTO pipe_rows VALUES (1) RETURNING n").QueryRow(func(pgx.Row) error { return errProductRaced })
	tx.commitWith(last)
	err = tx.commit(ctx)
	tx.rollback(ctx)
	c.Release()
	var body bodyError
	if !errors.Is(err, errProductRaced) || !errors.As(err, &body) {
		t.Errorf("commit: %v, want the callback's error as a bodyError", err)
	}
	var n int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM pipe_rows").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows committed (%v), want none", n, err)
	}
}
