package postgres_test

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres/pgtest"
)

// proxy forwards connections to PostgreSQL; cut drops them all and refuses
// new ones, as a lost network or a stopped server would.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			down := p.down
			p.mu.Unlock()
			if down {
				c.Close()
				continue
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// TestUnreachableDatabase cuts the store off its database: writes fail
// with EUNAVAILABLE and store nothing, and once the database is back the
// store carries on, its feed bringing what committed meanwhile.
func TestUnreachableDatabase(t *testing.T) {
	direct := pgtest.URL(t)
	u, _ := url.Parse(direct)
	p := newProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	s := open(t, u.String())
	other := open(t, direct)
	br := brand(t, s)
	cur, err := s.ReadSnapshot(ctx, func(svc.EventReader) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, []*svc.Write{view(br, "p1", "")}); err != nil {
		t.Fatal(err)
	}

	p.cut()
	lost := view(br, "p1", "k1")
	if err := s.Append(ctx, []*svc.Write{lost}); svc.ErrorCode(err) != svc.EUNAVAILABLE {
		t.Fatalf("append without a database: %v, want %s", err, svc.EUNAVAILABLE)
	}
	if err := s.Ping(ctx); err == nil {
		t.Fatal("ping without a database")
	}
	if _, err := s.Changes(ctx, cur); err == nil {
		t.Fatal("changes without a database")
	}
	meanwhile := view(br, "p1", "")
	if err := other.Append(ctx, []*svc.Write{meanwhile}); err != nil {
		t.Fatal(err)
	}

	p.restore()
	start := time.Now()
	retry := view(br, "p1", "k1")
	if err := s.Append(ctx, []*svc.Write{retry}); err != nil || retry.Result.Replay {
		t.Fatalf("the retry once the database is back: %+v, %v (%s)", retry.Result, err, time.Since(start))
	}
	ch, err := s.Changes(ctx, cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Writes) != 1 || ch.Writes[0].Result.EventID != meanwhile.Result.EventID {
		t.Fatalf("changes after the outage: %+v, want the other node's view alone", ch.Writes)
	}
	var views int
	_ = other.Views(ctx, time.Now().Add(-time.Hour), func(svc.ViewRecord) error { views++; return nil })
	if views != 3 {
		t.Fatalf("%d views stored, want 3: the one refused during the outage is not", views)
	}
}
