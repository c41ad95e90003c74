package matcheval

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/match"
)

// TestHeldOut measures title matching on the held-out part of the
// Walmart–Amazon benchmark, as a catalog lookup at the default least
// confidence: with the right-hand shop alone in the index, with both
// shops, and as offers from the left-hand shop. The floors sit just under
// what is measured (docs/enrichment.md, Evaluation), so that a regression
// shows: half of the queries have their true match taken out, and a wrong
// answer is worse than none.
func TestHeldOut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		withLeft, offs bool
	}{
		{"one shop", false, false},
		{"both shops", true, false},
		{"both shops, offers", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := heldTask(t, tc.withLeft)
			answers := task.Run(0, tc.offs)
			f := Sum(answers)
			t.Logf("%s: %d queries: %s", tc.name, len(task.Queries), f)
			coded := Coded(answers)
			fc := Sum(coded)
			t.Logf("%s, titles sharing a model code with their true match: %d queries: %s", tc.name, len(coded), fc)
			if fc.Precision < 0.97 || fc.Recall < 0.70 {
				t.Errorf("titles with a model code: precision %.3f (want >= 0.97), recall %.3f (want >= 0.70)", fc.Precision, fc.Recall)
			}
			if f.Precision < 0.98 || f.Recall < 0.31 || f.AbsentRate > 0.02 {
				t.Errorf("precision %.3f (want >= 0.98), recall %.3f (want >= 0.31), answers without a true match %.3f (want <= 0.02)",
					f.Precision, f.Recall, f.AbsentRate)
			}
		})
	}
}

// TestReliability checks that confidence means what it says on the
// held-out lookups: in each tenth of confidence with at least 30 answers
// (fewer tell too little: one standard deviation of their share is more
// than 0.05), the share of right answers is within 0.05 of the mean
// confidence, sampling aside (checkReliability).
func TestReliability(t *testing.T) {
	t.Parallel()
	var answers []Answer
	for _, withLeft := range []bool{false, true} {
		answers = append(answers, heldTask(t, withLeft).Run(0.01, false)...)
	}
	t.Logf("reliability on the held-out lookups (one shop and both shops), default least confidence %.2f:\n%s",
		match.DefaultMinConfidence, checkReliability(t, answers, 30))
}

// checkReliability fails a tenth of confidence of at least minBin answers
// whose share of right answers is off its mean confidence c, either way,
// by more than 0.05 and two standard deviations of a share of its
// answers that are right with chance c (what sampling alone would give
// 5% of the time), and returns the table of every tenth that has answers.
// A confidence too high shows wrong answers as sure; one too low withholds
// right ones at a client's min_confidence.
func checkReliability(t *testing.T, answers []Answer, minBin int) string {
	t.Helper()
	for _, bin := range Reliability(answers) {
		if bin.Answers < minBin {
			continue
		}
		c := bin.MeanConfidence
		allowed := 0.05 + 2*math.Sqrt(c*(1-c)/float64(bin.Answers))
		if d := bin.Accuracy - c; d < -allowed || d > allowed {
			t.Errorf("confidence %.1f–%.1f: %d answers, %.3f right, mean confidence %.3f (want within %.3f)",
				bin.Low, bin.High, bin.Answers, bin.Accuracy, c, allowed)
		} else if d < -0.05 || d > 0.05 {
			t.Logf("confidence %.1f–%.1f: %d answers, %.3f right, mean confidence %.3f: more than 0.05 apart, within sampling",
				bin.Low, bin.High, bin.Answers, bin.Accuracy, c)
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
