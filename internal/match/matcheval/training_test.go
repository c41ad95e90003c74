package matcheval

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/match"
)

// TestTraining measures every set beside Walmart–Amazon on its training
// products, where a change is measured before the held-out halves are
// run once to report it (docs/enrichment.md, Recall across shops): the
// row TestShops prints, and the lookups the tiers answer at any
// confidence (min_confidence 0.5) and at 0.95, so that a change to the
// rules shows apart from the calibration's levels. It runs only when
// SVC_MATCH_TRAINING is set (a minute on 2 cores):
//
//	SVC_MATCH_TRAINING=1 SVC_MATCH_DATA=… go test -v -run Training ./internal/match/matcheval/
func TestTraining(t *testing.T) {
	if os.Getenv("SVC_MATCH_TRAINING") == "" {
		t.Skip("set SVC_MATCH_TRAINING to measure the training products")
	}
	needData(t)
	t.Parallel()
	for _, name := range ShopSetNames {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := LoadShopSet(name)
			if err != nil {
				t.Fatal(err)
			}
			task := NewShops(s, 12, false)
			answers := task.Run(0.01)
			o := task.Offers(0.01).AtLeast(match.DefaultMinConfidence)
			var b strings.Builder
			fmt.Fprintf(&b, "%s, training products, %d lookups:\n", name, len(task.Queries))
			for _, least := range []float64{0.5, match.DefaultMinConfidence, 0.95} {
				f := Sum(AtLeast(answers, least))
				fmt.Fprintf(&b, "  at %.2f: precision %.3f (%d/%d), recall %.3f, answered without the product %d/%d (%.3f)\n",
					least, f.Precision, f.Right, f.Answered, f.Recall, f.AbsentAnswered, f.Absent, f.AbsentRate)
			}
			fmt.Fprintf(&b, "  offers at %.2f: precision %.3f, found %.3f, pairs found %.3f",
				match.DefaultMinConfidence, o.Precision(), o.FoundShare(), o.PairShare())
			t.Log(b.String())
		})
	}
}
