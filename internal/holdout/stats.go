// Package holdout is a brand's holdout experiment, in one place: which
// sessions never see the widget (arm.go), how the arms compare with how
// sure the difference is (compare.go, and the statistics here), and the
// experiment's figures as GET /api/svc/experiment and the dashboard give
// them (experiment.go). The brand's setting is svc.Brand.Holdout; the
// rollups keep each session's arm, which internal/insights reads.
package holdout

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Z returns the standard normal quantile of p, 0 < p < 1.
func Z(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// z95 is the two-sided 95% critical value, Z(0.975).
var z95 = Z(0.975)

// Interval is a point estimate with its 95% confidence interval.
type Interval struct {
	Estimate float64
	Lo, Hi   float64
	// Method is how the interval was found (DiffMeans): Normal or
	// Bootstrap; empty for DiffProportions, always a normal one.
	Method Method
}

// Method names how DiffMeans found an interval.
type Method string

const (
	// Normal: the estimate ± z(0.975) standard errors, each mean's
	// variance its own (unpooled).
	Normal Method = "normal"
	// Bootstrap: the 2.5% and 97.5% percentiles of resampled differences.
	Bootstrap Method = "bootstrap"
)

// Significant reports whether the interval excludes zero.
func (i Interval) Significant() bool { return i.Lo > 0 || i.Hi < 0 }

// DiffProportions returns the difference x1/n1 - x2/n2 of two independent
// proportions with its 95% Wald interval (unpooled standard error), as
// textbooks give it for large samples. Both n must be positive.
func DiffProportions(x1, n1, x2, n2 int64) Interval {
	p1, p2 := float64(x1)/float64(n1), float64(x2)/float64(n2)
	se := math.Sqrt(p1*(1-p1)/float64(n1) + p2*(1-p2)/float64(n2))
	d := p1 - p2
	return Interval{Estimate: d, Lo: d - z95*se, Hi: d + z95*se}
}

// SampleSize returns how many sessions in all two arms need, split as
// ratio sessions of the first arm to one of the second, to detect a
// difference between proportions p1 and p2 with a two-sided test at the
// 5% level and 80% power (the normal approximation with unpooled
// variances; Chow, Shao and Wang, Sample Size Calculations in Clinical
// Research, 4.2). It returns 0 when p1 equals p2: no sample can.
func SampleSize(p1, p2, ratio float64) int64 {
	d := p1 - p2
	if d == 0 || ratio <= 0 {
		return 0
	}
	z := z95 + Z(0.80)
	n2 := z * z * (p1*(1-p1)/ratio + p2*(1-p2)) / (d * d)
	n2 = math.Ceil(n2)
	return int64(math.Ceil(n2*ratio)) + int64(n2)
}

// BootstrapSeed seeds the bootstrap: the same figures give the same
// interval on every page load and every node.
const BootstrapSeed = 0x5eed

// Sample is n values of which only the first few may be non-zero:
// revenue per session is zero for every session that did not buy, so
// only the buyers' revenues are kept.
type Sample struct {
	N int64
	// The first values, in runs of equal ones, ascending (Sorted): at
	// most N; the other N less theirs are 0.
	NonZero []Revenue
}

// Revenue is a value of a Sample and how many times it comes: a revenue
// and how many sessions had it.
type Revenue struct {
	Value    float64
	Sessions int64
}

// Sorted sorts runs by value and merges those of one value, in place:
// the order a Sample's values are drawn in (DiffMeans), whatever order
// they came in.
func Sorted(runs []Revenue) []Revenue {
	slices.SortFunc(runs, func(x, y Revenue) int { return cmp.Compare(x.Value, y.Value) })
	out := runs[:0]
	for _, r := range runs {
		switch {
		case r.Sessions == 0:
		case len(out) > 0 && out[len(out)-1].Value == r.Value:
			out[len(out)-1].Sessions += r.Sessions
		default:
			out = append(out, r)
		}
	}
	return out
}

// RevenuesOf returns values as a Sample's runs (Sorted).
func RevenuesOf(values ...float64) []Revenue {
	runs := make([]Revenue, len(values))
	for i, v := range values {
		runs[i] = Revenue{v, 1}
	}
	return Sorted(runs)
}

// nonZero is how many values the runs hold.
func (s Sample) nonZero() int64 {
	var n int64
	for _, r := range s.NonZero {
		n += r.Sessions
	}
	return n
}

// Mean returns the sample's mean, 0 when it is empty. Its sum adds each
// value as many times as it comes, in the runs' order: the same sum, to
// the bit, as over a sorted list of the values.
func (s Sample) Mean() float64 {
	if s.N == 0 {
		return 0
	}
	var sum float64
	for _, r := range s.NonZero {
		for range r.Sessions {
			sum += r.Value
		}
	}
	return sum / float64(s.N)
}

// DiffMeans returns the difference of the means of a and b with a 95%
// interval. Revenue per session is zero for most sessions and skewed
// among the rest, so its values are far from normal; their mean is near
// enough normal once a sample is large against its skewness. Cochran's
// rule says when: N > 25·G1², G1 the values' skewness (Sampling
// Techniques, 3rd ed., 1977, 2.15). When both samples pass it, the
// interval is the normal one, the estimate ± 1.96 standard errors;
// otherwise it is a percentile bootstrap of resamples resamplings of
// each sample, drawn with the given seed, which assumes nothing about
// the values. Both grow with the buyers, the normal interval by a few
// sums over them and the bootstrap by a draw each per resample: a
// million sessions an arm of which 2% bought took 3.8 s by bootstrap
// and take 44 µs by the normal interval, which the rule gives them
// (BenchmarkDiffMeans). Both samples must be non-empty.
func DiffMeans(a, b Sample, resamples int, seed uint64) Interval {
	ma, va, ga := a.moments()
	mb, vb, gb := b.moments()
	if a.nearNormal(ga) && b.nearNormal(gb) {
		half := z95 * math.Sqrt(va/float64(a.N)+vb/float64(b.N))
		d := ma - mb
		return Interval{Estimate: d, Lo: d - half, Hi: d + half, Method: Normal}
	}
	return bootstrapDiffMeans(a, b, resamples, seed)
}

// nearNormal reports whether the mean of s is near enough normal for a
// normal interval, by Cochran's rule, given the values' skewness.
func (s Sample) nearNormal(skewness float64) bool {
	return float64(s.N) > 25*skewness*skewness
}

// moments returns the sample's mean, its variance (over N-1, 0 for one
// value) and its skewness g1 (the third central moment over the second's
// 3/2 power, each over N; 0 when all values are equal), over the runs
// and the zeros as one run.
func (s Sample) moments() (mean, variance, skewness float64) {
	mean = s.Mean()
	zeros := float64(s.N - s.nonZero())
	m2, m3 := zeros*mean*mean, -zeros*mean*mean*mean
	for _, r := range s.NonZero {
		d := r.Value - mean
		m2 += float64(r.Sessions) * d * d
		m3 += float64(r.Sessions) * d * d * d
	}
	n := float64(s.N)
	if s.N > 1 {
		variance = m2 / (n - 1)
	}
	if m2 > 0 {
		skewness = (m3 / n) / math.Pow(m2/n, 1.5)
	}
	return mean, variance, skewness
}

// bootstrapDiffMeans is DiffMeans's percentile bootstrap.
func bootstrapDiffMeans(a, b Sample, resamples int, seed uint64) Interval {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	diffs := make([]float64, resamples)
	ea, eb := a.ends(), b.ends()
	for i := range diffs {
		diffs[i] = resampleMean(rng, a, ea) - resampleMean(rng, b, eb)
	}
	slices.Sort(diffs)
	return Interval{Estimate: a.Mean() - b.Mean(), Lo: quantile(diffs, 0.025), Hi: quantile(diffs, 0.975), Method: Bootstrap}
}

// ends are where each run of s.NonZero ends among its values.
func (s Sample) ends() []int64 {
	ends := make([]int64, len(s.NonZero))
	var n int64
	for i, r := range s.NonZero {
		n += r.Sessions
		ends[i] = n
	}
	return ends
}

// resampleMean draws s.N values with replacement and returns their mean,
// the i-th value the one of the run that holds it (ends, s.ends()). Only
// the draws that land among the k non-zero values add to the sum, so
// only those are drawn: each of the s.N draws lands there with
// probability k/s.N, so the draws between two that land are a geometric
// count, and one that lands is uniform among the k. The same distribution
// as s.N uniform draws, in time proportional to k rather than s.N: a
// million sessions of which a few thousand bought took seconds a reading.
func resampleMean(rng *rand.Rand, s Sample, ends []int64) float64 {
	var k int64
	if len(ends) > 0 {
		k = ends[len(ends)-1]
	}
	if k == 0 {
		return 0
	}
	var sum float64
	value := func() float64 {
		run, _ := slices.BinarySearch(ends, rng.Int64N(k)+1) // the first run that ends past the draw
		return s.NonZero[run].Value
	}
	if k == s.N { // every draw lands
		for range s.N {
			sum += value()
		}
		return sum / float64(s.N)
	}
	missLog := math.Log1p(-float64(k) / float64(s.N))
	for at := float64(-1); ; {
		at += 1 + math.Floor(math.Log(1-rng.Float64())/missLog) // 1-Float64 is in (0, 1]
		if at >= float64(s.N) {
			break
		}
		sum += value()
	}
	return sum / float64(s.N)
}

// quantile interpolates linearly between the order statistics of sorted
// (type 7 of Hyndman and Fan, R's default).
func quantile(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	i := int(h)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}
