package holdout

import "time"

// ArmFigures are one arm's figures as the experiment endpoint answers them.
type ArmFigures struct {
	Sessions          int64   `json:"sessions"`
	Converted         int64   `json:"converted"`
	Conversion        float64 `json:"conversion"`
	RevenuePerSession float64 `json:"revenue_per_session"`
}

// Difference is the shown arm less the held-out one.
type Difference struct {
	Conversion float64 `json:"conversion"`
	// CI95 is the 95% interval of the conversion difference; nil while
	// an arm has no session.
	CI95        *[2]float64 `json:"ci95"`
	Significant bool        `json:"significant"`
	// RevenuePerSession and its 95% interval, found as
	// RevenuePerSessionInterval says (DiffMeans): "normal" or
	// "bootstrap"; empty while an arm has no session.
	RevenuePerSession         float64     `json:"revenue_per_session"`
	RevenuePerSessionCI95     *[2]float64 `json:"revenue_per_session_ci95"`
	RevenuePerSessionInterval Method      `json:"revenue_per_session_interval,omitempty"`
	RevenueSignificant        bool        `json:"revenue_significant"`
	// SessionsNeeded is how many sessions in all, split between the arms
	// as now, would detect the difference seen (or a 10% relative lift
	// when there is none) at the 5% level with 80% power; 0 when it
	// cannot be told.
	SessionsNeeded int64 `json:"sessions_needed"`
}

// Experiment is the holdout experiment of a brand: GET
// /api/svc/experiment answers it, and the dashboard shows it.
type Experiment struct {
	BrandID string `json:"brand_id"`
	Holdout int    `json:"holdout"`
	Arms    struct {
		Shown   ArmFigures `json:"shown"`
		HeldOut ArmFigures `json:"held_out"`
	} `json:"arms"`
	Difference  Difference `json:"difference"`
	Currency    string     `json:"currency,omitempty"`
	GeneratedAt time.Time  `json:"generated_at"`
}

// FiguresOf are the arm's figures.
func FiguresOf(a Arm) ArmFigures {
	return ArmFigures{Sessions: a.Sessions, Converted: a.Converted(), Conversion: a.Conversion(), RevenuePerSession: a.RevenuePerSession()}
}

// Measure is the brand's experiment under a holdout of percent, from its
// arms, generated at at.
func Measure(brandID string, percent int, currency string, at time.Time, shown, held Arm) Experiment {
	e := Experiment{BrandID: brandID, Holdout: percent, Currency: currency, GeneratedAt: at.UTC().Truncate(time.Second)}
	e.Arms.Shown, e.Arms.HeldOut = FiguresOf(shown), FiguresOf(held)
	e.Difference.Conversion = shown.Conversion() - held.Conversion()
	e.Difference.RevenuePerSession = shown.RevenuePerSession() - held.RevenuePerSession()
	r := Compare(shown, held)
	if r.Ready {
		e.Difference.CI95 = &[2]float64{r.Conversion.Lo, r.Conversion.Hi}
		e.Difference.Significant = r.Conversion.Significant()
		e.Difference.RevenuePerSessionCI95 = &[2]float64{r.RevenuePerSession.Lo, r.RevenuePerSession.Hi}
		e.Difference.RevenuePerSessionInterval = r.RevenuePerSession.Method
		e.Difference.RevenueSignificant = r.RevenuePerSession.Significant()
		e.Difference.SessionsNeeded = r.Needed
	}
	return e
}
