// Command loadgen drives a running svc with realistic traffic and measures
// it against two baselines of the same machine in the same run. See
// bench/RESULTS.md for how to run it and what it found.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == "-serve-baseline" {
		if err := serveBaseline(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "baseline:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// options are the command line.
type options struct {
	target     string
	brandsFile string
	svcBin     string
	data       string
	store      string
	brands     int
	products   int
	zipfS      float64
	sessions   int
	keyed      float64
	conns      int
	openConns  int
	duration   time.Duration
	warmup     time.Duration
	repeat     int
	phases     string
	halfOf     float64
	metrics    string
	noBaseline bool
	// baselineCPUs pins the baseline server with taskset, as svc is pinned
	// when the generator has cores of its own (bench/RESULTS.md).
	baselineCPUs string
	prefill      bool
	proofRate    float64
	collectRate  float64
	durableDir   string
	batchEvents  int
}

func parseOptions(args []string, errOut io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.StringVar(&o.target, "target", "http://127.0.0.1:18090", "the running svc")
	fs.StringVar(&o.brandsFile, "brands-file", "bench-brands.json", "brands with keys and domains; created with the svc binary when missing")
	fs.StringVar(&o.svcBin, "svc", "svc", "the svc binary, to create brands when the brands file is missing")
	fs.StringVar(&o.data, "data", "", "the --data folder of the running svc, to create brands")
	fs.StringVar(&o.store, "store", "", "the --store URL of the running svc, to create brands")
	fs.IntVar(&o.brands, "brands", 100, "brands to create")
	fs.IntVar(&o.products, "products", 100_000, "products over all brands")
	fs.Float64Var(&o.zipfS, "zipf", 1.1, "Zipf exponent of product popularity (> 1)")
	fs.IntVar(&o.sessions, "sessions", 1_000_000, "distinct shopper sessions")
	fs.Float64Var(&o.keyed, "keyed", 0.2, "share of requests sent with the brand's API key; the rest are anonymous browser requests")
	fs.IntVar(&o.conns, "conns", 64, "connections of the closed-loop phases")
	fs.IntVar(&o.openConns, "open-conns", 256, "most requests in flight in the fixed-rate phases")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "recorded length of each phase")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "unrecorded start of each phase")
	fs.IntVar(&o.repeat, "repeat", 1, "times to run the phases, for the spread")
	fs.StringVar(&o.phases, "phases", "collect,batch,proof,mix,half", "phases to run: collect (vs the durable and the collect baselines), batch (batches of -batch-events, vs the durable baseline's batches and svc's collect), proof (vs the read baseline; unsigned, as the widget reads), proof-signed (proof reads asking for the signature, vs the same read baseline), mix (the full mix), half (fixed rate at -half-of the highest), proof-rate (proof reads at -proof-rate), collect-rate (views and purchases at -collect-rate)")
	fs.StringVar(&o.metrics, "metrics", "", "svc's /metrics URL (on its --admin-addr): reports beside each fixed-rate svc phase the p99 of svc's own handlers, from its histogram")
	fs.Float64Var(&o.halfOf, "half-of", 0.5, "share of the highest rate the fixed-rate phases send")
	fs.BoolVar(&o.noBaseline, "no-baseline", false, "skip the baselines")
	fs.StringVar(&o.baselineCPUs, "baseline-cpus", "", "run the baseline server under `taskset -c LIST`, on the cores svc was given (empty: the generator's)")
	fs.BoolVar(&o.prefill, "prefill", true, "send one view of every product first, so proof reads find them")
	fs.Float64Var(&o.proofRate, "proof-rate", 1000, "proof reads per second of the proof-rate phase, which compares proof latency between stores")
	fs.Float64Var(&o.collectRate, "collect-rate", 4000, "requests per second of the collect-rate phase, which compares collect latency between builds at one rate")
	fs.IntVar(&o.batchEvents, "batch-events", 100, "events in each request of the batch phase (at most 500)")
	fs.StringVar(&o.durableDir, "durable-dir", "", "folder of the durable baseline's log, on the disk svc writes to (default: -data, else the system's temporary folder)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.products < 2 || o.brands < 1 || o.sessions < 1 || o.zipfS <= 1 || o.keyed < 0 || o.keyed > 1 || o.conns < 1 || o.openConns < 1 || o.repeat < 1 || o.duration <= 0 || o.warmup < 0 || o.proofRate <= 0 || o.collectRate <= 0 || o.batchEvents < 1 || o.batchEvents > 500 {
		return nil, fmt.Errorf("bad options: want -products ≥ 2, -brands ≥ 1, -zipf > 1, 0 ≤ -keyed ≤ 1, positive -conns, -open-conns, -repeat, -duration, -proof-rate, -collect-rate, 1 ≤ -batch-events ≤ 500, and -warmup ≥ 0")
	}
	if o.durableDir == "" {
		o.durableDir = o.data
	}
	return o, nil
}

func (o *options) has(phase string) bool {
	for p := range strings.SplitSeq(o.phases, ",") {
		if strings.TrimSpace(p) == phase {
			return true
		}
	}
	return false
}

// run prefills svc, starts the baselines, runs -repeat rounds of the
// phases, each printed as it ends, and summarises the rounds.
func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parseOptions(args, os.Stderr)
	if err != nil {
		return err
	}
	s, err := newSession(ctx, o, out)
	if err != nil {
		return err
	}
	if o.prefill {
		if err := s.prefillProducts(ctx); err != nil {
			return err
		}
	}
	if !o.noBaseline {
		var stopBase func()
		s.bases, stopBase, err = startBaseline(ctx, o.baselineCPUs, o.durableDir)
		if err != nil {
			return err
		}
		defer stopBase()
	}
	s.writeHeader()
	for i := range o.repeat {
		if err := s.runRound(ctx, i); err != nil {
			return err
		}
	}
	if o.repeat > 1 {
		s.sum.write(out, o)
	}
	return nil
}
