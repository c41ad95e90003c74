package matcheval

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/match"
)

// BenchmarkTrainingMisses sorts each set's training lookups that have
// their product in the asked shop and get no right answer at the default
// min_confidence, by what Candidates shows of the true listing: answered
// under it, another product answered, ruled out (by which veto), gathered
// with no tier (a code shared: why the code tier does not take it), not
// gathered. A benchmark, not a test: it sorts and asserts nothing. One
// set, with -v (without it Go cuts a benchmark's log at 10 lines) and
// -benchtime 1x: -bench 'TrainingMisses/wdc-products';
// SVC_MATCH_MISSES_SHOW prints the lookups of one cause.
func BenchmarkTrainingMisses(b *testing.B) {
	needData(b)
	for _, name := range ShopSetNames {
		b.Run(name, func(b *testing.B) {
			var table string
			for b.Loop() {
				table = trainingMisses(b, name)
			}
			b.Log(table)
		})
	}
}

// trainingMisses is BenchmarkTrainingMisses's table for one set.
func trainingMisses(b *testing.B, name string) string {
	s, err := LoadShopSet(name)
	if err != nil {
		b.Fatal(err)
	}
	task := NewShops(s, 12, false)
	low := task.Run(0.01)
	answers := AtLeast(low, match.DefaultMinConfidence)
	show := os.Getenv("SVC_MATCH_MISSES_SHOW")
	causes := map[string]int{}
	var shown strings.Builder
	for i := range task.Queries {
		q := &task.Queries[i]
		if q.Absent && answers[i].Matched {
			causes["answered without the product"]++
			if show == "answered without the product" {
				fmt.Fprintf(&shown, "%q\n    %q\n", q.Title, answers[i].Title)
			}
		}
		if q.Absent || answers[i].Matched && answers[i].Right {
			continue
		}
		cause, other := "", ""
		switch {
		case answers[i].Matched:
			cause, other = "another product answered", answers[i].Title
		case low[i].Matched && low[i].Right:
			cause = "answered right under 0.85"
		case low[i].Matched:
			cause, other = "another product answered under 0.85", low[i].Title
		}
		if cause == "" {
			cands := task.Index.Candidates(brandID(q.Target), q.Title)
			best := -1
			for k, c := range cands {
				if !task.right(q, c.Ref) {
					continue
				}
				if best < 0 || cands[best].Vetoed != "" && c.Vetoed == "" {
					best = k
				}
			}
			switch {
			case best < 0:
				cause = "not gathered"
			case cands[best].Vetoed != "":
				cause, other = "ruled out: "+cands[best].Vetoed, cands[best].Title
			case match.SharedCode(q.Title, cands[best].Title):
				cause, other = "gathered, a code shared, no tier", cands[best].Title
				if why := match.CodeTierMiss(q.Title, cands, best); why != "" {
					cause += ": " + why
				} else {
					cause += ": another product's code too"
				}
			default:
				cause, other = "gathered, no code shared, no tier", cands[best].Title
			}
		}
		causes[cause]++
		if cause == show {
			fmt.Fprintf(&shown, "%q\n    %q\n", q.Title, other)
		}
	}
	keys := slices.SortedFunc(maps.Keys(causes), func(a, b string) int { return cmp.Compare(causes[b], causes[a]) })
	var table strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&table, "| %s | %d |\n", k, causes[k])
	}
	return fmt.Sprintf("%s, training products' lookups with the product and no right answer at %.2f:\n%s%s", name, match.DefaultMinConfidence, table.String(), shown.String())
}
