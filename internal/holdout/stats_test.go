package holdout

import (
	"math"
	"math/rand/v2"
	"slices"
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
	t.Parallel()
	// Five and four sessions are too few for their skewness (Cochran's
	// rule): a bootstrap.
	a := Sample{N: 5, NonZero: RevenuesOf(20, 10)}
	b := Sample{N: 4, NonZero: RevenuesOf(4)}
	ci := DiffMeans(a, b, 2000, BootstrapSeed)
	near(t, "estimate", ci.Estimate, 6-1, 1e-12)
	if ci.Method != Bootstrap {
		t.Errorf("9 sessions: a %q interval, want a bootstrap", ci.Method)
	}
	if again := DiffMeans(a, b, 2000, BootstrapSeed); again != ci {
		t.Errorf("the fixed seed gives %v, then %v", ci, again)
	}
	if !(ci.Lo < ci.Estimate && ci.Estimate < ci.Hi) {
		t.Errorf("interval %v does not hold its estimate", ci)
	}
	// 8,000 sessions an arm, a fifth of which bought: the normal
	// interval, its standard error computed here over every session's
	// value. The bootstrap's ends are close to it, within the bootstrap's
	// own error: the 2.5% quantile of 1,000 resamples is off by about
	// sqrt(0.025×0.975/1000)/φ(1.96) = 0.085 standard errors (one sd), so
	// 0.25 is 3 of them. (0.08 passed with the values unsorted, by luck
	// of the draws: the runs draw the same values in their sorted order.)
	x, vx := bigSample(rand.New(rand.NewPCG(1, 2)), 8000, 0.2, 50)
	y, vy := bigSample(rand.New(rand.NewPCG(3, 4)), 8000, 0.2, 45)
	se := math.Sqrt(vx + vy)
	ci = DiffMeans(x, y, 1000, BootstrapSeed)
	if ci.Method != Normal {
		t.Errorf("8,000 sessions an arm: a %q interval, want a normal one", ci.Method)
	}
	near(t, "estimate", ci.Estimate, x.Mean()-y.Mean(), 1e-9)
	near(t, "normal lo", ci.Lo, ci.Estimate-1.959964*se, 1e-4*se)
	near(t, "normal hi", ci.Hi, ci.Estimate+1.959964*se, 1e-4*se)
	boot := bootstrapDiffMeans(x, y, 1000, BootstrapSeed)
	near(t, "bootstrap lo against normal", boot.Lo, ci.Lo, 0.25*se)
	near(t, "bootstrap hi against normal", boot.Hi, ci.Hi, 0.25*se)
}

// bigSample draws n sessions of which a share p bought, for exponential
// revenues of mean scale, and returns them with the variance of their
// mean computed over a value per session.
func bigSample(rng *rand.Rand, n int, p, scale float64) (Sample, float64) {
	values := make([]float64, n) // zero for those that did not buy
	var bought []float64
	for i := range values {
		if rng.Float64() < p {
			values[i] = rng.ExpFloat64() * scale
			bought = append(bought, values[i])
		}
	}
	s := Sample{N: int64(n), NonZero: RevenuesOf(bought...)}
	m := s.Mean()
	var ss float64
	for _, v := range values {
		ss += (v - m) * (v - m)
	}
	return s, ss / float64(n-1) / float64(n)
}

// Cochran's rule: the same million sessions take the normal interval,
// until one order of a million makes them too skewed for it; the moments
// match those computed over a value per session.
func TestDiffMeansByCochransRule(t *testing.T) {
	t.Parallel()
	s := Sample{N: 1_000_000, NonZero: []Revenue{{20, 10_000}, {50, 10_000}}}
	if ci := DiffMeans(s, s, 100, BootstrapSeed); ci.Method != Normal || ci.Lo >= 0 || ci.Hi <= 0 {
		t.Errorf("20,000 buyers of a million: %+v, want a normal interval around 0", ci)
	}
	whale := Sample{N: s.N, NonZero: append(slices.Clone(s.NonZero), Revenue{1_000_000, 1})}
	whale.NonZero[1].Sessions--
	mean, variance, skewness := whale.moments()
	// Over a value per session: 980,000 zeros, then the buyers.
	var sum, m2, m3 float64
	each := func(v float64, times int64, f func(float64)) {
		for range times {
			f(v)
		}
	}
	for _, r := range append([]Revenue{{0, whale.N - whale.nonZero()}}, whale.NonZero...) {
		each(r.Value, r.Sessions, func(v float64) { sum += v })
	}
	m := sum / float64(whale.N)
	for _, r := range append([]Revenue{{0, whale.N - whale.nonZero()}}, whale.NonZero...) {
		each(r.Value, r.Sessions, func(v float64) { m2 += (v - m) * (v - m); m3 += (v - m) * (v - m) * (v - m) })
	}
	n := float64(whale.N)
	near(t, "mean", mean, m, 1e-12*m)
	near(t, "variance", variance, m2/(n-1), 1e-9*variance)
	near(t, "skewness", skewness, m3/n/math.Pow(m2/n, 1.5), 1e-9*skewness)
	if 25*skewness*skewness <= n {
		t.Fatalf("skewness %.0f: the whale should break the rule", skewness)
	}
	if ci := DiffMeans(whale, s, 100, BootstrapSeed); ci.Method != Bootstrap {
		t.Errorf("a whale among a million: a %q interval, want a bootstrap", ci.Method)
	}
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
	t.Parallel()
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
// bought (20,000 revenues in 500 runs), with Compare's resamples: the
// normal interval, by Cochran's rule.
func BenchmarkDiffMeans(b *testing.B) {
	s := millionSessions()
	for b.Loop() {
		if DiffMeans(s, s, Resamples, BootstrapSeed).Method != Normal {
			b.Fatal("not the normal interval")
		}
	}
}

// BenchmarkDiffMeansBootstrap: the same arms by bootstrap, as they were
// before Cochran's rule and as a sample too skewed for it is.
func BenchmarkDiffMeansBootstrap(b *testing.B) {
	s := millionSessions()
	for b.Loop() {
		bootstrapDiffMeans(s, s, Resamples, BootstrapSeed)
	}
}

func millionSessions() Sample {
	s := Sample{N: 1_000_000}
	for i := range 500 {
		s.NonZero = append(s.NonZero, Revenue{Value: float64(10 + i), Sessions: 40})
	}
	return s
}
