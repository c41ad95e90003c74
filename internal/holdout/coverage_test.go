package holdout

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Sessions simulated with a known true lift: over many seeds, the 95%
// intervals cover the true difference about 95% of the time. The seeds
// are fixed, so the test gives the same answer on every run.
func TestCoverageOfConversion(t *testing.T) {
	const (
		runs           = 2000
		pShown, pHeld  = 0.06, 0.05
		nShown, nHeld  = 4000, 3000
		trueDifference = pShown - pHeld
	)
	covered := 0
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 7))
		ci := DiffProportions(binomial(rng, nShown, pShown), nShown, binomial(rng, nHeld, pHeld), nHeld)
		if ci.Lo <= trueDifference && trueDifference <= ci.Hi {
			covered++
		}
	}
	// The standard error of the share over 2,000 runs is 0.5 points.
	if share := float64(covered) / runs; share < 0.935 || share > 0.965 {
		t.Errorf("the interval covered the true lift in %.1f%% of runs, want about 95%%", 100*share)
	} else {
		t.Logf("conversion: covered in %.1f%% of %d runs", 100*share, runs)
	}
}

// Revenue per session, by each interval DiffMeans may give: exponential
// order values over 400 sessions (mostly normal by Cochran's rule, the
// bootstrap where a draw is too skewed), the bootstrap alone on them, and
// lognormal ones of σ = 1, 3% of 40,000 sessions buying (normal).
func TestCoverageOfRevenuePerSession(t *testing.T) {
	t.Parallel()
	const runs = 200
	exponential := func(rng *rand.Rand) float64 { return rng.ExpFloat64() * 50 }
	logNormal := func(rng *rand.Rand) float64 { return math.Exp(3 + rng.NormFloat64()) }
	for _, c := range []struct {
		name          string
		n             int
		pShown, pHeld float64
		order         func(*rand.Rand) float64
		meanOrder     float64
		interval      func(a, b Sample, seed uint64) Interval
	}{
		{"exponential, DiffMeans", 400, 0.30, 0.25, exponential, 50, func(a, b Sample, seed uint64) Interval { return DiffMeans(a, b, 400, seed) }},
		{"exponential, bootstrap", 400, 0.30, 0.25, exponential, 50, func(a, b Sample, seed uint64) Interval { return bootstrapDiffMeans(a, b, 400, seed) }},
		{"lognormal, DiffMeans", 40000, 0.035, 0.03, logNormal, math.Exp(3 + 0.5), func(a, b Sample, seed uint64) Interval { return DiffMeans(a, b, 400, seed) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			trueDifference := (c.pShown - c.pHeld) * c.meanOrder
			covered, methods := 0, map[Method]int{}
			for seed := range uint64(runs) {
				rng := rand.New(rand.NewPCG(seed, 11))
				draw := func(p float64) Sample {
					var values []float64
					for range c.n {
						if rng.Float64() < p {
							values = append(values, c.order(rng))
						}
					}
					return Sample{N: int64(c.n), NonZero: RevenuesOf(values...)}
				}
				ci := c.interval(draw(c.pShown), draw(c.pHeld), seed)
				methods[ci.Method]++
				if ci.Lo <= trueDifference && trueDifference <= ci.Hi {
					covered++
				}
			}
			// 200 runs: a standard error of 1.5 points.
			if share := float64(covered) / runs; share < 0.90 || share > 0.99 {
				t.Errorf("%s: the interval covered the true lift in %.1f%% of runs (%v), want about 95%%", c.name, 100*share, methods)
			} else {
				t.Logf("revenue per session, %s: covered in %.1f%% of %d runs (%v)", c.name, 100*share, runs, methods)
			}
		})
	}
}

func binomial(rng *rand.Rand, n int64, p float64) int64 {
	var k int64
	for range n {
		if rng.Float64() < p {
			k++
		}
	}
	return k
}
