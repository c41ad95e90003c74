package holdout

import (
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

func TestCoverageOfRevenuePerSession(t *testing.T) {
	const (
		runs          = 200
		n             = 400
		pShown, pHeld = 0.30, 0.25
		meanOrder     = 50.0 // exponential order values
	)
	trueDifference := (pShown - pHeld) * meanOrder
	covered := 0
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 11))
		draw := func(p float64) Sample {
			var values []float64
			for range n {
				if rng.Float64() < p {
					values = append(values, rng.ExpFloat64()*meanOrder)
				}
			}
			return Sample{N: n, NonZero: RevenuesOf(values...)}
		}
		ci := DiffMeans(draw(pShown), draw(pHeld), 400, seed)
		if ci.Lo <= trueDifference && trueDifference <= ci.Hi {
			covered++
		}
	}
	// 200 runs: a standard error of 1.5 points.
	if share := float64(covered) / runs; share < 0.90 || share > 0.99 {
		t.Errorf("the bootstrap interval covered the true lift in %.1f%% of runs, want about 95%%", 100*share)
	} else {
		t.Logf("revenue per session: covered in %.1f%% of %d runs", 100*share, runs)
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
