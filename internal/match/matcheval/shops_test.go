package matcheval

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/svc-project/svc/internal/match"
)

func loadShops(t *testing.T) []*Set {
	t.Helper()
	if _, err := DataDir(); err != nil {
		// The sets are not in the repository (docs/enrichment.md,
		// Evaluation); .ci/run finds them beside the checkout.
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	sets, err := ShopSets()
	if err != nil {
		t.Fatal(err)
	}
	return sets
}

// shopFloors are the least figures of each set's held-out products, just
// under what is measured (docs/enrichment.md, Many shops), so that a
// regression shows: lookup precision and recall, the most of the
// queries without their product in the brand that may get an answer, and
// the offers' precision. LSPC's products are the groups its matching
// pairs join, and two groups are often one product, so its precision is a
// floor of the true one.
var shopFloors = map[string]struct{ precision, recall, absent, offers float64 }{
	"wdc-products":   {0.95, 0.15, 0.02, 0.88},
	"lspc-cameras":   {0.87, 0.15, 0.05, 0.65},
	"lspc-computers": {0.88, 0.30, 0.08, 0.40},
	"lspc-shoes":     {0.92, 0.10, 0.01, 0.88},
	"lspc-watches":   {0.89, 0.24, 0.06, 0.39},
}

// TestShops measures every set beside Walmart–Amazon on its held-out
// products (half of them, whole) as twelve shops: each listing looked up
// in another shop as search-enrich asks (half of them in a shop without
// its product, which must give no answer), its offers from its own shop
// as product-enrich asks them, and the set's test pairs. It prints one
// row of docs/enrichment.md's table per set, and each set's reliability;
// WDC Products' is checked (checkShopsReliability).
func TestShops(t *testing.T) {
	sets := loadShops(t)
	rows := make([]string, len(sets))
	var wg sync.WaitGroup
	for i, s := range sets {
		wg.Add(1)
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			defer wg.Done()
			if raceEnabled && s.Name != "wdc-products" {
				// .ci/run's tests run with -race, where the four LSPC
				// sets take minutes; `go test` without it measures them.
				t.Skip("LSPC is measured without -race")
			}
			task := NewShops(s, 12, true)
			answers := task.Run(0.01)
			f := Sum(AtLeast(answers, match.DefaultMinConfidence))
			o := task.Offers(0.01)
			if s.Name == "wdc-products" {
				checkShopsReliability(t, s.Name, append(slices.Clone(answers), o.Answers...))
			}
			o = o.AtLeast(match.DefaultMinConfidence)
			p := s.Pairs(0, true)
			rows[i] = fmt.Sprintf("| %s | %d | %.3f (%d/%d) | %.3f | %d/%d (%.3f) | %.3f | %.3f | %.3f | %.3f / %.3f / %.3f |",
				s.Name, len(task.Queries), f.Precision, f.Right, f.Answered, f.Recall, f.AbsentAnswered, f.Absent, f.AbsentRate,
				o.Precision(), o.FoundShare(), o.PairShare(), p.Precision, p.Recall, p.F1)
			t.Logf("%s: lookup: %s", s.Name, f)
			t.Logf("%s: %s", s.Name, o)
			t.Logf("%s: %s", s.Name, p)
			t.Logf("%s: reliability of lookups:\n%s", s.Name, reliabilityTable(answers))
			sure := Sum(AtLeast(answers, 0.95))
			t.Logf("%s: at min_confidence 0.95: %s", s.Name, sure)
			fl := shopFloors[s.Name]
			if f.Precision < fl.precision || f.Recall < fl.recall || f.AbsentRate > fl.absent || o.Precision() < fl.offers {
				t.Errorf("%s: lookup precision %.3f (want >= %.2f), recall %.3f (want >= %.2f), answered without the product %.3f (want <= %.2f), offers' precision %.3f (want >= %.2f)",
					s.Name, f.Precision, fl.precision, f.Recall, fl.recall, f.AbsentRate, fl.absent, o.Precision(), fl.offers)
			}
		})
	}
	t.Cleanup(func() {
		wg.Wait()
		t.Logf("held-out products, twelve shops, default min_confidence:\n"+
			"| set | queries | lookup precision | recall | answered without the product | offers' precision | offers found (of listings with a counterpart) | pairs found | test pairs P / R / F1 |\n"+
			"|---|---|---|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
	})
}

// checkShopsReliability checks that confidence means what it says on
// WDC Products' held-out products, the set whose products are whole: in
// each tenth of confidence with at least 30 answers (lookups and offers),
// the share right is within 0.05 of the mean confidence, and the answers
// at min_confidence 0.95 are right at least 93% of the time.
func checkShopsReliability(t *testing.T, name string, answers []Answer) {
	t.Helper()
	t.Logf("%s: reliability of held-out lookups and offers:\n%s", name, checkReliability(t, answers, 30))
	if f := Sum(AtLeast(answers, 0.95)); f.Answered > 0 && f.Precision < 0.93 {
		t.Errorf("at min_confidence 0.95: %s (want precision >= 0.93)", f)
	}
}
