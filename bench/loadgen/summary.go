package main

import (
	"fmt"
	"io"
)

// summary gathers each round's figures for the closing lines of a session
// of several rounds: their median and spread.
type summary struct {
	collectShares, proofShares []float64 // svc's closed-loop rates as shares of the baselines'
	signedProofShares          []float64 // svc's proof reads that ask for the signature, of the read baseline's
	durableShares              []float64 // svc's collect as a share of the durable baseline's
	batchFactors               []float64 // svc's events a second in batches over its single-event collect
	// p99 latencies, in microseconds, at the fixed rates.
	collectP99, proofP99, proofRateP99, collectRateP99 []float64
	collectBaseP99, proofBaseP99                       []float64 // the baseline at the same fixed rates
	collectDurableP99, collectRateDurableP99           []float64 // the durable baseline at the same fixed rates
	collectServerP99, proofServerP99                   []float64 // svc's handlers, from its histogram (bucket bounds)
	collectStolen                                      []float64 // CPU stolen during svc's fixed-rate collect phases
}

// addHalf keeps the checks of collect and proof at -half-of the highest rates.
func (m *summary) addHalf(collect, proof LatencyCheck) {
	m.collectP99, m.collectBaseP99 = append(m.collectP99, float64(collect.P99)), append(m.collectBaseP99, float64(collect.BaseP99))
	m.collectDurableP99 = append(m.collectDurableP99, float64(collect.DurableP99))
	m.collectServerP99 = collect.Server.appendTo(m.collectServerP99)
	if collect.Stolen >= 0 {
		m.collectStolen = append(m.collectStolen, collect.Stolen)
	}
	m.proofP99, m.proofBaseP99 = append(m.proofP99, float64(proof.P99)), append(m.proofBaseP99, float64(proof.BaseP99))
	m.proofServerP99 = proof.Server.appendTo(m.proofServerP99)
}

// addCollectRate keeps the check of collect at -collect-rate.
func (m *summary) addCollectRate(c LatencyCheck) {
	m.collectRateP99 = append(m.collectRateP99, float64(c.P99))
	m.collectRateDurableP99 = append(m.collectRateDurableP99, float64(c.DurableP99))
}

// write prints one line per figure that the rounds measured.
func (m *summary) write(out io.Writer, o *options) {
	share := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	lat := func(x float64) string { return ms(int64(x)) }
	fmt.Fprintf(out, "over %d runs, median (min to max):\n", o.repeat)
	if len(m.durableShares) > 0 {
		fmt.Fprintf(out, "  collect / durable baseline: %s\n", Spread(m.durableShares, share))
	}
	if len(m.collectShares) > 0 {
		fmt.Fprintf(out, "  collect / collect baseline: %s\n", Spread(m.collectShares, share))
	}
	if len(m.batchFactors) > 0 {
		fmt.Fprintf(out, "  batch / single collect:     %s events a second\n", Spread(m.batchFactors, func(x float64) string { return fmt.Sprintf("%.1f×", x) }))
	}
	if len(m.proofShares) > 0 {
		fmt.Fprintf(out, "  proof / read baseline:      %s\n", Spread(m.proofShares, share))
	}
	if len(m.signedProofShares) > 0 {
		fmt.Fprintf(out, "  signed proof / read baseline: %s\n", Spread(m.signedProofShares, share))
	}
	if len(m.collectP99) > 0 {
		fmt.Fprintf(out, "  collect p99 at %s: %s\n  proof p99 at %s:   %s\n", pct(o.halfOf), Spread(m.collectP99, lat), pct(o.halfOf), Spread(m.proofP99, lat))
	}
	if !o.noBaseline && len(m.collectBaseP99) > 0 {
		fmt.Fprintf(out, "  the baseline at the same rates: collect p99 %s, read p99 %s\n", Spread(m.collectBaseP99, lat), Spread(m.proofBaseP99, lat))
		fmt.Fprintf(out, "  the durable baseline at the same rate: collect p99 %s\n", Spread(m.collectDurableP99, lat))
	}
	if o.metrics != "" && len(m.collectServerP99) > 0 {
		fmt.Fprintf(out, "  svc's handlers at the same rates (bucket bounds): collect p99 %s, proof p99 %s\n", Spread(m.collectServerP99, lat), Spread(m.proofServerP99, lat))
	}
	if len(m.collectStolen) > 0 {
		fmt.Fprintf(out, "  CPU stolen by the hypervisor during svc's collect at %s: %s\n", pct(o.halfOf), Spread(m.collectStolen, stolenText))
	}
	if len(m.proofRateP99) > 0 {
		fmt.Fprintf(out, "  proof p99 at %s/s:  %s\n", thousands(o.proofRate), Spread(m.proofRateP99, lat))
	}
	if len(m.collectRateP99) > 0 {
		fmt.Fprintf(out, "  collect p99 at %s/s: %s\n", thousands(o.collectRate), Spread(m.collectRateP99, lat))
		if !o.noBaseline {
			fmt.Fprintf(out, "  the durable baseline at %s/s: collect p99 %s\n", thousands(o.collectRate), Spread(m.collectRateDurableP99, lat))
		}
	}
}

func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }
