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
	fs.StringVar(&o.phases, "phases", "collect,proof,mix,half", "phases to run: collect (vs the collect baseline), proof (vs the read baseline), mix (the full mix), half (fixed rate at -half-of the highest), proof-rate (proof reads at -proof-rate), collect-rate (views and purchases at -collect-rate)")
	fs.StringVar(&o.metrics, "metrics", "", "svc's /metrics URL (on its --admin-addr): reports beside each fixed-rate svc phase the p99 of svc's own handlers, from its histogram")
	fs.Float64Var(&o.halfOf, "half-of", 0.5, "share of the highest rate the fixed-rate phases send")
	fs.BoolVar(&o.noBaseline, "no-baseline", false, "skip the baselines")
	fs.StringVar(&o.baselineCPUs, "baseline-cpus", "", "run the baseline server under `taskset -c LIST`, on the cores svc was given (empty: the generator's)")
	fs.BoolVar(&o.prefill, "prefill", true, "send one view of every product first, so proof reads find them")
	fs.Float64Var(&o.proofRate, "proof-rate", 1000, "proof reads per second of the proof-rate phase, which compares proof latency between stores")
	fs.Float64Var(&o.collectRate, "collect-rate", 4000, "requests per second of the collect-rate phase, which compares collect latency between builds at one rate")
	fs.StringVar(&o.durableDir, "durable-dir", "", "folder of the durable baseline's log, on the disk svc writes to (default: -data, else the system's temporary folder)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.products < 2 || o.brands < 1 || o.sessions < 1 || o.zipfS <= 1 || o.keyed < 0 || o.keyed > 1 || o.conns < 1 || o.openConns < 1 || o.repeat < 1 || o.duration <= 0 || o.warmup < 0 || o.proofRate <= 0 || o.collectRate <= 0 {
		return nil, fmt.Errorf("bad options: want -products ≥ 2, -brands ≥ 1, -zipf > 1, 0 ≤ -keyed ≤ 1, positive -conns, -open-conns, -repeat, -duration, -proof-rate, -collect-rate, and -warmup ≥ 0")
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

	var collectShares, proofShares []float64
	var collectP99, proofP99, proofRateP99, collectRateP99 []float64
	var collectBaseP99, proofBaseP99 []float64             // the baseline at the same fixed rates
	var collectDurableP99, collectRateDurableP99 []float64 // the durable baseline at the same fixed rates
	var collectServerP99, proofServerP99 []float64         // svc's handlers, from its histogram (bucket bounds)
	var collectStolen []float64                            // CPU stolen during svc's fixed-rate collect phases
	phase := func(name, url string, mix Mix, rate float64, seed uint64) (*Result, error) {
		return s.phase(ctx, name, url, mix, rate, seed)
	}
	for i := range o.repeat {
		seed := uint64(i) * 1_000_003
		var results []*Result
		var ratios []Ratio
		var checks []LatencyCheck
		var svcCollect, svcProof *Result
		if o.has("collect") || o.has("half") {
			if !o.noBaseline && o.has("collect") {
				b, err := phase("baseline collect", s.bases.base, CollectMix, 0, seed)
				if err != nil {
					return err
				}
				results = append(results, b)
				d, err := phase("durable baseline collect", s.bases.durable, CollectMix, 0, seed)
				if err != nil {
					return err
				}
				results = append(results, d)
				svcCollect, err = phase("svc collect", o.target, CollectMix, 0, seed+1)
				if err != nil {
					return err
				}
				results = append(results, svcCollect)
				share := Ratio{Name: "collect (views + purchases)", Svc: svcCollect.RPS(-1), Base: b.RPS(-1), Target: 0.70}
				collectShares = append(collectShares, share.Share())
				ratios = append(ratios, share, Ratio{Name: share.Name, Svc: share.Svc, Base: d.RPS(-1), BaseName: "durable baseline"})
			} else {
				svcCollect, err = phase("svc collect", o.target, CollectMix, 0, seed+1)
				if err != nil {
					return err
				}
				results = append(results, svcCollect)
			}
		}
		if o.has("proof") || o.has("half") {
			if !o.noBaseline && o.has("proof") {
				b, err := phase("baseline read", s.bases.base, ProofMix, 0, seed+2)
				if err != nil {
					return err
				}
				results = append(results, b)
				svcProof, err = phase("svc proof", o.target, ProofMix, 0, seed+3)
				if err != nil {
					return err
				}
				results = append(results, svcProof)
				ratios = append(ratios, Ratio{Name: "proof", Svc: svcProof.RPS(-1), Base: b.RPS(-1), Target: 0.80})
				proofShares = append(proofShares, ratios[len(ratios)-1].Share())
			} else {
				svcProof, err = phase("svc proof", o.target, ProofMix, 0, seed+3)
				if err != nil {
					return err
				}
				results = append(results, svcProof)
			}
		}
		if o.has("mix") {
			r, err := phase("svc mix", o.target, FullMix, 0, seed+4)
			if err != nil {
				return err
			}
			results = append(results, r)
		}
		// Each fixed rate is sent to the baselines too, so that the report
		// tells the machine's share of the latency, and the disk's, from svc's.
		fixed := func(name, at string, mix Mix, rate float64, ceiling time.Duration, seed uint64) (LatencyCheck, error) {
			c := LatencyCheck{Name: name + " at " + at, Rate: rate, Ceiling: ceiling}
			if !o.noBaseline {
				b, err := phase("baseline "+name+" @"+at, s.bases.base, mix, rate, seed)
				if err != nil {
					return c, err
				}
				results = append(results, b)
				c.BaseP99 = b.Total().Latency.ValueAtQuantile(99)
				if mix.Writes() {
					d, err := phase("durable baseline "+name+" @"+at, s.bases.durable, mix, rate, seed)
					if err != nil {
						return c, err
					}
					results = append(results, d)
					c.DurableP99 = d.Total().Latency.ValueAtQuantile(99)
				}
			}
			r, err := phase("svc "+name+" @"+at, o.target, mix, rate, seed+1)
			if err != nil {
				return c, err
			}
			results = append(results, r)
			t := r.Total()
			c.P99, c.Errors, c.Requests, c.Server, c.Stolen = t.Latency.ValueAtQuantile(99), t.Errors, t.Count, r.Server, r.Stolen
			return c, nil
		}
		if o.has("half") {
			at := pct(o.halfOf) + " of its highest rate"
			c, err := fixed("collect", at, CollectMix, o.halfOf*svcCollect.RPS(-1), 10*time.Millisecond, seed+5)
			if err != nil {
				return err
			}
			checks = append(checks, c)
			collectP99, collectBaseP99 = append(collectP99, float64(c.P99)), append(collectBaseP99, float64(c.BaseP99))
			collectDurableP99 = append(collectDurableP99, float64(c.DurableP99))
			collectServerP99 = c.Server.appendTo(collectServerP99)
			if c.Stolen >= 0 {
				collectStolen = append(collectStolen, c.Stolen)
			}
			if c, err = fixed("proof", at, ProofMix, o.halfOf*svcProof.RPS(-1), 2*time.Millisecond, seed+7); err != nil {
				return err
			}
			checks = append(checks, c)
			proofP99, proofBaseP99 = append(proofP99, float64(c.P99)), append(proofBaseP99, float64(c.BaseP99))
			proofServerP99 = c.Server.appendTo(proofServerP99)
		}
		if o.has("collect-rate") {
			c, err := fixed("collect", thousands(o.collectRate)+"/s", CollectMix, o.collectRate, 10*time.Millisecond, seed+10)
			if err != nil {
				return err
			}
			checks = append(checks, c)
			collectRateP99 = append(collectRateP99, float64(c.P99))
			collectRateDurableP99 = append(collectRateDurableP99, float64(c.DurableP99))
		}
		if o.has("proof-rate") {
			r, err := phase(fmt.Sprintf("svc proof @%s/s", thousands(o.proofRate)), o.target, ProofMix, o.proofRate, seed+9)
			if err != nil {
				return err
			}
			results = append(results, r)
			proofRateP99 = append(proofRateP99, float64(r.Total().Latency.ValueAtQuantile(99)))
		}
		fmt.Fprintf(out, "run %d of %d\n", i+1, o.repeat)
		if err := WriteTable(out, results...); err != nil {
			return err
		}
		fmt.Fprintln(out)
		WriteRatios(out, ratios)
		WriteLatencyChecks(out, checks)
		fmt.Fprintln(out)
	}
	if o.repeat > 1 {
		share := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
		lat := func(x float64) string { return ms(int64(x)) }
		fmt.Fprintf(out, "over %d runs, median (min to max):\n", o.repeat)
		if len(collectShares) > 0 {
			fmt.Fprintf(out, "  collect / collect baseline: %s\n", Spread(collectShares, share))
		}
		if len(proofShares) > 0 {
			fmt.Fprintf(out, "  proof / read baseline:      %s\n", Spread(proofShares, share))
		}
		if len(collectP99) > 0 {
			fmt.Fprintf(out, "  collect p99 at %s: %s\n  proof p99 at %s:   %s\n", pct(o.halfOf), Spread(collectP99, lat), pct(o.halfOf), Spread(proofP99, lat))
		}
		if !o.noBaseline && len(collectBaseP99) > 0 {
			fmt.Fprintf(out, "  the baseline at the same rates: collect p99 %s, read p99 %s\n", Spread(collectBaseP99, lat), Spread(proofBaseP99, lat))
			fmt.Fprintf(out, "  the durable baseline at the same rate: collect p99 %s\n", Spread(collectDurableP99, lat))
		}
		if o.metrics != "" && len(collectServerP99) > 0 {
			fmt.Fprintf(out, "  svc's handlers at the same rates (bucket bounds): collect p99 %s, proof p99 %s\n", Spread(collectServerP99, lat), Spread(proofServerP99, lat))
		}
		if len(collectStolen) > 0 {
			fmt.Fprintf(out, "  CPU stolen by the hypervisor during svc's collect at %s: %s\n", pct(o.halfOf), Spread(collectStolen, stolenText))
		}
		if len(proofRateP99) > 0 {
			fmt.Fprintf(out, "  proof p99 at %s/s:  %s\n", thousands(o.proofRate), Spread(proofRateP99, lat))
		}
		if len(collectRateP99) > 0 {
			fmt.Fprintf(out, "  collect p99 at %s/s: %s\n", thousands(o.collectRate), Spread(collectRateP99, lat))
			if !o.noBaseline {
				fmt.Fprintf(out, "  the durable baseline at %s/s: collect p99 %s\n", thousands(o.collectRate), Spread(collectRateDurableP99, lat))
			}
		}
	}
	return nil
}

func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }
