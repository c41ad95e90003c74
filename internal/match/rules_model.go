package match

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
)

// Model is the learned scorer: a logistic regression over a pair's
// features, and a calibration that turns the best candidate's score and
// its lead over the second into a confidence that means what it says
// (docs/enrichment.md, Matching). It is trained by
// `go run ./internal/match/train` and kept in model.json.
type Model struct {
	Features []string             `json:"features"`
	Weights  [numFeatures]float64 `json:"weights"`
	Bias     float64              `json:"bias"`
	// The calibration is a second logistic regression, of whether the
	// best candidate is right, over its score, its lead over the second
	// (both in log-odds, the lead at most MaxLead) and its features: a
	// pair's score says how alike two titles are, and the lead how much
	// likelier it is than the next product.
	Calibration [numFeatures + 2]float64 `json:"calibration"`
	Shift       float64                  `json:"shift"`
	MaxLead     float64                  `json:"max_lead"`
	// Levels turn the calibration's probability into the confidence
	// given: the share of right answers among the training queries whose
	// probability was as high (isotonic, merged into levels of enough
	// answers to tell), so that each level means what it says.
	Levels []Level `json:"levels"`
	// Unique is the confidence of the code tier: the one product that
	// holds a distinctive model code of the query (or whose code the query
	// holds) among the gathered products, with nothing ruling it out: the
	// share of such answers that were right in training.
	Unique float64 `json:"unique"`
	// Same is the confidence of the same-words tier (rules_same.go): the share
	// of its answers that were right in training.
	Same float64 `json:"same"`
	// Strict is the least confidence of a match the strict matcher
	// (rules_strict.go) finds: the share of its answers that were right in
	// training.
	Strict float64 `json:"strict"`
	// TierLevels refine the three tiers' confidence by the kind of answer
	// (TierKey): the share of such answers right on the training shops of
	// every set, so that a tier's answer that adds a colour or a measure
	// is not as sure as one that adds neither. A key missing falls back
	// to Strict, Unique or Same.
	TierLevels map[string]float64 `json:"tier_levels,omitempty"`
	// Trained says on what and how, for the record.
	Trained string `json:"trained"`
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

// Probability turns the best candidate's score, its lead over the second
// and its features into the probability that it is right, before the
// levels.
func (m *Model) Probability(score, lead float64, x *[numFeatures]float64) float64 {
	z := m.Shift + m.Calibration[0]*score + m.Calibration[1]*min(lead, m.MaxLead)
	for i, v := range x {
		z += m.Calibration[i+2] * v
	}
	return sigmoid(z)
}

// Confidence is the probability put on its level.
func (m *Model) Confidence(score, lead float64, x *[numFeatures]float64) float64 {
	return m.Level(m.Probability(score, lead, x))
}

// minAnswer is the least confidence of any title answer: one likelier
// wrong than right is no answer, whatever the client's min_confidence. The
// model's levels under it are also where the two halves of the benchmark
// disagree most (docs/enrichment.md, Reliability).
const minAnswer = 0.5

// Level gives a probability's confidence, 0 under minAnswer.
func (m *Model) Level(p float64) float64 {
	c := p
	if len(m.Levels) > 0 {
		c = m.Levels[len(m.Levels)-1].Confidence
		for _, l := range m.Levels {
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

// TierKey names a tier's answers of one kind: "code/adds" for the code
// tier's answers whose titles differ by a colour or a measure one of them
// alone names, "code/plain" for the others.
func TierKey(tier string, x *[numFeatures]float64) string {
	if x[fColourOne] > 0 || x[fUnitOneSide] > 0 {
		return tier + "/adds"
	}
	return tier + "/plain"
}

// tierConfidence is the confidence of a tier's answer: its kind's level,
// else the tier's.
func (m *Model) tierConfidence(tier string, x *[numFeatures]float64, whole float64) float64 {
	if c, ok := m.TierLevels[TierKey(tier, x)]; ok {
		return c
	}
	return whole
}
