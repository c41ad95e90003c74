package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// A session is one invocation of the load generator: what it sends, where
// it sends it, and the figures it keeps from each round for the summary.
type session struct {
	o       *options
	out     io.Writer
	cat     *Catalog
	client  *http.Client // to svc and the baselines
	metrics *http.Client // to svc's /metrics
	bases   baselines    // zero with -no-baseline
	runTag  string       // makes order ids unique to this invocation
	sum     summary
}

// newSession loads the brands (creating them with the svc binary when the
// brands file is missing) and prepares the clients.
func newSession(ctx context.Context, o *options, out io.Writer) (*session, error) {
	var storeArgs []string
	switch {
	case o.data != "":
		storeArgs = []string{"--data", o.data}
	case o.store != "":
		storeArgs = []string{"--store", o.store}
	}
	brands, err := loadBrands(ctx, o.brandsFile, o.brands, o.svcBin, storeArgs)
	if err != nil {
		return nil, err
	}
	return &session{
		o:       o,
		out:     out,
		cat:     &Catalog{Brands: brands, Products: o.products, ZipfS: o.zipfS, Sessions: o.sessions, Keyed: o.keyed, BatchEvents: o.batchEvents},
		client:  NewClient(max(o.conns, o.openConns)),
		metrics: &http.Client{Timeout: 10 * time.Second},
		runTag:  fmt.Sprintf("%x", time.Now().UnixNano()),
	}, nil
}

// prefillProducts sends one view of every product, so that proof reads
// find them, and says how long that took.
func (s *session) prefillProducts(ctx context.Context) error {
	t := time.Now()
	failed, err := prefill(ctx, s.client, s.o.target, s.cat, s.o.conns)
	if failed > 0 {
		return fmt.Errorf("%d of %d prefill views failed: %w", failed, s.o.products, err)
	}
	fmt.Fprintf(s.out, "prefill: one view of each of %s products in %s\n", thousands(float64(s.o.products)), time.Since(t).Round(time.Millisecond))
	return nil
}

// writeHeader prints what every phase sends and for how long.
func (s *session) writeHeader() {
	o := s.o
	fmt.Fprintf(s.out, "target %s; %d brands, %s products, Zipf s=%.2f, %s sessions, %.0f%% keyed; %d connections, %s per phase after %s warm-up\n\n",
		o.target, len(s.cat.Brands), thousands(float64(o.products)), o.zipfS, thousands(float64(o.sessions)), 100*o.keyed, o.conns, o.duration, o.warmup)
}

// phase sends mix to url for one phase: a closed loop over -conns
// connections when rate is 0, else an open loop at rate over -open-conns.
// The result carries the CPU stolen while it recorded and, for svc with
// -metrics, what svc's own handlers took.
func (s *session) phase(ctx context.Context, name, url string, mix Mix, rate float64, seed uint64) (*Result, error) {
	conns := s.o.conns
	if rate > 0 {
		conns = s.o.openConns
	}
	p := &probe{client: s.metrics}
	if s.o.metrics != "" && url == s.o.target {
		p.url = s.o.metrics
	}
	ph := Phase{Name: name, BaseURL: url, Mix: mix, Conns: conns, Warmup: s.o.warmup, Duration: s.o.duration,
		Rate: rate, Seed: seed, Tag: s.runTag + name, OnRecord: func() { p.begin(ctx) }}
	r, err := Run(ctx, s.client, s.cat, ph)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return r, err
	}
	return r, p.end(ctx, r, mix)
}

// A probe takes the readings around a phase's recorded stretch that the
// generator cannot take from its own requests: the CPU time the hypervisor
// stole from the machine, and, when url is set, svc's histograms of the
// time its handlers took.
type probe struct {
	client *http.Client
	url    string // svc's /metrics; "" reads no histograms

	begun   bool // begin ran: the phase reached its recorded stretch
	cpu     cpuTimes
	cpuErr  error
	hist    map[string]histogram
	histErr error
}

// begin takes the readings at the start of the recorded stretch.
func (p *probe) begin(ctx context.Context) {
	p.begun = true
	p.cpu, p.cpuErr = readCPUTimes()
	if p.url != "" {
		p.hist, p.histErr = scrapeDurations(ctx, p.client, p.url)
	}
}

// end takes the readings after the phase and sets r.Stolen (-1 when
// unknown) and r.Server from the difference.
func (p *probe) end(ctx context.Context, r *Result, mix Mix) error {
	r.Stolen = -1
	if cpu, err := readCPUTimes(); err == nil && p.cpuErr == nil && p.begun {
		r.Stolen = stolenShare(p.cpu, cpu)
	}
	if p.url == "" {
		return nil
	}
	after, err := scrapeDurations(ctx, p.client, p.url)
	if err = errors.Join(p.histErr, err); err != nil {
		return fmt.Errorf("svc's metrics: %w", err)
	}
	r.Server = serverP99(p.hist, after, mix.Endpoints())
	return nil
}
