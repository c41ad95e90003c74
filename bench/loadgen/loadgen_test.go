package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/bots"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/signing"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/tracker"
	"github.com/svc-project/svc/internal/wire"
)

func testCatalog(products int) *Catalog {
	brands := make([]Brand, 10)
	for i := range brands {
		brands[i] = Brand{ID: fmt.Sprintf("br_test%07d", i), APIKey: fmt.Sprintf("sk_test%d", i), Domain: fmt.Sprintf("b%d.bench.test", i)}
	}
	return &Catalog{Brands: brands, Products: products, ZipfS: 1.1, Sessions: 1000, Keyed: 0.2, BatchEvents: 20}
}

func TestMixProportions(t *testing.T) {
	g := NewGenerator(testCatalog(100_000), FullMix, 1, "t")
	const n = 200_000
	var got [numEndpoints]int
	keyed := 0
	for range n {
		r := g.Next()
		got[r.Endpoint]++
		if r.Key != "" {
			keyed++
		}
	}
	for e, want := range FullMix {
		share := 100 * float64(got[e]) / n
		if math.Abs(share-want) > 0.5 {
			t.Errorf("%s: %.2f%% of requests, want %.0f%%", Endpoint(e), share, want)
		}
	}
	if share := float64(keyed) / n; math.Abs(share-0.2) > 0.01 {
		t.Errorf("keyed share %.3f, want 0.2", share)
	}
	if g := NewGenerator(testCatalog(10), CollectMix, 1, "t"); func() bool {
		for range 10_000 {
			if g.Next().Endpoint == Proof {
				return true
			}
		}
		return false
	}() {
		t.Error("the collect mix sent a proof read")
	}
}

// Popularity must follow Zipf: a few products get most of the traffic,
// and every rank is a product that exists.
func TestZipfPopularity(t *testing.T) {
	const products = 100_000
	g := NewGenerator(testCatalog(products), ProofMix, 2, "t")
	counts := make([]int, products)
	const n = 500_000
	for range n {
		r := g.product()
		if r < 0 || r >= products {
			t.Fatalf("rank %d outside the catalog", r)
		}
		counts[r]++
	}
	if !(counts[0] > counts[1] && counts[1] > counts[10] && counts[10] > counts[1000]) {
		t.Errorf("popularity does not fall with rank: %d, %d, %d, %d", counts[0], counts[1], counts[10], counts[1000])
	}
	// Go's Zipf draws rank k with weight (1+k)^-s.
	var all, head float64
	for k := range products {
		w := math.Pow(float64(1+k), -1.1)
		all += w
		if k < products/100 {
			head += w
		}
	}
	top := 0
	for _, c := range counts[:products/100] {
		top += c
	}
	if got, want := float64(top)/n, head/all; math.Abs(got-want) > 0.01 {
		t.Errorf("the top 1%% of products got %.1f%% of requests, want %.1f%%", 100*got, 100*want)
	}
	if got, want := float64(counts[0])/n, 1/all; math.Abs(got-want) > 0.005 {
		t.Errorf("rank 0 got %.1f%% of requests, want %.1f%%", 100*got, 100*want)
	}
}

// Every generated body is an event svc accepts: it decodes into svc's own
// types and passes their validation; orders are unique and of one brand.
func TestBodiesAreValidEvents(t *testing.T) {
	cat := testCatalog(1000)
	g := NewGenerator(cat, FullMix, 3, "t")
	orders := map[string]bool{}
	lines := map[int]int{}
	for range 5000 {
		r := g.Next()
		brand := &cat.Brands[0]
		switch r.Endpoint {
		case View:
			var body wire.View
			decodeStrict(t, r.Body, &body)
			ev := body.Event()
			if fe := ev.Validate(); fe != nil {
				t.Fatalf("%s: %v", r.Body, fe)
			}
			brand = brandByID(cat, ev.BrandID)
			if !strings.HasPrefix(*ev.Product.URL, "https://"+brand.Domain+"/") {
				t.Errorf("url %s is not on the brand's domain %s", *ev.Product.URL, brand.Domain)
			}
		case Purchase:
			var body wire.Purchase
			decodeStrict(t, r.Body, &body)
			ev := body.Event()
			if fe := ev.Validate(); fe != nil {
				t.Fatalf("%s: %v", r.Body, fe)
			}
			if orders[ev.Order.OrderID] {
				t.Fatalf("order id %s sent twice", ev.Order.OrderID)
			}
			orders[ev.Order.OrderID] = true
			lines[len(ev.Order.Items)]++
			brand = brandByID(cat, ev.BrandID)
			for _, it := range ev.Order.Items {
				var rank int
				fmt.Sscanf(it.ProductID, "p%d", &rank)
				if cat.Brands[rank%len(cat.Brands)].ID != ev.BrandID {
					t.Errorf("order of brand %s has product %s of another brand", ev.BrandID, it.ProductID)
				}
			}
		case Proof:
			if r.Method != "GET" || r.Body != nil || !strings.Contains(r.Target, "product_id=p") {
				t.Fatalf("proof request %+v", r)
			}
			brand = brandByID(cat, strings.TrimPrefix(strings.Split(strings.Split(r.Target, "?")[1], "&")[0], "brand_id="))
		}
		switch {
		case r.Key != "" && (r.Key != brand.APIKey || r.Origin != ""):
			t.Errorf("keyed request %+v: want the brand's key and no Origin", r)
		case r.Key == "" && r.Origin != "https://"+brand.Domain:
			t.Errorf("anonymous request with Origin %q, want the brand's domain %s", r.Origin, brand.Domain)
		}
	}
	for n := 1; n <= 3; n++ {
		if lines[n] == 0 {
			t.Errorf("no order of %d lines in %v", n, lines)
		}
	}
	if len(lines) != 3 {
		t.Errorf("orders by lines: %v, want 1 to 3 only", lines)
	}
}

// A batch carries BatchEvents views and purchases of one brand, each the
// single endpoint's body with its type, in the collect mix's shares; it is
// always keyed, and no order id repeats across batches.
func TestBatchBodies(t *testing.T) {
	cat := testCatalog(1000)
	g := NewGenerator(cat, BatchMix, 4, "t")
	orders := map[string]bool{}
	var kinds [numEndpoints]int
	for range 500 {
		r := g.Next()
		if r.Endpoint != Batch || r.Target != "/api/collect/batch" || r.Method != "POST" || r.Origin != "" {
			t.Fatalf("batch request %+v", r)
		}
		var batch struct{ Events []json.RawMessage }
		decodeStrict(t, r.Body, &batch)
		if len(batch.Events) != cat.BatchEvents {
			t.Fatalf("%d events in a batch, want %d", len(batch.Events), cat.BatchEvents)
		}
		var brand string
		for _, raw := range batch.Events {
			var head struct {
				Type    string `json:"type"`
				BrandID string `json:"brand_id"`
			}
			if err := json.Unmarshal(raw, &head); err != nil {
				t.Fatal(err)
			}
			if brand == "" {
				brand = head.BrandID
			}
			if head.BrandID != brand {
				t.Fatalf("a batch of brands %s and %s", brand, head.BrandID)
			}
			// The event is the single endpoint's body once its type is gone.
			var members map[string]json.RawMessage
			if err := json.Unmarshal(raw, &members); err != nil {
				t.Fatal(err)
			}
			delete(members, "type")
			body, _ := json.Marshal(members)
			switch head.Type {
			case "product-view":
				kinds[View]++
				var view wire.View
				decodeStrict(t, body, &view)
				if fe := view.Event().Validate(); fe != nil {
					t.Fatalf("%s: %v", raw, fe)
				}
			case "product-purchase":
				kinds[Purchase]++
				var purchase wire.Purchase
				decodeStrict(t, body, &purchase)
				ev := purchase.Event()
				if fe := ev.Validate(); fe != nil {
					t.Fatalf("%s: %v", raw, fe)
				}
				if orders[ev.Order.OrderID] {
					t.Fatalf("order id %s sent twice", ev.Order.OrderID)
				}
				orders[ev.Order.OrderID] = true
			default:
				t.Fatalf("event of type %q", head.Type)
			}
		}
		if r.Key != brandByID(cat, brand).APIKey {
			t.Fatalf("batch of brand %s sent with key %q", brand, r.Key)
		}
	}
	if share := float64(kinds[Purchase]) / float64(kinds[View]+kinds[Purchase]); math.Abs(share-2.0/82) > 0.005 {
		t.Errorf("purchases are %.3f of the events, want %.3f", share, 2.0/82)
	}
}

// viewRequest is one valid view, as the durable baseline tests send it.
func viewRequest(t *testing.T) Request {
	t.Helper()
	body, err := json.Marshal(wire.View{BrandID: "br_1", Product: wire.ViewProduct{ProductID: "p1"}})
	if err != nil {
		t.Fatal(err)
	}
	return Request{Method: "POST", Target: View.Path(), Body: body}
}

func decodeStrict(t *testing.T, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
}

func brandByID(cat *Catalog, id string) *Brand {
	for i := range cat.Brands {
		if cat.Brands[i].ID == id {
			return &cat.Brands[i]
		}
	}
	panic("unknown brand " + id)
}

func TestFormatting(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 999.4: "999", 1000: "1,000", 12345.6: "12,346", 1234567: "1,234,567"} {
		if got := thousands(in); got != want {
			t.Errorf("thousands(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[int64]string{850: "0.85 ms", 12_340: "12.3 ms", 250_000: "250 ms"} {
		if got := ms(in); got != want {
			t.Errorf("ms(%d) = %q, want %q", in, got, want)
		}
	}
	pct := func(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }
	if got := Spread([]float64{0.7, 0.5, 0.9}, pct); got != "70% (50% to 90%)" {
		t.Errorf("Spread = %q", got)
	}
	if got := Spread([]float64{0.5, 0.7}, pct); got != "60% (50% to 70%)" {
		t.Errorf("Spread of two = %q", got)
	}

	r := &Result{Phase: Phase{Name: "svc mix"}, Elapsed: 2 * time.Second}
	for e := range r.Endpoints {
		r.Endpoints[e] = newStats()
	}
	for i := range 1000 {
		r.Endpoints[View].Count++
		_ = r.Endpoints[View].Latency.RecordValue(int64(1000 + i)) // 1 to 2 ms
	}
	r.Endpoints[Proof].Count, r.Endpoints[Proof].Errors = 3, 3
	r.Endpoints[Proof].Status[404], r.Endpoints[Proof].Status[0] = 2, 1
	r.Stolen = 0.123
	var b strings.Builder
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"req/s", "p99.9", "product-view", "1,000", "500", "1.50 ms", "1.99 ms", "3 (transport×1, 404×2)", "all", "1,003", "CPU stolen", "12.3%"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "product-purchase") {
		t.Errorf("table lists an endpoint without traffic:\n%s", out)
	}

	b.Reset()
	WriteRatios(&b, []Ratio{{Name: "collect", Svc: 7000, Base: 10000, Target: 0.7}, {Name: "proof", Svc: 7000, Base: 10000, Target: 0.8}})
	if got := b.String(); !strings.Contains(got, "70.0% of baseline") || !strings.Contains(got, "target ≥ 70%: met") || !strings.Contains(got, "target ≥ 80%: NOT met") {
		t.Errorf("ratios:\n%s", got)
	}
	b.Reset()
	WriteLatencyChecks(&b, []LatencyCheck{{Name: "proof", Rate: 5000, P99: 1500, Ceiling: 2 * time.Millisecond}, {Name: "collect", Rate: 100, P99: 900, Ceiling: time.Millisecond, Errors: 1}})
	if got := b.String(); !strings.Contains(got, "p99 1.50 ms  (target < 2ms, 0 errors: met)") || !strings.Contains(got, "1 errors: NOT met)") {
		t.Errorf("latency checks:\n%s", got)
	}
	b.Reset()
	WriteLatencyChecks(&b, []LatencyCheck{
		{Name: "proof", Rate: 5000, P99: 3000, BaseP99: 2500, Ceiling: 2 * time.Millisecond},
		{Name: "collect", Rate: 100, P99: 3000, BaseP99: 1500, Ceiling: 2 * time.Millisecond},
	})
	if got := b.String(); !strings.Contains(got, "p99 3.00 ms, baseline 2.50 ms  (target < 2ms, 0 errors: NOT met, and the baseline is over it too)") ||
		!strings.Contains(got, "p99 3.00 ms, baseline 1.50 ms  (target < 2ms, 0 errors: NOT met)") {
		t.Errorf("latency checks with baselines:\n%s", got)
	}
	b.Reset()
	WriteLatencyChecks(&b, []LatencyCheck{
		{Name: "collect", Rate: 5000, P99: 13000, BaseP99: 4000, DurableP99: 12000, Ceiling: 10 * time.Millisecond},
		{Name: "collect", Rate: 5000, P99: 13000, BaseP99: 4000, DurableP99: 6000, Ceiling: 10 * time.Millisecond},
	})
	if got := b.String(); !strings.Contains(got, "p99 13.0 ms, baseline 4.00 ms, durable baseline 12.0 ms  (target < 10ms, 0 errors: NOT met, and the durable baseline is over it too)") ||
		!strings.Contains(got, "durable baseline 6.00 ms  (target < 10ms, 0 errors: NOT met)\n") {
		t.Errorf("latency checks with the durable baseline:\n%s", got)
	}
	b.Reset()
	WriteLatencyChecks(&b, []LatencyCheck{{Name: "collect", Rate: 5000, P99: 8000, Ceiling: 10 * time.Millisecond, Stolen: 0.042}})
	if got := b.String(); !strings.Contains(got, "p99 8.00 ms, 4.2% of the CPU stolen  (target < 10ms, 0 errors: met)") {
		t.Errorf("latency check with stolen CPU:\n%s", got)
	}
	b.Reset()
	WriteRatios(&b, []Ratio{{Name: "batches of 100", Svc: 52000, Base: 4000, BaseName: "svc's single-event collect", Target: 10, Events: true}})
	if got := b.String(); !strings.Contains(got, "52,000 events/s = 13.00× svc's single-event collect     4,000 events/s  (target ≥ 10×: met)") {
		t.Errorf("a ratio of events:\n%s", got)
	}
	b.Reset()
	WriteRatios(&b, []Ratio{{Name: "collect", Svc: 5000, Base: 10000, BaseName: "durable baseline"}})
	if got := b.String(); !strings.Contains(got, "50.0% of durable baseline    10,000 req/s\n") {
		t.Errorf("a ratio without a target:\n%s", got)
	}
}

// syncCounter is a file that counts its syncs, and fails them when told to.
type syncCounter struct {
	mu          sync.Mutex
	buf         bytes.Buffer
	syncs       int
	failSync    bool
	syncedLines int           // lines written before the last sync
	gate        chan struct{} // if set, each sync waits for it
}

func (f *syncCounter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.Write(p)
}

func (f *syncCounter) Sync() error {
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failSync {
		return errors.New("disk on fire")
	}
	f.syncs++
	f.syncedLines = bytes.Count(f.buf.Bytes(), []byte("\n"))
	return nil
}

// The durable baseline answers once the body is written and synced, with
// several bodies to one sync under load, and fails when the sync fails.
func TestDurableBaseline(t *testing.T) {
	f := &syncCounter{}
	log := newDurableLog(f)
	defer log.close()
	srv := httptest.NewServer(baselineHandler(log))
	defer srv.Close()
	ctx := context.Background()
	r, err := Run(ctx, NewClient(16), testCatalog(1000), Phase{Name: "durable", BaseURL: srv.URL, Mix: CollectMix, Conns: 16, Duration: 300 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tot := r.Total()
	if tot.Count == 0 || tot.Errors != 0 {
		t.Fatalf("%d answers, %d errors", tot.Count, tot.Errors)
	}
	f.mu.Lock()
	lines := bytes.Split(bytes.TrimSuffix(f.buf.Bytes(), []byte("\n")), []byte("\n"))
	syncs, synced := f.syncs, f.syncedLines
	f.mu.Unlock()
	// Every answer was counted after its body was synced.
	if int64(synced) < tot.Count {
		t.Errorf("%d bodies synced, %d answered", synced, tot.Count)
	}
	for _, l := range lines {
		if !json.Valid(l) {
			t.Fatalf("the log holds %q, not one body per line", l)
		}
	}
	if syncs >= len(lines) {
		t.Errorf("%d syncs for %d bodies from 16 connections: no group commit", syncs, len(lines))
	}

	f.mu.Lock()
	f.failSync = true
	f.mu.Unlock()
	view := viewRequest(t)
	if status, err := do(ctx, NewClient(1), srv.URL, view); err != nil || status != 503 {
		t.Errorf("with a failing sync the durable baseline answered %d, %v; want 503", status, err)
	}
}

// Stolen time is read from the steal column of /proc/stat's first line.
func TestStolenCPU(t *testing.T) {
	a, err := parseCPUTimes("cpu  100 0 50 800 10 0 0 40 0 0\ncpu0 50 0 25 400 5 0 0 20 0 0\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseCPUTimes("cpu  150 0 70 900 10 0 0 60 7 0\n")
	if err != nil {
		t.Fatal(err)
	}
	// 20 of the 190 ticks between them were stolen; guest time is in user.
	if got := stolenShare(a, b); math.Abs(got-20.0/190) > 1e-9 {
		t.Errorf("stolen share %v, want %v", got, 20.0/190)
	}
	if got := stolenShare(b, a); got >= 0 {
		t.Errorf("counters that went backwards gave a stolen share of %v, want unknown (negative)", got)
	}
	if _, err := parseCPUTimes("cpu  1 2 3 4\n"); err == nil {
		t.Error("a cpu line without a steal column was read")
	}
	if _, err := readCPUTimes(); err != nil {
		t.Logf("this machine has no /proc/stat: %v", err)
	}
}

// The test binary is the baseline's child process too, as loadgen is.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "-serve-baseline" {
		if err := serveBaseline(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "baseline:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

// startBaseline runs both baselines in a child process; the durable one
// writes its log in the folder given, and stopping removes it.
func TestStartBaseline(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	bases, stop, err := startBaseline(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	view := viewRequest(t)
	client := NewClient(1)
	for _, url := range []string{bases.base, bases.durable} {
		if status, err := do(ctx, client, url, view); err != nil || status != 200 {
			t.Errorf("%s answered %d, %v", url, status, err)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "loadgen-durable-*.log"))
	if len(logs) != 1 {
		t.Fatalf("%d durable logs in the folder, want 1", len(logs))
	}
	if b, err := os.ReadFile(logs[0]); err != nil || string(b) != string(view.Body)+"\n" {
		t.Errorf("the durable log holds %q (%v), want the one body", b, err)
	}
	stop()
	if _, err := os.Stat(logs[0]); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the durable log is still there after stop: %v", err)
	}
}

// The durable baseline answers no sooner than the sync of the body returns.
func TestDurableBaselineWaitsForSync(t *testing.T) {
	f := &syncCounter{gate: make(chan struct{})}
	log := newDurableLog(f)
	defer log.close()
	srv := httptest.NewServer(baselineHandler(log))
	defer srv.Close()
	view := viewRequest(t)
	answered := make(chan int, 1)
	go func() {
		status, _ := do(context.Background(), NewClient(1), srv.URL, view)
		answered <- status
	}()
	select {
	case status := <-answered:
		t.Fatalf("answered %d while the sync was still running", status)
	case <-time.After(200 * time.Millisecond):
	}
	close(f.gate)
	if status := <-answered; status != 200 {
		t.Errorf("answered %d once synced, want 200", status)
	}
}

// The durable baseline takes a batch as one body, synced before the
// answer, with a result for each event; an event it cannot decode is
// answered invalid, which the generator counts as an event refused.
func TestDurableBaselineBatch(t *testing.T) {
	f := &syncCounter{}
	log := newDurableLog(f)
	defer log.close()
	srv := httptest.NewServer(baselineHandler(log))
	defer srv.Close()
	ctx := context.Background()
	cat := testCatalog(1000)
	r, err := Run(ctx, NewClient(4), cat, Phase{Name: "batch", BaseURL: srv.URL, Mix: BatchMix, Conns: 4, Duration: 200 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Endpoints[Batch].Count; n == 0 || r.Total().Errors != 0 {
		t.Fatalf("%d batches answered, %s", n, errorText(r.Total()))
	}
	f.mu.Lock()
	synced := f.syncedLines
	f.mu.Unlock()
	if int64(synced) < r.Endpoints[Batch].Count {
		t.Errorf("%d batches synced, %d answered", synced, r.Endpoints[Batch].Count)
	}

	bad := []byte(`{"events":[{"type":"product-view","brand_id":"br_1","product":{"product_id":"p1"}},{"type":"product-view","product":7}]}`)
	status, err := do(ctx, NewClient(1), srv.URL, Request{Endpoint: Batch, Method: "POST", Target: Batch.Path(), Body: bad, Key: "k"})
	if err != nil || status != statusEventRefused {
		t.Errorf("a batch with a bad event: status %d, %v; want it counted as an event refused", status, err)
	}
	st := newStats()
	st.record(statusEventRefused, nil, time.Millisecond)
	if got := errorText(st); got != "1 (event refused×1)" {
		t.Errorf("errors %q", got)
	}
}

// The closed loop and the fixed-rate loop against the baseline server.
func TestRunAgainstBaseline(t *testing.T) {
	srv := httptest.NewServer(baselineHandler(nil))
	defer srv.Close()
	cat := testCatalog(1000)
	client := NewClient(8)
	ctx := context.Background()

	r, err := Run(ctx, client, cat, Phase{Name: "closed", BaseURL: srv.URL, Mix: FullMix, Conns: 8, Warmup: 50 * time.Millisecond, Duration: 300 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tot := r.Total()
	if tot.Count == 0 || tot.Errors != 0 {
		t.Fatalf("closed loop: %d answers, %d errors (%v)", tot.Count, tot.Errors, r.Endpoints)
	}
	if r.Endpoints[View].Count == 0 || r.Endpoints[Proof].Count == 0 {
		t.Errorf("closed loop: views %d, proofs %d", r.Endpoints[View].Count, r.Endpoints[Proof].Count)
	}

	const rate = 400
	r, err = Run(ctx, client, cat, Phase{Name: "open", BaseURL: srv.URL, Mix: ProofMix, Conns: 8, Duration: 500 * time.Millisecond, Rate: rate, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	// 400/s for 0.5 s: at most 200 requests, whatever the server could
	// have done. How many of them finish in time depends on the machine.
	if n := r.Total().Count; n == 0 || n > 201 {
		t.Errorf("open loop at %d/s for 0.5 s sent %d requests, want some and at most 200", rate, n)
	}

	// The collect baseline really decodes: a body that is not JSON is a 400.
	status, err := do(ctx, client, srv.URL, Request{Method: "POST", Target: View.Path(), Body: []byte("{")})
	if err != nil || status != 400 {
		t.Errorf("baseline answered %d, %v to a broken body; want 400", status, err)
	}
}

// The generated traffic is accepted by the real service: no 400, 401 or
// 404 once every product has had its first view.
func TestRunAgainstSvc(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cat := testCatalog(500)
	for i := range cat.Brands {
		b := &cat.Brands[i]
		b.ID = svc.NewBrandID()
		secret, key := svc.NewAPIKey(b.ID, time.Now())
		b.APIKey = secret
		if err := store.CreateBrand(ctx, &svc.Brand{ID: b.ID, Name: b.ID, Domains: []string{b.Domain}, CreatedAt: time.Now()}, key); err != nil {
			t.Fatal(err)
		}
	}
	detector, err := bots.New()
	if err != nil {
		t.Fatal(err)
	}
	brands, err := auth.Open(ctx, store, 0, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer brands.Close()
	catalog := enrich.NewCatalog()
	tr, err := tracker.Open(ctx, store, tracker.Config{Catalog: catalog, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	keys, err := signing.Open(ctx, store, 0, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer keys.Close()
	srv := httptest.NewServer(httpapi.New(tr, brands, slog.New(slog.DiscardHandler), httpapi.Options{Catalog: catalog, IsBot: detector.IsBot, Keys: keys}).Handler())
	defer srv.Close()
	client := NewClient(8)

	if failed, err := prefill(ctx, client, srv.URL, cat, 8); failed > 0 {
		t.Fatalf("prefill: %d failed: %v", failed, err)
	}
	storedViews := func() int64 {
		var n int64
		if err := store.Views(ctx, time.Now().Add(-time.Hour), func(svc.ViewRecord) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	prefilled := storedViews()
	r, err := Run(ctx, client, cat, Phase{Name: "svc", BaseURL: srv.URL, Mix: FullMix, Conns: 8, Duration: 500 * time.Millisecond, Seed: 5, Tag: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for e, s := range r.Endpoints {
		if s.Errors != 0 {
			t.Errorf("%s: %s", Endpoint(e), errorText(s))
		}
	}
	// How many requests fit in the phase depends on the machine.
	if r.Total().Count == 0 {
		t.Fatal("no request answered")
	}
	// Anonymous browser requests were counted, not taken for bots, which
	// are answered but never stored: every view answered is stored.
	if got, answered := storedViews()-prefilled, r.Endpoints[View].Count; got < answered {
		t.Errorf("%d views answered, %d stored", answered, got)
	}

	// Batches are accepted whole, and their views stored.
	before := storedViews()
	r, err = Run(ctx, client, cat, Phase{Name: "svc batch", BaseURL: srv.URL, Mix: BatchMix, Conns: 4, Duration: 300 * time.Millisecond, Seed: 6, Tag: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Endpoints[Batch].Count; n == 0 || r.Total().Errors != 0 {
		t.Fatalf("%d batches answered: %s", n, errorText(r.Total()))
	}
	if got, least := storedViews()-before, r.Endpoints[Batch].Count*int64(cat.BatchEvents)*3/4; got < least {
		t.Errorf("%d batches of %d answered, %d views stored", r.Endpoints[Batch].Count, cat.BatchEvents, got)
	}

	// Signed reads ask, and an unsigned answer to one is an error.
	r, err = Run(ctx, client, cat, Phase{Name: "svc signed proof", BaseURL: srv.URL, Mix: SignedProofMix, Conns: 4, Duration: 200 * time.Millisecond, Seed: 7, Tag: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Endpoints[SignedProof].Count; n == 0 || r.Total().Errors != 0 {
		t.Fatalf("%d signed proof reads answered: %s", n, errorText(r.Total()))
	}
	unsigned := httptest.NewServer(httpapi.New(tr, brands, slog.New(slog.DiscardHandler), httpapi.Options{Catalog: catalog, IsBot: detector.IsBot}).Handler())
	defer unsigned.Close()
	r, err = Run(ctx, client, cat, Phase{Name: "svc without keys", BaseURL: unsigned.URL, Mix: SignedProofMix, Conns: 2, Duration: 100 * time.Millisecond, Seed: 8, Tag: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Endpoints[SignedProof]; s.Count == 0 || s.Status[statusUnsigned] != s.Count {
		t.Errorf("signed reads of a server without keys: %d answered, %s", s.Count, errorText(s))
	}
}

// svc's own histogram, read from a real metrics handler before and after
// some requests: the p99 bound is the bucket the slowest percent fell in.
func TestServerP99FromSvcMetrics(t *testing.T) {
	m := metrics.New()
	var n atomic.Int64
	slow := m.Instrument(View.Path(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%50 == 0 { // 2% take 3 ms or more: the p99 is in the 5 ms bucket or above
			time.Sleep(3 * time.Millisecond)
		}
	}))
	api := httptest.NewServer(slow)
	defer api.Close()
	admin := httptest.NewServer(m.Handler())
	defer admin.Close()
	ctx := context.Background()
	client := &http.Client{}

	get := func() map[string]histogram {
		h, err := scrapeDurations(ctx, client, admin.URL)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	send := func(k int) {
		for range k {
			resp, err := client.Get(api.URL)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	send(30) // before the first scrape: not counted
	before := get()
	send(500)
	got := serverP99(before, get(), CollectMix.Endpoints())
	if got.Requests != 500 || got.P99 < 5*time.Millisecond {
		t.Errorf("got %d requests, p99 %v; want 500 and the 5 ms bucket or above", got.Requests, got.P99)
	}
	if s := (ServerLatency{Requests: 500, P99: 5 * time.Millisecond}).String(); s != "≤ 5.00 ms" {
		t.Errorf("String() = %q", s)
	}
	if got := serverP99(before, get(), ProofMix.Endpoints()); got.Requests != 0 || got.String() != "-" {
		t.Errorf("a route without requests: %+v", got)
	}
	if _, err := scrapeDurations(ctx, client, api.URL); err == nil {
		t.Error("a page without the histogram was read without an error")
	}
	// svc restarted between the scrapes: its counts began again, and the
	// second scrape is taken whole rather than wrapped around.
	restarted := get()
	for k, h := range restarted {
		h.counts = slices.Clone(h.counts)
		for i := range h.counts {
			h.counts[i] += 1000
		}
		restarted[k] = h
	}
	if got := serverP99(restarted, get(), CollectMix.Endpoints()); got.Requests != 531 { // 30, 500, and the page read above
		t.Errorf("after a restart: %d requests, want the 531 of the second scrape", got.Requests)
	}
}

// Run calls OnRecord once the warm-up is over, and returns after it.
func TestRunCallsOnRecord(t *testing.T) {
	srv := httptest.NewServer(baselineHandler(nil))
	defer srv.Close()
	var called atomic.Int64
	ph := Phase{Name: "p", BaseURL: srv.URL, Mix: ProofMix, Conns: 2, Warmup: 50 * time.Millisecond, Duration: 100 * time.Millisecond,
		OnRecord: func() { time.Sleep(200 * time.Millisecond); called.Add(1) }}
	if _, err := Run(context.Background(), NewClient(2), testCatalog(10), ph); err != nil {
		t.Fatal(err)
	}
	if called.Load() != 1 {
		t.Errorf("OnRecord called %d times before Run returned, want 1", called.Load())
	}
}

// The summary's lines are read by people and scripts (bench/RESULTS.md):
// their wording is pinned here.
func TestSummaryLines(t *testing.T) {
	var m summary
	m.collectShares = []float64{0.5, 0.7}
	m.durableShares = []float64{0.8, 0.9, 0.95}
	m.batchFactors = []float64{12.5}
	m.proofShares = []float64{0.9}
	for _, p99 := range []int64{4000, 6000} {
		m.addHalf(LatencyCheck{P99: p99, BaseP99: 1000, DurableP99: 3000, Server: ServerLatency{Requests: 10, P99: 2500 * time.Microsecond}, Stolen: 0.01},
			LatencyCheck{P99: 500, BaseP99: 400, Server: ServerLatency{Requests: 10, P99: 250 * time.Microsecond}, Stolen: -1})
		m.addCollectRate(LatencyCheck{P99: 2000, DurableP99: 1500})
	}
	m.proofRateP99 = []float64{800, 800}
	o := &options{repeat: 2, halfOf: 0.5, metrics: "http://x/metrics", proofRate: 1000, collectRate: 4000}
	var b strings.Builder
	m.write(&b, o)
	want := `over 2 runs, median (min to max):
  collect / durable baseline: 90.0% (80.0% to 95.0%)
  collect / collect baseline: 60.0% (50.0% to 70.0%)
  batch / single collect:     12.5× events a second
  proof / read baseline:      90.0%
  collect p99 at 50%: 5.00 ms (4.00 ms to 6.00 ms)
  proof p99 at 50%:   0.50 ms (0.50 ms to 0.50 ms)
  the baseline at the same rates: collect p99 1.00 ms (1.00 ms to 1.00 ms), read p99 0.40 ms (0.40 ms to 0.40 ms)
  the durable baseline at the same rate: collect p99 3.00 ms (3.00 ms to 3.00 ms)
  svc's handlers at the same rates (bucket bounds): collect p99 2.50 ms (2.50 ms to 2.50 ms), proof p99 0.25 ms (0.25 ms to 0.25 ms)
  CPU stolen by the hypervisor during svc's collect at 50%: 1.0% (1.0% to 1.0%)
  proof p99 at 1,000/s:  0.80 ms (0.80 ms to 0.80 ms)
  collect p99 at 4,000/s: 2.00 ms (2.00 ms to 2.00 ms)
  the durable baseline at 4,000/s: collect p99 1.50 ms (1.50 ms to 1.50 ms)
`
	if got := b.String(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}

	b.Reset()
	o.noBaseline, o.metrics = true, ""
	(&summary{collectRateP99: []float64{2000}}).write(&b, o)
	if got, want := b.String(), "over 2 runs, median (min to max):\n  collect p99 at 4,000/s: 2.00 ms\n"; got != want {
		t.Errorf("summary without baselines:\n%s\nwant:\n%s", got, want)
	}
}
