package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Phase is one measured stretch of traffic against one server.
type Phase struct {
	Name     string        // what the report calls it
	BaseURL  string        // the server, such as http://127.0.0.1:8080
	Mix      Mix           // what is sent
	Conns    int           // connections (closed loop) or most requests in flight (open loop)
	Warmup   time.Duration // sent but not recorded
	Duration time.Duration // recorded
	// Rate is requests per second for an open loop, whose latencies count
	// from when each request was due, so a stalled server is not excused
	// (coordinated omission); 0 is a closed loop: each connection sends its
	// next request as soon as the last is answered, at the highest rate.
	Rate float64
	Seed uint64
	Tag  string // makes order ids unique to the phase
	// OnRecord, if set, is called when the recorded stretch begins (after
	// the warm-up), on a goroutine of its own; Run returns after it has
	// returned, or without calling it if the phase ended first.
	OnRecord func()
}

// Stats are the outcomes of one endpoint.
type Stats struct {
	Count   int64                   // answers recorded, errors included
	Errors  int64                   // transport errors and statuses outside 2xx
	Status  map[int]int64           // count per error status; 0 is a transport error
	Latency *hdrhistogram.Histogram // microseconds
}

func newStats() *Stats {
	return &Stats{Status: map[int]int64{}, Latency: hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 3)}
}

func (s *Stats) merge(o *Stats) {
	s.Count += o.Count
	s.Errors += o.Errors
	for k, v := range o.Status {
		s.Status[k] += v
	}
	s.Latency.Merge(o.Latency)
}

// record counts one answer, which took d; status 0 with err is a transport
// error.
func (s *Stats) record(status int, err error, d time.Duration) {
	s.Count++
	if err != nil || status < 200 || status > 299 {
		s.Errors++
		s.Status[status]++
	}
	_ = s.Latency.RecordValue(max(1, d.Microseconds()))
}

// Result is what a phase measured.
type Result struct {
	Phase     Phase
	Elapsed   time.Duration // of the recorded stretch
	Endpoints [numEndpoints]*Stats
	Late      int64         // open loop: requests that could not even be started on time for want of a free worker
	Server    ServerLatency // from svc's own metrics, when the generator reads them
	// Stolen is the share of the machine's CPU time the hypervisor gave to
	// other guests during the recorded stretch; negative: unknown.
	Stolen float64
}

// Total sums the endpoints.
func (r *Result) Total() *Stats {
	t := newStats()
	for _, s := range r.Endpoints {
		t.merge(s)
	}
	return t
}

// RPS is answers per second, errors included, of endpoint e, or of every
// endpoint for e < 0.
func (r *Result) RPS(e Endpoint) float64 {
	var n int64
	if e < 0 {
		n = r.Total().Count
	} else {
		n = r.Endpoints[e].Count
	}
	return float64(n) / r.Elapsed.Seconds()
}

// NewClient returns an HTTP client that keeps conns connections open to
// one server, as a fleet of browsers behind a few proxies would.
func NewClient(conns int) *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			MaxConnsPerHost:     conns,
			DisableCompression:  true,
			IdleConnTimeout:     time.Minute,
		},
	}
}

// Run sends the phase's traffic from cat and returns what it measured.
func Run(ctx context.Context, client *http.Client, cat *Catalog, ph Phase) (*Result, error) {
	start := time.Now()
	rec := stretch{from: start.Add(ph.Warmup)}
	rec.until = rec.from.Add(ph.Duration)
	ctx, cancel := context.WithDeadline(ctx, rec.until)
	defer cancel()
	if ph.OnRecord != nil {
		defer callAfter(ph.Warmup, ph.OnRecord)()
	}
	var late atomic.Int64
	var due chan time.Time // open loop: when each request is due
	if ph.Rate > 0 {
		due = make(chan time.Time, 1<<16)
		go pace(ctx, due, start, ph.Rate, &late)
	}
	res := &Result{Phase: ph, Elapsed: ph.Duration}
	for e := range res.Endpoints {
		res.Endpoints[e] = newStats()
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range ph.Conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := NewGenerator(cat, ph.Mix, ph.Seed+uint64(w)*7919, fmt.Sprintf("%s%d", ph.Tag, w))
			stats := worker(ctx, client, ph.BaseURL, g, due, rec)
			mu.Lock()
			defer mu.Unlock()
			for e := range stats {
				res.Endpoints[e].merge(stats[e])
			}
		}()
	}
	wg.Wait()
	res.Late = late.Load()
	return res, nil
}

// callAfter calls f on a goroutine of its own after d. The function it
// returns waits until f has returned, or stops the call if it has not
// begun.
func callAfter(d time.Duration, f func()) (wait func()) {
	fired := make(chan struct{})
	t := time.AfterFunc(d, func() { defer close(fired); f() })
	return func() {
		if !t.Stop() {
			<-fired
		}
	}
}

// stretch is the recorded part of a phase.
type stretch struct{ from, until time.Time }

// worker is one connection of a phase: it sends g's requests to base one
// after the other until ctx ends, in an open loop each when due hands it
// out, and records those sent and answered within rec.
func worker(ctx context.Context, client *http.Client, base string, g *Generator, due <-chan time.Time, rec stretch) [numEndpoints]*Stats {
	var stats [numEndpoints]*Stats
	for e := range stats {
		stats[e] = newStats()
	}
	for ctx.Err() == nil {
		sent := time.Now()
		if due != nil {
			select {
			case sent = <-due:
			case <-ctx.Done():
				continue
			}
		}
		req := g.Next()
		status, err := do(ctx, client, base, req)
		done := time.Now()
		if ctx.Err() != nil && err != nil {
			break // cut off by the end of the phase: not the server's fault
		}
		if sent.Before(rec.from) || done.After(rec.until) {
			continue
		}
		stats[req.Endpoint].record(status, err, done.Sub(sent))
	}
	return stats
}

// pace hands out the due times of an open loop at rate per second. When
// every worker is busy the queue fills; a request that cannot even be
// queued is counted late and sent later with its original due time.
func pace(ctx context.Context, due chan<- time.Time, start time.Time, rate float64, late *atomic.Int64) {
	defer close(due)
	interval := time.Duration(float64(time.Second) / rate)
	next := start
	tick := time.NewTicker(200 * time.Microsecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			for !next.After(now) {
				select {
				case due <- next:
				default:
					late.Add(1)
					select {
					case due <- next:
					case <-ctx.Done():
						return
					}
				}
				next = next.Add(interval)
			}
		}
	}
}

// do sends one request and reads its whole answer; status 0 with an error
// is a transport failure.
func do(ctx context.Context, client *http.Client, base string, r Request) (int, error) {
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, base+r.Target, body)
	if err != nil {
		return 0, err
	}
	if r.Body != nil {
		req.Header["Content-Type"] = []string{"application/json"}
	}
	if r.Key != "" {
		req.Header["X-Svc-Api-Key"] = []string{r.Key}
	} else {
		req.Header["User-Agent"] = []string{BrowserUA}
		if r.Origin != "" {
			req.Header["Origin"] = []string{r.Origin}
		}
	}
	if r.Endpoint == SignedProof {
		req.Header["Accept-Signature"] = acceptSignature
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if r.Endpoint == SignedProof && resp.StatusCode == http.StatusOK && resp.Header.Get("Signature") == "" {
		// A signed read that was answered unsigned measured the wrong thing.
		_, err = io.Copy(io.Discard, resp.Body)
		return statusUnsigned, err
	}
	if r.Endpoint == Batch && resp.StatusCode == http.StatusOK {
		// A batch's 200 may hold events that were not stored.
		answer, err := io.ReadAll(resp.Body)
		if err == nil && refusedEvent.Match(answer) {
			return statusEventRefused, nil
		}
		return resp.StatusCode, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// acceptSignature asks for svc's signature (docs/verification.md).
var acceptSignature = []string{`svc=("@status" "content-digest" "content-type" "@method";req "@target-uri";req "@query";req)`}

// statusUnsigned stands for a 200 to a signed read that carries no
// signature.
const statusUnsigned = 2

// statusEventRefused stands for a batch answered 200 in which some event
// was not stored: invalid, conflict or failed.
const statusEventRefused = 1

var refusedEvent = regexp.MustCompile(`"status"\s*:\s*"(invalid|conflict|failed)"`)
