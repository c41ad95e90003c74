package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// startChild runs svc serve on the data folder as a separate process.
func startChild(t *testing.T, dir string) (*exec.Cmd, string) {
	t.Helper()
	return startProcess(t, "--data", dir)
}

// startProcess runs svc serve with the store flags as a separate process
// (this test binary, see TestMain), so that it can be killed with SIGKILL.
func startProcess(t *testing.T, storeFlags ...string) (*exec.Cmd, string) {
	t.Helper()
	// No per-address limit: every client here is 127.0.0.1.
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--rate-limit", "0"}, storeFlags...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SVC_TEST_RUN_MAIN=1")
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := readURL(t, bufio.NewReader(out))
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return cmd, url
}

// request is one event a client sent, with whether it got a 200.
type request struct {
	purchase bool
	id       string // the Idempotency-Key, and the order id of a purchase
	acked    bool
}

func (r *request) send(base, brand string) bool {
	path, body := "/api/collect/product-view", viewBody(brand, "p1")
	if r.purchase {
		path, body = "/api/collect/product-purchase", purchaseBody(brand, r.id, "p1")
	}
	st, _, err := post(base+path, "", r.id, body)
	return err == nil && st == 200
}

// TestCrashLosesNothingAcknowledged kills the server with SIGKILL while
// clients send, restarts it, and checks that every acknowledged event is
// counted; then it retries the unanswered ones with their idempotency keys
// and checks that every event is counted exactly once.
func TestCrashLosesNothingAcknowledged(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	cmd, base := startChild(t, dir)

	sent := sendUntilKill(t, cmd, 8, 300, func(w, i int) (*request, bool) {
		r := &request{purchase: i%5 == 4, id: fmt.Sprintf("w%d-%d", w, i)}
		r.acked = r.send(base, b.BrandID)
		return r, r.acked
	})

	var views, orders, ackedViews, ackedOrders int
	for _, rs := range sent {
		for _, r := range rs {
			if r.purchase {
				orders++
				if r.acked {
					ackedOrders++
				}
			} else {
				views++
				if r.acked {
					ackedViews++
				}
			}
		}
	}
	_, base = startChild(t, dir)
	m := proof(t, base, b.BrandID, "p1")
	gotViews, gotOrders := int(m["views"].(float64)), int(m["purchases"].(float64))
	t.Logf("sent %d views, %d orders; acknowledged %d, %d; counted after the crash %d, %d", views, orders, ackedViews, ackedOrders, gotViews, gotOrders)
	if gotViews < ackedViews || gotViews > views || gotOrders < ackedOrders || gotOrders > orders {
		t.Fatalf("after the crash: %d views and %d orders counted, but %d and %d were acknowledged (of %d and %d sent)",
			gotViews, gotOrders, ackedViews, ackedOrders, views, orders)
	}
	// Retry what got no answer, and repeat some acknowledged ones: the
	// idempotency keys and order ids make each count once.
	for _, rs := range sent {
		for i, r := range rs {
			if (!r.acked || i%10 == 0) && !r.send(base, b.BrandID) {
				t.Fatalf("retry of %s failed", r.id)
			}
		}
	}
	m = proof(t, base, b.BrandID, "p1")
	if int(m["views"].(float64)) != views || int(m["purchases"].(float64)) != orders {
		t.Fatalf("after retries: %v, want exactly %d views and %d purchases", m, views, orders)
	}
}

// TestGracefulShutdownFlushes cancels the server while clients send and
// checks that every acknowledged event is in the store afterwards.
func TestGracefulShutdownFlushes(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	s := startServer(t, "--data", dir, "--rate-limit", "0")
	var acked atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				st, _, err := post(s.url+"/api/collect/product-view", "", "", viewBody(b.BrandID, "p1"))
				if err != nil || st != 200 {
					return
				}
				acked.Add(1)
			}
		}()
	}
	testwait.Eventually(t, func() error { return atLeast("acknowledged", acked.Load(), 200) })
	s.stop() // as SIGTERM does
	if err := <-s.done; err != nil {
		t.Fatalf("serve returned %v", err)
	}
	s.done <- nil // for the cleanup
	wg.Wait()
	store, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var stored int64
	err = store.Views(context.Background(), time.Now().Add(-time.Hour), func(svc.ViewRecord) error { stored++; return nil })
	if err != nil || stored < acked.Load() {
		t.Fatalf("%d views stored, %d acknowledged (%v)", stored, acked.Load(), err)
	}
}

// atLeast returns an error unless n is at least want.
// sendUntilKill sends from workers goroutines, each calling send with its
// number and a counter until an answer fails, and SIGKILLs the server once
// least requests are acknowledged: no shutdown, no flush. It returns what
// each worker sent, acknowledged or not.
func sendUntilKill[T any](t *testing.T, cmd *exec.Cmd, workers int, least int64, send func(w, i int) (T, bool)) [][]T {
	t.Helper()
	var acked atomic.Int64
	sent := make([][]T, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; ; i++ {
				r, ok := send(w, i)
				sent[w] = append(sent[w], r)
				if !ok {
					return // the server is gone
				}
				acked.Add(1)
			}
		})
	}
	testwait.Eventually(t, func() error { return atLeast("acknowledged", acked.Load(), least) })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Gone before anyone restarts it: a process that is still dying holds
	// the data folder's lock, and the next serve exits at once.
	_, _ = cmd.Process.Wait()
	wg.Wait()
	return sent
}

func atLeast(what string, n, want int64) error {
	if n < want {
		return fmt.Errorf("%s %d, want at least %d", what, n, want)
	}
	return nil
}
