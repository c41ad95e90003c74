package httpapi_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/httpapi"
)

// bigOrders is a batch body of orders of the brand, each of lines lines, each
// line a product of its own.
func bigOrders(brand, prefix string, orders, lines int) string {
	var b strings.Builder
	b.WriteString(`{"events":[`)
	for o := range orders {
		if o > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"product-purchase","brand_id":%q,"order":{"order_id":"%s%d","currency":"EUR","items":[`, brand, prefix, o)
		for l := range lines {
			if l > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"product_id":"%s%d-%d","quantity":1}`, prefix, o, l)
		}
		b.WriteString(`]}}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

// A batch carries at most 5,000 order lines in all: one more is a 400
// naming events, and nothing is stored.
func TestBatchLinesBound(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	r := f.do("POST", batchPath, bigOrders("br_open", "x", 11, 455), key...) // 5,005 lines
	if r.status != 400 || !slices.Equal(r.fields(t), []string{"events"}) || !strings.Contains(string(r.body), "5005 order lines") {
		t.Fatalf("5,005 lines: %d %s, want 400 naming events", r.status, r.body)
	}
	if r := f.proof("br_open", "x0-0", "", key...); r.status != 404 {
		t.Errorf("a product of the refused batch: %d %s, want never seen", r.status, r.body)
	}
	res := f.results("br_open", bigOrders("br_open", "y", 10, 500))
	for i, x := range res {
		if x["status"] != "accepted" {
			t.Fatalf("5,000 lines, order %d: %v", i, x)
		}
	}
	if c := f.counts("br_open", "y9-499"); c[2] != 1 {
		t.Errorf("the last line of 5,000: %v", c)
	}
}

// A write whose commit outlasts the server's write timeout is answered all
// the same: the client that is told nothing sends it again.
func TestCommittedWriteIsAnsweredPastTheWriteTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// The server's own handler, without the fixture's contract check,
	// which answers from a recorder.
	srv := httptest.NewUnstartedServer(httpapi.New(f.tracker, f.auth, slog.New(slog.DiscardHandler), httpapi.Options{}).Handler())
	srv.Config.WriteTimeout = time.Millisecond // less than any commit takes
	srv.Start()
	defer srv.Close()
	req, err := http.NewRequest("POST", srv.URL+batchPath, strings.NewReader(bigOrders("br_open", "w", 10, 100)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-svc-Api-Key", f.keys["br_open"])
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("after %s: %v (the answer was cut)", time.Since(start), err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 || bytes.Count(body, []byte(`"accepted"`)) != 10 {
		t.Fatalf("after %s: %d %.200s %v", time.Since(start), res.StatusCode, body, err)
	}
}

// Two brands write at once, one a maximal batch (5,000 lines, each a new
// product): both are stored and counted, and the other brand's views are
// answered meanwhile. Their worst latency is logged for bench/RESULTS.md;
// that they are committed between the batch's slices, not after it, is
// TestBatchDoesNotStallAnotherBrand (internal/tracker).
func TestBatchBesideAnotherBrand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var done atomic.Bool
	var worst time.Duration
	var views, during int
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			finished := done.Load()
			start := time.Now()
			r := f.do("POST", "/api/collect/product-view", view("br_locked", fmt.Sprint("v", i), map[string]any{"session_id": fmt.Sprint("s", i)}),
				"X-svc-Api-Key", f.keys["br_locked"])
			if r.status != 200 {
				t.Errorf("view %d: %d %s", i, r.status, r.body)
				return
			}
			views++
			if finished {
				return
			}
			during++
			worst = max(worst, time.Since(start))
		}
	})
	time.Sleep(10 * time.Millisecond) // the views are under way
	start := time.Now()
	res := f.results("br_open", bigOrders("br_open", "b", 10, 500))
	took := time.Since(start)
	done.Store(true)
	wg.Wait()
	t.Logf("the batch of 5,000 lines took %s; the other brand's %d views meanwhile waited %s at most", took, during, worst)
	for i, x := range res {
		if x["status"] != "accepted" {
			t.Fatalf("order %d: %v", i, x)
		}
	}
	for o := range 10 {
		if c := f.counts("br_open", fmt.Sprintf("b%d-499", o)); c[2] != 1 || c[3] != 1 {
			t.Errorf("order %d's last line: %v", o, c)
		}
	}
	for i := range views {
		if c := f.counts("br_locked", fmt.Sprint("v", i)); c[0] != 1 {
			t.Errorf("view %d: %v", i, c)
		}
	}
}
