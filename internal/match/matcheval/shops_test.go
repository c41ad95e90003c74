package matcheval

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/svc-project/svc/internal/match"
)

// shopFloors are the least figures of each set's held-out products, just
// under what is measured (docs/enrichment.md, Many shops), so that a
// regression shows: lookup precision and recall, the most of the
// queries without their product in the brand that may get an answer, and
// the offers' precision. LSPC's products are the groups its matching
// pairs join, and two groups are often one product, so its precision is a
// floor of the true one, and its "without the product" a ceiling: LSPC
// computers' 0.10 and 0.44 and watches' 0.065 and 0.49 hold answers and
// offers that name the query's own part number ("647897-B21",
// "CC-9011077-WW", "WD20EFRX", "311.92.44.51.01.004" in two groups;
// docs/enrichment.md, Recall across shops (11-30, counts run into a
// technology; computer cases; dotted references; a maker written short)).
var shopFloors = map[string]struct{ precision, recall, absent, offers float64 }{
	"wdc-products":   {0.97, 0.23, 0.02, 0.94},
	"lspc-cameras":   {0.94, 0.19, 0.045, 0.79},
	"lspc-computers": {0.94, 0.35, 0.10, 0.44},
	"lspc-shoes":     {0.98, 0.12, 0.01, 0.93},
	"lspc-watches":   {0.95, 0.26, 0.065, 0.49},
}

// TestShops measures every set beside Walmart–Amazon on its held-out
// products (half of them, whole) as twelve shops: each listing looked up
// in another shop as search-enrich asks (half of them in a shop without
// its product, which must give no answer), its offers from its own shop
// as product-enrich asks them, and the set's test pairs. It prints one
// row of docs/enrichment.md's table per set, and each set's reliability;
// WDC Products' is checked (checkShopsReliability).
func TestShops(t *testing.T) {
	t.Parallel()
	rows := make([]string, len(ShopSetNames))
	var wg sync.WaitGroup
	for i, name := range ShopSetNames {
		t.Run(name, func(t *testing.T) {
			// Added here, not before t.Run: a subtest that -run leaves
			// out never runs, and would never be done.
			wg.Add(1)
			defer wg.Done()
			t.Parallel()
			if raceEnabled && name != "wdc-products" {
				// .ci/run's tests run with -race, where the four LSPC
				// sets take minutes; `go test` without it measures them
				// (and only then reads them).
				t.Skip("LSPC is measured without -race")
			}
			task := loadShops(t, name)
			s := task.Set
			answers := task.Run(0.01)
			f := Sum(AtLeast(answers, match.DefaultMinConfidence))
			o := task.Offers(0.01)
			checkShopsReliability(t, s.Name, append(slices.Clone(answers), o.Answers...))
			o = o.AtLeast(match.DefaultMinConfidence)
			p := s.Pairs(0, true)
			rows[i] = fmt.Sprintf("| %s | %d | %.3f (%d/%d) | %.3f | %d/%d (%.3f) | %.3f | %.3f | %.3f | %.3f / %.3f / %.3f |",
				s.Name, len(task.Queries), f.Precision, f.Right, f.Answered, f.Recall, f.AbsentAnswered, f.Absent, f.AbsentRate,
				o.Precision(), o.FoundShare(), o.PairShare(), p.Precision, p.Recall, p.F1)
			t.Logf("%s: lookup: %s", s.Name, f)
			t.Logf("%s: %s", s.Name, o)
			t.Logf("%s: %s", s.Name, p)
			t.Logf("%s: reliability of lookups:\n%s", s.Name, reliabilityTable(answers))
			right, all := sure(answers, 0.95)
			t.Logf("%s: lookups at min_confidence 0.95: %d of %d answers right", s.Name, right, all)
			if s.Name == "wdc-products" && float64(right) < 0.93*float64(all) {
				t.Errorf("%s: lookups at min_confidence 0.95: %d of %d right (want >= 0.93)", s.Name, right, all)
			}
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

// checkShopsReliability checks that confidence means what it says on WDC
// Products' held-out products, the set whose products are whole: in each
// tenth of confidence with at least 30 answers (lookups and offers), the
// share right is within 0.05 of the mean confidence, sampling aside
// (checkReliability), and the answers at min_confidence 0.95 are right at
// least 93% of the time. LSPC's products are groups of pairs, and one
// product is often two groups: its share right is a floor, and its
// reliability is logged, not judged.
func checkShopsReliability(t *testing.T, name string, answers []Answer) {
	t.Helper()
	if name != "wdc-products" {
		t.Logf("%s: reliability of held-out lookups and offers:\n%s", name, reliabilityTable(answers))
		return
	}
	t.Logf("%s: reliability of held-out lookups and offers:\n%s", name, checkReliability(t, answers, 30))
	if right, all := sure(answers, 0.95); all > 0 && float64(right) < 0.93*float64(all) {
		t.Errorf("at min_confidence 0.95: %d of %d answers right (want >= 0.93)", right, all)
	}
}

// TestVariants scores the variant decision (docs/enrichment.md,
// Variants) on WDC Products' held-out products, whose clusters are one
// variant each (the shops' GTINs and MPNs): among the products gathered
// for each lookup that share a model code with the query and are ruled
// out by a variant (colour, size, a measure such as storage, a letter
// after the code), how many are the query's own product (the veto was
// wrong) and how many another (another variant, as an offer with
// "variant": true would show it).
func TestVariants(t *testing.T) {
	t.Parallel()
	task := loadShops(t, "wdc-products")
	shared := slices.Index(match.FeatureNames[:], "code_shared")
	type count struct{ same, other, queries int }
	kinds := map[string]*count{}
	cands := make([][]match.Candidate, len(task.Queries))
	each(len(task.Queries), func(i int) {
		cands[i] = task.Index.Candidates(brandID(task.Queries[i].Target), task.Queries[i].Title)
	})
	for i := range task.Queries {
		q := &task.Queries[i]
		seen := map[string]bool{}
		for _, c := range cands[i] {
			switch c.Vetoed {
			case "colour", "size", "unit", "variant":
			default:
				continue
			}
			if c.Features[shared] == 0 {
				continue
			}
			k := kinds[c.Vetoed]
			if k == nil {
				k = &count{}
				kinds[c.Vetoed] = k
			}
			if task.right(q, c.Ref) {
				k.same++
			} else {
				k.other++
			}
			if !seen[c.Vetoed] {
				seen[c.Vetoed] = true
				k.queries++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintln(&b, "| ruled out by | lookups | candidates | the query's product | another |")
	fmt.Fprintln(&b, "|---|---|---|---|---|")
	for _, kind := range []string{"colour", "size", "unit", "variant"} {
		if k := kinds[kind]; k != nil {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", kind, k.queries, k.same+k.other, k.same, k.other)
		}
	}
	t.Logf("WDC Products, held-out products, %d lookups: candidates sharing the query's model code, ruled out as another variant:\n%s", len(task.Queries), b.String())
}

// sure counts the answers at a least confidence, and the right ones: an
// answer to a query without its product in the brand is wrong.
func sure(answers []Answer, minConfidence float64) (right, all int) {
	for _, a := range answers {
		if a.Matched && a.Confidence >= minConfidence {
			all++
			if a.Right && !a.Query.Absent {
				right++
			}
		}
	}
	return right, all
}
