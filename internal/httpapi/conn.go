package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/metrics"
)

// ConnLimits are the limits Listener applies to connections.
type ConnLimits struct {
	// PerAddress is how many connections one client address (an IPv6
	// /64) may hold open at once; 0 is no limit. Trusted proxies are
	// exempt: many clients come through each.
	PerAddress     int
	TrustedProxies []netip.Prefix
}

// Listener wraps the listener the API is served on, for what happens
// before a request reaches a handler:
//
//   - A client address over ConnLimits.PerAddress open connections gets
//     429 rate_limited and its new connection is closed.
//   - The errors net/http answers by itself, before any handler runs (431
//     for headers over http.Server.MaxHeaderBytes, 400 for a malformed
//     request such as two Content-Length headers, 501 for an unknown
//     Transfer-Encoding), are rewritten as problem+json with the security
//     headers of every other answer. net/http has no hook for them: it
//     writes a fixed text/plain answer to the connection, which is what
//     is recognised here (docs/security.md).
func Listener(ln net.Listener, lim ConnLimits, m *metrics.Metrics) net.Listener {
	l := &listener{Listener: ln, lim: lim, open: make(map[netip.Addr]int)}
	m.Gauge("svc_http_connections_open", "HTTP connections open on the API listener.", func() float64 { return float64(l.total.Load()) })
	m.CounterFunc("svc_http_connections_refused_total", "Connections closed at once because their client address held --max-conns-per-address already.",
		func() float64 { return float64(l.refused.Load()) })
	return l
}

type listener struct {
	net.Listener
	lim     ConnLimits
	mu      sync.Mutex
	open    map[netip.Addr]int // by client address, when limited
	total   atomic.Int64
	refused atomic.Int64
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr, limited := l.limitedAddr(c)
		if limited {
			l.mu.Lock()
			over := l.open[addr] >= l.lim.PerAddress
			if !over {
				l.open[addr]++
			}
			l.mu.Unlock()
			if over {
				l.refused.Add(1)
				go refuseConn(c, l.lim.PerAddress)
				continue
			}
		}
		l.total.Add(1)
		return &conn{Conn: c, l: l, addr: addr, limited: limited}, nil
	}
}

// limitedAddr returns the client address of c and whether the per-address
// limit applies to it.
func (l *listener) limitedAddr(c net.Conn) (netip.Addr, bool) {
	if l.lim.PerAddress <= 0 {
		return netip.Addr{}, false
	}
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return netip.Addr{}, false
	}
	addr := ap.Addr().Unmap()
	if trusted(l.lim.TrustedProxies, addr) {
		return addr, false
	}
	return subscriber(addr), true
}

func (l *listener) release(c *conn) {
	l.total.Add(-1)
	if !c.limited {
		return
	}
	l.mu.Lock()
	if l.open[c.addr]--; l.open[c.addr] <= 0 {
		delete(l.open, c.addr)
	}
	l.mu.Unlock()
}

// refuseConn answers a connection over the limit and closes it.
func refuseConn(c net.Conn, limit int) {
	defer c.Close()
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.Write(problemResponse(http.StatusTooManyRequests, svc.ERATELIMIT,
		fmt.Sprintf("this address holds %d connections already (--max-conns-per-address); close idle ones or send through fewer", limit), "1"))
}

// conn releases its place at Close, and rewrites net/http's own errors.
type conn struct {
	net.Conn
	l       *listener
	addr    netip.Addr
	limited bool
	once    sync.Once
}

func (c *conn) Close() error {
	c.once.Do(func() { c.l.release(c) })
	return c.Conn.Close()
}

// CloseWrite lets net/http half-close before it hangs up after a 431, so
// that the client reads the answer rather than a reset.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *conn) Write(b []byte) (int, error) {
	if p, ok := rewriteOwnError(b); ok {
		if _, err := c.Conn.Write(p); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// netHTTPErrorHeaders follow the status line of every error net/http
// answers by itself (net/http's conn.serve). An answer of a handler never
// has them there: net/http sorts its headers and adds Date.
const netHTTPErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// rewriteOwnError returns net/http's own error answer b as problem+json,
// and false when b is not one.
func rewriteOwnError(b []byte) ([]byte, bool) {
	const proto = "HTTP/1.1 "
	if !bytes.HasPrefix(b, []byte(proto)) {
		return nil, false
	}
	end := bytes.Index(b, []byte("\r\n"))
	if end < len(proto)+3 || !bytes.HasPrefix(b[end:], []byte(netHTTPErrorHeaders)) {
		return nil, false
	}
	code, err := strconv.Atoi(string(b[len(proto) : len(proto)+3]))
	if err != nil || code < 400 || code > 599 {
		return nil, false
	}
	detail := string(b[end+len(netHTTPErrorHeaders):])
	if len(detail) > 4 && detail[3] == ' ' && detail[:3] == strconv.Itoa(code) {
		detail = detail[4:] // "400 Bad Request: ..." -> "Bad Request: ..."
	}
	return problemResponse(code, svc.EINVALID, "the request was refused before it was read: "+detail, ""), true
}

// problemResponse is a whole HTTP/1.1 answer that closes the connection:
// a problem of the code with the status, and the security headers.
func problemResponse(status int, code, detail, retryAfter string) []byte {
	body, _ := json.Marshal(Problem{Type: ProblemTypeBase + code, Title: http.StatusText(status), Status: status, Detail: detail})
	body = append(body, '\n')
	hd := http.Header{}
	setSecurityHeaders(hd, false)
	hd.Set("Content-Type", "application/problem+json")
	hd.Set("Connection", "close")
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	if retryAfter != "" {
		hd.Set("Retry-After", retryAfter)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	_ = hd.Write(&b) // a bytes.Buffer does not fail
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}
