package httpapi_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/httpapi"
)

// 100 connections from 50 addresses each send a 2 MB body with a bogus
// signature, and never its last byte: the server holds at most its budget
// of unverified bytes, and its heap grows by less than 100 MiB (issue 31:
// 65 to 305 MiB RSS, every body read whole before any check).
func TestUnsignedWebhookBodiesAreBounded(t *testing.T) {
	// Not parallel: it measures the whole process's heap.
	f := newFixture(t)
	srv := httpapi.New(f.tracker, f.auth, slog.New(slog.DiscardHandler), httpapi.Options{})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	const conns, size = 100, 2 << 20
	body := bytes.Repeat([]byte("x"), size-1) // shared: the clients add nothing to the heap
	head := fmt.Sprintf("POST /api/connect/shopify/br_open HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nX-Shopify-Topic: orders/create\r\nX-Shopify-Hmac-Sha256: %s\r\n\r\n",
		ts.Listener.Addr(), size, strings.Repeat("A", 43)+"=")

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	for i := range conns {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(1+i%50))}}
		c, err := d.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
		go func() {
			if _, err := c.Write([]byte(head)); err == nil {
				_, _ = c.Write(body) // blocks while the server does not read; ends when closed
			}
		}()
	}
	var peak uint64
	var maxHeld int64
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapAlloc)
		maxHeld = max(maxHeld, httpapi.WebhookBytesHeld(srv))
	}
	grown := (int64(peak) - int64(before.HeapAlloc)) >> 20
	t.Logf("heap grew by %d MiB at most; %d MiB of unverified bodies held at most", grown, maxHeld>>20)
	if maxHeld > httpapi.MaxWebhookBytesInFlight {
		t.Errorf("held %d bytes of unverified bodies, over the budget of %d", maxHeld, httpapi.MaxWebhookBytesInFlight)
	}
	if maxHeld < httpapi.MaxWebhookBytesInFlight/2 {
		t.Errorf("held at most %d bytes: the bodies were not being read", maxHeld)
	}
	if grown >= 100 {
		t.Errorf("the heap grew by %d MiB with %d unsigned bodies of 2 MB in flight", grown, conns)
	}
}
