package holdout

// Arm is what one arm of the experiment saw: its sessions, and the
// revenues of those that bought, each with how many sessions had it, in
// ascending order (Sorted): a shop's orders repeat their values, and a
// value per session was 4 MB a reading at 100,000 orders.
type Arm struct {
	Sessions int64
	Revenues []Revenue
}

// Converted is how many of the arm's sessions bought.
func (a Arm) Converted() int64 { return Sample{NonZero: a.Revenues}.nonZero() }

// Conversion is the share of the arm's sessions that bought, 0 without sessions.
func (a Arm) Conversion() float64 {
	if a.Sessions == 0 {
		return 0
	}
	return float64(a.Converted()) / float64(a.Sessions)
}

// RevenuePerSession is the arm's revenue over its sessions, 0 without sessions.
func (a Arm) RevenuePerSession() float64 {
	return Sample{N: a.Sessions, NonZero: a.Revenues}.Mean()
}

// Result compares the shown arm with the held-out one.
type Result struct {
	// Ready is false while an arm has no session: nothing can be said.
	Ready bool
	// Conversion and RevenuePerSession are the shown arm's figure less
	// the held-out arm's, with their 95% intervals.
	Conversion        Interval
	RevenuePerSession Interval
	// Needed is how many sessions in all, split as now, would detect the
	// conversion difference seen so far (or, when there is none, a 10%
	// relative lift) at the 5% level with 80% power.
	Needed int64
}

// Resamples is how many bootstrap resamplings Compare draws.
const Resamples = 1000

// Compare measures the difference between the arms.
func Compare(shown, heldOut Arm) Result {
	if shown.Sessions == 0 || heldOut.Sessions == 0 {
		return Result{}
	}
	r := Result{
		Ready:      true,
		Conversion: DiffProportions(shown.Converted(), shown.Sessions, heldOut.Converted(), heldOut.Sessions),
		RevenuePerSession: DiffMeans(Sample{shown.Sessions, shown.Revenues}, Sample{heldOut.Sessions, heldOut.Revenues},
			Resamples, BootstrapSeed),
	}
	p1, p2 := shown.Conversion(), heldOut.Conversion()
	if p1 == p2 {
		p1 = p2 * 1.1
	}
	r.Needed = SampleSize(p1, p2, float64(shown.Sessions)/float64(heldOut.Sessions))
	return r
}
