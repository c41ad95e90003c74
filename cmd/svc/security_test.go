package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// syncBuffer is a log sink written by the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestKeysNeverLogged runs the server with a log line per request and sends
// valid, revoked, unknown and misplaced keys: none of them, nor their
// prefixes, may appear in the logs.
func TestKeysNeverLogged(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	revoked := addKey(t, dir, b.BrandID)
	runCmd(t, "keys", "revoke", "--data", dir, "--brand", b.BrandID, "--key", revoked)
	unknown, _ := svc.NewAPIKey(b.BrandID, time.Now())

	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", dir, "--log-level", "debug", "--log-format", "json"}, noEnv, pw, logs)
		pw.Close()
	}()
	defer func() { cancel(); <-done }()
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	base := ""
	testwait.Eventually(t, func() error {
		if base = listeningURL(logs.String()); base == "" {
			return fmt.Errorf("no listening line in %q", logs.String())
		}
		return nil
	})

	secrets := []string{b.APIKey, revoked, unknown}
	for _, key := range secrets {
		post(base+"/api/collect/product-view", key, "idem-"+key[:5], viewBody(b.BrandID, "p1"))
		post(base+"/api/collect/product-purchase", key, "", purchaseBody(b.BrandID, "o-"+key[3:9], "p1"))
		post(base+"/api/collect/product-view", key, "", map[string]any{"brand_id": b.BrandID}) // a 400
		req, _ := http.NewRequest("GET", base+"/api/svc/product-proof?brand_id="+b.BrandID+"&product_id=p1&api_key="+key, nil)
		req.Header.Set("X-svc-Api-Key", key)
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("User-Agent", browserUA)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}
	cancel()
	<-done
	done <- nil
	out := logs.String()
	if n := strings.Count(out, `"msg":"request"`); n < 4*len(secrets) {
		t.Fatalf("%d request lines logged, want at least %d: the debug log is not on\n%s", n, 4*len(secrets), out)
	}
	for _, key := range secrets {
		if strings.Contains(out, key[:svc.KeyPrefixLen]) || strings.Contains(out, key[svc.KeyPrefixLen:svc.KeyPrefixLen+8]) {
			t.Fatalf("key material of %s… in the logs:\n%s", key[:svc.KeyPrefixLen], out)
		}
	}
}

func listeningURL(logs string) string {
	_, rest, ok := strings.Cut(logs, `"msg":"listening","addr":"`)
	if !ok {
		return ""
	}
	addr, _, _ := strings.Cut(rest, `"`)
	return "http://" + addr
}

func addKey(t *testing.T, dir, brand string) string {
	t.Helper()
	out := runCmd(t, "keys", "create", "--data", dir, "--brand", brand)
	f := strings.Fields(out)
	if len(f) < 2 || f[0] != "api_key:" {
		t.Fatalf("keys create: %q", out)
	}
	return f[1]
}

// TestHeaderLimit sends headers around the server's 32 KiB limit.
func TestHeaderLimit(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--data", sqlitetest.Dir(t))
	get := func(size int) int {
		req, _ := http.NewRequest("GET", s.url+"/healthz", nil)
		req.Header.Set("X-Padding", strings.Repeat("a", size))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if st := get(16 << 10); st != 200 {
		t.Fatalf("16 KiB of headers: %d, want 200", st)
	}
	if st := get(64 << 10); st != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("64 KiB of headers: %d, want 431", st)
	}
}
