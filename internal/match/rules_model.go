package match

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Model is the learned scorer: a logistic regression over a pair's
// features, and a calibration that turns an answer into a confidence that
// means what it says on shops the model has not seen (docs/enrichment.md,
// Matching). It is trained by `go run ./internal/match/train` and kept in
// model.json.
type Model struct {
	Features []string             `json:"features"`
	Weights  [numFeatures]float64 `json:"weights"`
	Bias     float64              `json:"bias"`
	// The calibration is a second logistic regression, of whether an
	// answer is right, over CalibrationInputs: the rule that decided it
	// (a tier or the model alone), whether the titles differ by a colour
	// or a measure one of them alone names, the answer's score and its
	// lead over the best other product not ruled out (both in log-odds,
	// the lead at most MaxLead). It is fitted on answers to titles of
	// shops and products left out of each fold (group k-fold), so that
	// it says what a new shop will see.
	CalibrationInputs []string           `json:"calibration_inputs"`
	Calibration       [numInputs]float64 `json:"calibration"`
	Shift             float64            `json:"shift"`
	MaxLead           float64            `json:"max_lead"`
	// Levels turn the calibration's probability into the confidence
	// given: the share of right answers among the held-out folds' answers
	// whose probability was as high (isotonic, merged into levels of
	// enough answers to tell), so that each level means what it says.
	Levels []Level `json:"levels"`
	// OfferLevels are Levels for a title offer that finds the page's
	// product back (Offers): the share of such offers right at each
	// probability, fitted on the training products' offers. Without
	// them an offer has its lookup's confidence.
	OfferLevels []Level `json:"offer_levels,omitempty"`
	// Trained says on what and how, for the record.
	Trained string `json:"trained"`
}

// The calibration's inputs, in the order of Model.Calibration.
const (
	calStrict       = iota // the strict matcher answered
	calCode                // the code tier
	calSame                // the same-words tier
	calAdds                // a colour or a measure on one side only
	calScore               // the answer's score, log-odds, within ±maxScore
	calLead                // its lead over the best other product, at most MaxLead
	calCoverQuery          // the weighted share of the query's words it has
	calCoverProduct        // and of its words the query has
	numInputs
)

// CalibrationInputs names the calibration's inputs.
var CalibrationInputs = [numInputs]string{"strict", "code", "same", "adds", "score", "lead", "cover_query", "cover_product"}

// maxScore bounds the score the calibration weighs: beyond it, a pair is
// as alike as pairs get.
const maxScore = 10

// Inputs are the calibration's inputs for an answer of a tier ("" for the
// model alone) with features x, score and lead.
func (m *Model) Inputs(tier string, x *[numFeatures]float64, score, lead float64) [numInputs]float64 {
	var in [numInputs]float64
	switch tier {
	case TierStrict:
		in[calStrict] = 1
	case TierCode:
		in[calCode] = 1
	case TierSame:
		in[calSame] = 1
	}
	if x[fColourOne] > 0 || x[fUnitOneSide] > 0 {
		in[calAdds] = 1
	}
	in[calScore] = max(-maxScore, min(score, maxScore))
	in[calLead] = min(lead, m.MaxLead)
	in[calCoverQuery], in[calCoverProduct] = x[fCoverQuery], x[fCoverProd]
	return in
}

//go:embed model.json
var modelJSON []byte

// DefaultModel is the committed model.
var DefaultModel = func() *Model {
	m, err := ParseModel(modelJSON)
	if err != nil {
		panic(err)
	}
	return m
}()

// ParseModel reads a model as the trainer writes it.
func ParseModel(data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("match model: %w", err)
	}
	if len(m.Features) != numFeatures {
		return nil, fmt.Errorf("match model: %d features, want %d", len(m.Features), numFeatures)
	}
	for i, f := range m.Features {
		if f != FeatureNames[i] {
			return nil, fmt.Errorf("match model: feature %d is %q, want %q", i, f, FeatureNames[i])
		}
	}
	if !slices.Equal(m.CalibrationInputs, CalibrationInputs[:]) {
		return nil, fmt.Errorf("match model: calibration inputs %q, want %q", m.CalibrationInputs, CalibrationInputs)
	}
	return &m, nil
}

// Score is a pair's log-odds of naming one product.
func (m *Model) Score(x *[numFeatures]float64) float64 {
	s := m.Bias
	for i, w := range m.Weights {
		s += w * x[i]
	}
	return s
}

// Level is one step of the calibration: a probability up to Upto gets
// Confidence.
type Level struct {
	Upto       float64 `json:"upto"`
	Confidence float64 `json:"confidence"`
}

// Probability turns an answer's calibration inputs into the probability
// that it is right, before the levels.
func (m *Model) Probability(in *[numInputs]float64) float64 {
	z := m.Shift
	for i, v := range in {
		z += m.Calibration[i] * v
	}
	return sigmoid(z)
}

// minAnswer is the least confidence of any title answer: one likelier
// wrong than right is no answer, whatever the client's min_confidence. The
// model's levels under it are also where the two halves of the benchmark
// disagree most (docs/enrichment.md, Reliability).
const minAnswer = 0.5

// Level gives a probability's confidence, 0 under minAnswer.
func (m *Model) Level(p float64) float64 { return level(m.Levels, p) }

// OfferLevel gives the confidence of a title offer that finds the page's
// product back, 0 under minAnswer.
func (m *Model) OfferLevel(p float64) float64 {
	if len(m.OfferLevels) == 0 {
		return m.Level(p)
	}
	return level(m.OfferLevels, p)
}

// level is the confidence the levels give a probability, 0 under
// minAnswer.
func level(levels []Level, p float64) float64 {
	c := p
	if len(levels) > 0 {
		c = levels[len(levels)-1].Confidence
		for _, l := range levels {
			if p <= l.Upto {
				c = l.Confidence
				break
			}
		}
	}
	if c < minAnswer {
		return 0
	}
	return c
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
