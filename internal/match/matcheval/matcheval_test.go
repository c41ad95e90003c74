package matcheval

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/match"
)

func load(t *testing.T) []Pair {
	t.Helper()
	dir, err := DataDir()
	if err != nil {
		// The benchmark is not in the repository (docs/enrichment.md,
		// Evaluation); .ci/run finds it beside the checkout.
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	pairs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

// TestHeldOut measures title matching on the held-out part of the
// Walmart–Amazon benchmark, as a catalog lookup at the default least
// confidence: with the right-hand shop alone in the index, with both
// shops, and as offers from the left-hand shop. The floors sit just under
// what is measured (docs/enrichment.md, Evaluation), so that a regression
// shows: half of the queries have their true match taken out, and a wrong
// answer is worse than none.
func TestHeldOut(t *testing.T) {
	pairs := load(t)
	for _, tc := range []struct {
		name           string
		withLeft, offs bool
	}{
		{"one shop", false, false},
		{"both shops", true, false},
		{"both shops, offers", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := NewTask(pairs, true, tc.withLeft)
			answers := task.Run(0, tc.offs)
			f := Sum(answers)
			t.Logf("%s: %d queries: %s", tc.name, len(task.Queries), f)
			coded := Coded(answers)
			fc := Sum(coded)
			t.Logf("%s, titles sharing a model code with their true match: %d queries: %s", tc.name, len(coded), fc)
			if fc.Precision < 0.97 || fc.Recall < 0.81 {
				t.Errorf("titles with a model code: precision %.3f (want >= 0.97), recall %.3f (want >= 0.81)", fc.Precision, fc.Recall)
			}
			if f.Precision < 0.98 || f.Recall < 0.39 || f.AbsentRate > 0.02 {
				t.Errorf("precision %.3f (want >= 0.98), recall %.3f (want >= 0.39), answers without a true match %.3f (want <= 0.02)",
					f.Precision, f.Recall, f.AbsentRate)
			}
		})
	}
}

// TestReliability checks that confidence means what it says on the
// held-out lookups: in each tenth of confidence that has answers, the
// share of right answers is within 0.05 of the mean confidence.
func TestReliability(t *testing.T) {
	pairs := load(t)
	var answers []Answer
	for _, withLeft := range []bool{false, true} {
		answers = append(answers, NewTask(pairs, true, withLeft).Run(0.01, false)...)
	}
	t.Logf("reliability on the held-out lookups (one shop and both shops), default least confidence %.2f:\n%s",
		match.DefaultMinConfidence, checkReliability(t, answers, 1))
}

// checkReliability fails a tenth of confidence of at least minBin answers
// whose share of right answers is more than 0.05 from its mean
// confidence, and returns the table of every tenth that has answers.
func checkReliability(t *testing.T, answers []Answer, minBin int) string {
	t.Helper()
	for _, bin := range Reliability(answers) {
		if bin.Answers >= minBin && math.Abs(bin.Accuracy-bin.MeanConfidence) > 0.05 {
			t.Errorf("confidence %.1f–%.1f: %d answers, %.3f right, mean confidence %.3f", bin.Low, bin.High, bin.Answers, bin.Accuracy, bin.MeanConfidence)
		}
	}
	return reliabilityTable(answers)
}

// reliabilityTable is the table of every tenth of confidence that has
// answers, as docs/enrichment.md shows it.
func reliabilityTable(answers []Answer) string {
	var b strings.Builder
	fmt.Fprintln(&b, "| confidence | answers | right | mean confidence | share right |")
	fmt.Fprintln(&b, "|---|---|---|---|---|")
	for _, bin := range Reliability(answers) {
		if bin.Answers > 0 {
			fmt.Fprintf(&b, "| %.1f–%.1f | %d | %d | %.3f | %.3f |\n", bin.Low, bin.High, bin.Answers, bin.Right, bin.MeanConfidence, bin.Accuracy)
		}
	}
	return b.String()
}

// TestReliabilityOutOfFold checks the tiers' confidence on twice the
// evaluation data: each half's answers (one shop and both shops) at the
// share of right answers that the tier had on the other half, pooled.
// The tiers are rules, so this is two-fold cross-validation of their
// confidence; the committed one is the training half's. A tenth of
// fewer than minBin answers is logged, not judged: one standard
// deviation of its share is more than the 0.05 allowed.
func TestReliabilityOutOfFold(t *testing.T) {
	const minBin = 100
	pairs := load(t)
	var answers []Answer
	for _, held := range []bool{false, true} {
		shares := Shares(NewTask(pairs, !held, false).Tiers())
		for _, withLeft := range []bool{false, true} {
			for _, a := range NewTask(pairs, held, withLeft).Tiers() {
				answers = append(answers, Answer{Query: a.Query, Matched: true, Right: a.Right,
					Confidence: shares[a.Tier].Confidence(), Title: a.Title})
			}
		}
		t.Logf("tiers' answers right, of all, on the %s half: %v", map[bool]string{false: "training", true: "held-out"}[!held], shares)
	}
	t.Logf("reliability of the tiers, out of fold, both halves (one shop and both shops):\n%s", checkReliability(t, answers, minBin))
}
