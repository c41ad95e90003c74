package holdout

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g (±%g)", name, got, want, tol)
	}
}

func TestZ(t *testing.T) {
	// Python: statistics.NormalDist().inv_cdf(p).
	near(t, "Z(0.975)", Z(0.975), 1.9599639845400536, 1e-12)
	near(t, "Z(0.80)", Z(0.80), 0.8416212335729144, 1e-12)
	near(t, "Z(0.5)", Z(0.5), 0, 1e-15)
}

func TestDiffProportions(t *testing.T) {
	// OpenIntro Statistics (4th ed.), 6.2: the CPR study, 14 of 40 treated
	// and 11 of 50 controls survived; the difference 0.13 with SE 0.095
	// gives the 95% interval (-0.056, 0.316) from the rounded SE.
	ci := DiffProportions(14, 40, 11, 50)
	near(t, "estimate", ci.Estimate, 0.13, 1e-12)
	near(t, "lo (textbook)", ci.Lo, -0.056, 0.002)
	near(t, "hi (textbook)", ci.Hi, 0.316, 0.002)
	if ci.Significant() {
		t.Error("an interval across zero is significant")
	}
	// The same unrounded, and a large sample, computed independently in
	// Python (statistics.NormalDist, math.sqrt).
	near(t, "lo", ci.Lo, -0.057168864171688705, 1e-12)
	near(t, "hi", ci.Hi, 0.31716886417168866, 1e-12)
	ci = DiffProportions(640, 10000, 500, 10000)
	near(t, "lo", ci.Lo, 0.007576698332027121, 1e-12)
	near(t, "hi", ci.Hi, 0.020423301667972876, 1e-12)
	if !ci.Significant() {
		t.Error("an interval above zero is not significant")
	}
	if (Interval{Estimate: -1, Lo: -2, Hi: -0.5}).Significant() != true {
		t.Error("an interval below zero is not significant")
	}
}

func TestSampleSize(t *testing.T) {
	// 15% against 10%, equal arms: 683 a group, the usual worked value of
	// the unpooled formula (n = (1.96+0.84)² (p1q1+p2q2) / d²).
	if n := SampleSize(0.15, 0.10, 1); n != 2*683 {
		t.Errorf("SampleSize(0.15, 0.10, 1) = %d, want 1366", n)
	}
	// 5.5% against 5% with a 10% holdout (9 shown to 1 held out),
	// computed independently in Python: 16,726 held out, 150,534 shown.
	if n := SampleSize(0.055, 0.05, 9); n != 167260 {
		t.Errorf("SampleSize(0.055, 0.05, 9) = %d, want 167260", n)
	}
	if n := SampleSize(0.05, 0.05, 1); n != 0 {
		t.Errorf("no difference needs %d sessions, want 0 (none can tell)", n)
	}
}

func TestDiffMeans(t *testing.T) {
	a := Sample{N: 5, NonZero: RevenuesOf(20, 10)}
	b := Sample{N: 4, NonZero: RevenuesOf(4)}
	ci := DiffMeans(a, b, 2000, BootstrapSeed)
	near(t, "estimate", ci.Estimate, 6-1, 1e-12)
	if again := DiffMeans(a, b, 2000, BootstrapSeed); again != ci {
		t.Errorf("the fixed seed gives %v, then %v", ci, again)
	}
	if !(ci.Lo < ci.Estimate && ci.Estimate < ci.Hi) {
		t.Errorf("interval %v does not hold its estimate", ci)
	}
	// For large samples the percentile interval is close to the normal
	// one, mean difference ± 1.96 standard errors, within the bootstrap's
	// own error: the 2.5% quantile of 1,000 resamples is off by about
	// sqrt(0.025×0.975/1000)/φ(1.96) = 0.085 standard errors (one sd), so
	// 0.25 is 3 of them. (0.08 passed with the values unsorted, by luck
	// of the draws: the runs draw the same values in their sorted order.)
	rng := rand.New(rand.NewPCG(1, 2))
	big := func(n int, p, scale float64) (Sample, float64) {
		var values []float64
		for range n {
			if rng.Float64() < p {
				values = append(values, rng.ExpFloat64()*scale)
			}
		}
		s := Sample{N: int64(n), NonZero: RevenuesOf(values...)}
		m := s.Mean()
		var ss float64
		for _, v := range values {
			ss += (v - m) * (v - m)
		}
		ss += float64(int64(n)-int64(len(values))) * m * m
		return s, ss / float64(n-1) / float64(n)
	}
	x, vx := big(8000, 0.2, 50)
	y, vy := big(8000, 0.2, 45)
	ci = DiffMeans(x, y, 1000, BootstrapSeed)
	se := math.Sqrt(vx + vy)
	near(t, "lo against normal", ci.Lo, ci.Estimate-1.96*se, 0.25*se)
	near(t, "hi against normal", ci.Hi, ci.Estimate+1.96*se, 0.25*se)
}

func TestCompare(t *testing.T) {
	if r := Compare(Arm{Sessions: 10}, Arm{}); r.Ready {
		t.Error("an arm without sessions gives a result")
	}
	shown := Arm{Sessions: 10000, Revenues: []Revenue{{30, 640}}}
	held := Arm{Sessions: 10000, Revenues: []Revenue{{30, 500}}}
	r := Compare(shown, held)
	near(t, "conversion", r.Conversion.Estimate, 0.014, 1e-12)
	near(t, "revenue per session", r.RevenuePerSession.Estimate, 30*0.014, 1e-9)
	if !r.Conversion.Significant() || !r.RevenuePerSession.Significant() {
		t.Errorf("6.4%% against 5.0%% over 10,000 sessions each: %+v", r)
	}
	if shown.Conversion() != 0.064 || held.RevenuePerSession() != 1.5 {
		t.Errorf("arm figures %v %v", shown.Conversion(), held.RevenuePerSession())
	}
	// No difference at all: the sample for a 10% relative lift.
	r = Compare(Arm{Sessions: 1000, Revenues: []Revenue{{0, 50}}}, Arm{Sessions: 1000, Revenues: []Revenue{{0, 50}}})
	if r.Conversion.Significant() || r.Needed != SampleSize(0.055, 0.05, 1) {
		t.Errorf("no difference: %+v", r)
	}
}

// A resample's mean has the population's mean and its variance over N,
// whatever share of the values is zero: resampleMean draws only those
// that land among the non-zero values.
func TestResampleMeanDistribution(t *testing.T) {
	for _, nonZero := range []int64{1, 40, 400, 1000} {
		s := Sample{N: 1000}
		for i := range nonZero {
			s.NonZero = append(s.NonZero, Revenue{Value: float64(1 + i%7), Sessions: 1})
		}
		var sum, sumSq float64
		for _, r := range s.NonZero {
			sum += r.Value
			sumSq += r.Value * r.Value
		}
		mean := sum / float64(s.N)
		variance := (sumSq/float64(s.N) - mean*mean) / float64(s.N)
		rng := rand.New(rand.NewPCG(1, 2))
		ends := s.ends()
		const draws = 20000
		var m, m2 float64
		for range draws {
			x := resampleMean(rng, s, ends)
			m += x
			m2 += x * x
		}
		m /= draws
		v := m2/draws - m*m
		// The sample mean's standard error is sqrt(variance/draws); the
		// sample variance's relative one about sqrt(2/draws), 1%.
		if d := math.Abs(m - mean); d > 5*math.Sqrt(variance/draws) {
			t.Errorf("%d of 1000 non-zero: mean of resamples %.6f, want %.6f", nonZero, m, mean)
		}
		if r := v / variance; r < 0.94 || r > 1.06 {
			t.Errorf("%d of 1000 non-zero: variance of resamples %.3g, want %.3g", nonZero, v, variance)
		}
	}
}

// BenchmarkDiffMeans: a holdout of a million sessions a arm, 2% of which
// bought (20,000 revenues in 500 runs), with Compare's resamples.
func BenchmarkDiffMeans(b *testing.B) {
	s := Sample{N: 1_000_000}
	for i := range 500 {
		s.NonZero = append(s.NonZero, Revenue{Value: float64(10 + i), Sessions: 40})
	}
	for b.Loop() {
		DiffMeans(s, s, Resamples, BootstrapSeed)
	}
}
