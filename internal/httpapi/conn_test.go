package httpapi_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/testwait"
)

// serveListener serves h on httpapi.Listener with the limits, as svc
// serve does, and returns the address.
func serveListener(t *testing.T, lim httpapi.ConnLimits, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, MaxHeaderBytes: 32 << 10, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(httpapi.Listener(ln, lim, nil)) }()
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// raw sends a request as bytes on a new connection and reads the answer.
func raw(t *testing.T, addr, request string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// An outside probe found that a 40 KB header got 431 text/plain with none of our
// security headers, two Content-Length headers a bare 400, and
// Transfer-Encoding: xchunked a bare 501. They are problem+json now.
func TestNetHTTPErrorsAreProblems(t *testing.T) {
	t.Parallel()
	// The handler's own text/plain answer with Connection: close must
	// pass untouched.
	addr := serveListener(t, httpapi.ConnLimits{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Connection", "close")
		_, _ = io.WriteString(w, "handler")
	}))
	tests := []struct {
		name, request string
		status        int
	}{
		{"40 KB header", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\n\r\n", 431},
		{"two Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc", 400},
		{"unknown Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n", 501},
		{"no Host", "GET / HTTP/1.1\r\n\r\n", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := raw(t, addr, tt.request)
			var p httpapi.Problem
			if err := json.Unmarshal(body, &p); err != nil || res.StatusCode != tt.status || p.Status != tt.status ||
				res.Header.Get("Content-Type") != "application/problem+json" || res.Header.Get("X-Content-Type-Options") != "nosniff" ||
				res.Header.Get("Content-Security-Policy") == "" || !strings.HasSuffix(p.Type, "#invalid") {
				t.Errorf("%d %v %s, want a %d problem+json with the security headers", res.StatusCode, res.Header, body, tt.status)
			}
		})
	}
	res, body := raw(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if res.StatusCode != 200 || string(body) != "handler" || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("the handler's own answer: %d %v %q", res.StatusCode, res.Header, body)
	}
}

// An outside probe found that 18,700 idle connections from one address pushed
// the memory to 748 MB. An address holds at most PerAddress connections.
func TestConnectionsPerAddress(t *testing.T) {
	t.Parallel()
	addr := serveListener(t, httpapi.ConnLimits{PerAddress: 2}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ask := func(c net.Conn) (int, error) {
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return 0, err
		}
		_ = c.SetReadDeadline(time.Now().Add(testwait.Timeout))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0, err
		}
		res.Body.Close()
		return res.StatusCode, nil
	}
	a, b := dial(), dial()
	defer a.Close()
	defer b.Close()
	for _, c := range []net.Conn{a, b} {
		if status, err := ask(c); err != nil || status != 200 {
			t.Fatalf("a connection within the limit: %d %v", status, err)
		}
	}
	third := dial()
	defer third.Close()
	_ = third.SetReadDeadline(time.Now().Add(testwait.Timeout))
	res, err := http.ReadResponse(bufio.NewReader(third), nil)
	if err != nil {
		t.Fatalf("the third connection: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != 429 || res.Header.Get("Content-Type") != "application/problem+json" || res.Header.Get("Retry-After") == "" {
		t.Errorf("the third connection: %d %v, want 429 problem+json with Retry-After", res.StatusCode, res.Header)
	}
	a.Close()
	testwait.Eventually(t, func() error {
		c := dial()
		defer c.Close()
		status, err := ask(c)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if status != 200 {
			return fmt.Errorf("a connection after one closed: %d %v", status, err)
		}
		return nil
	})
}
