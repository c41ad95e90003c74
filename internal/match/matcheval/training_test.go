package matcheval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/match"
)

// BenchmarkTraining measures every set beside Walmart–Amazon on its
// training products, where a change is measured before the held-out
// halves are run once to report it (docs/enrichment.md, Recall across
// shops): the row TestShops prints, and the lookups the tiers answer at
// any confidence (min_confidence 0.5) and at 0.95, so that a change to
// the rules shows apart from the calibration's levels. A benchmark, not
// a test: it measures and asserts nothing (a minute on 2 cores), and its
// metrics compare with benchstat (-v: Go cuts a benchmark's log at 10
// lines without it):
//
//	SVC_MATCH_DATA=… go test -v -run '^$' -bench 'Training$' -benchtime 1x ./internal/match/matcheval/
func BenchmarkTraining(b *testing.B) {
	needData(b)
	for _, name := range ShopSetNames {
		b.Run(name, func(b *testing.B) {
			s, err := LoadShopSet(name)
			if err != nil {
				b.Fatal(err)
			}
			var task *Shops
			var answers []Answer
			for b.Loop() {
				task = NewShops(s, 12, false)
				answers = task.Run(0.01)
			}
			o := task.Offers(0.01).AtLeast(match.DefaultMinConfidence)
			var sb strings.Builder
			fmt.Fprintf(&sb, "%s, training products, %d lookups:\n", name, len(task.Queries))
			for _, least := range []float64{0.5, match.DefaultMinConfidence, 0.95} {
				f := Sum(AtLeast(answers, least))
				fmt.Fprintf(&sb, "  at %.2f: precision %.3f (%d/%d), recall %.3f, answered without the product %d/%d (%.3f)\n",
					least, f.Precision, f.Right, f.Answered, f.Recall, f.AbsentAnswered, f.Absent, f.AbsentRate)
				if least == match.DefaultMinConfidence {
					b.ReportMetric(f.Precision, "precision")
					b.ReportMetric(f.Recall, "recall")
					b.ReportMetric(f.AbsentRate, "absent-answered")
				}
			}
			fmt.Fprintf(&sb, "  offers at %.2f: precision %.3f, found %.3f, pairs found %.3f",
				match.DefaultMinConfidence, o.Precision(), o.FoundShare(), o.PairShare())
			b.ReportMetric(o.Precision(), "offers-precision")
			b.ReportMetric(o.FoundShare(), "offers-found")
			b.Log(sb.String())
		})
	}
}
