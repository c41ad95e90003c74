// Command train fits the title matcher's model (internal/match/model.json)
// on the Walmart–Amazon benchmark's training part, and its tiers'
// confidence on the training parts of Walmart–Amazon and WDC Products:
//
//	go run ./internal/match/train          # fit and print
//	go run ./internal/match/train -write   # and write model.json
//
// The pairwise model is a logistic regression over the features of each
// left-hand title and the right-hand products gathered for it in a
// catalog lookup, as Lookup gathers them; the calibration is a second
// logistic regression (Platt scaling) of whether the best product is
// right, over its score and its lead over the second.
package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/svc-project/svc/internal/match"
	"github.com/svc-project/svc/internal/match/matcheval"
)

func main() {
	write := flag.Bool("write", false, "write internal/match/model.json")
	out := flag.String("out", "internal/match/model.json", "where -write writes the model")
	flag.Parse()
	if err := run(*write, *out); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

func run(write bool, out string) error {
	dir, err := matcheval.DataDir()
	if err != nil {
		return err
	}
	pairs, err := matcheval.Load(dir)
	if err != nil {
		return err
	}
	task := matcheval.NewTask(pairs, false, false)
	// Pairs: each query with the products gathered for it.
	type example struct {
		x [len(match.FeatureNames)]float64
		y float64
	}
	var examples []example
	type group struct {
		from, to int  // a query's examples
		tier     bool // answered by a tier, not the model
	}
	var groups []group
	for _, q := range task.Queries {
		g := group{from: len(examples)}
		for _, c := range task.Index.Candidates(matcheval.RightBrand, q.Title) {
			y := 0.0
			if !q.Absent && q.Right(c.Title) || c.Title == q.Title {
				y = 1
			}
			// A tier answers this query (matcheval.Task.Tiers), not the
			// model.
			g.tier = g.tier || c.Tier != ""
			if c.Vetoed != "" || c.Strict {
				continue
			}
			examples = append(examples, example{c.Features, y})
		}
		g.to = len(examples)
		groups = append(groups, g)
	}
	xs := make([][]float64, len(examples))
	ys := make([]float64, len(examples))
	pos := 0
	for i, e := range examples {
		xs[i], ys[i] = e.x[:], e.y
		pos += int(e.y)
	}
	fmt.Printf("training: %d queries, %d pairs (%d same product)\n", len(task.Queries), len(examples), pos)
	w, b := fit(xs, ys, 1e-3, 4000)
	m := &match.Model{Features: match.FeatureNames[:], Bias: b}
	copy(m.Weights[:], w)
	// Calibration, on each query's best product as scored by a model
	// fitted without that query (five folds): in-sample scores would be
	// surer than scores of new titles are.
	const folds, maxLead = 10, 8
	var cx [][]float64
	var cy []float64
	var cg []int // which half of the queries: a level must hold in both
	for f := range folds {
		var fx [][]float64
		var fy []float64
		for gi, g := range groups {
			if gi%folds != f {
				fx, fy = append(fx, xs[g.from:g.to]...), append(fy, ys[g.from:g.to]...)
			}
		}
		fw, fb := fit(fx, fy, 1e-3, 4000)
		fm := &match.Model{Bias: fb}
		copy(fm.Weights[:], fw)
		for gi, g := range groups {
			if gi%folds != f || g.tier {
				continue
			}
			best, second, bestY := math.Inf(-1), math.Inf(-1), 0.0
			var bestX []float64
			for _, e := range examples[g.from:g.to] {
				switch s := fm.Score(&e.x); {
				case s > best:
					best, second, bestY, bestX = s, best, e.y, e.x[:]
				case s > second:
					second = s
				}
			}
			if math.IsInf(best, -1) {
				continue
			}
			cx = append(cx, calibrationInputs(best, best-second, bestX, maxLead))
			cy = append(cy, bestY)
			cg = append(cg, gi%2)
		}
	}
	cw, cb := fit(cx, cy, 1e-4, 4000)
	copy(m.Calibration[:], cw)
	m.Shift, m.MaxLead = cb, maxLead
	m.Levels = levels(m, cx, cy, cg)
	for _, l := range m.Levels {
		fmt.Printf("  level: probability up to %.3f: confidence %.3f\n", l.Upto, l.Confidence)
	}
	// Each tier's confidence is the share of its answers that are right,
	// on the training part of every set whose products are whole: the
	// Walmart–Amazon queries not held out, and WDC Products' products not
	// held out, as twelve shops (matcheval.NewShops). LSPC's products are
	// only the groups its matching pairs join, so two groups are often
	// one product: its answers are evaluated, not trained on.
	tiers := task.Tiers()
	wdcDir, err := matcheval.SiblingDir("wdc-products")
	if err != nil {
		return err
	}
	wdc, err := matcheval.LoadWDCProducts(wdcDir)
	if err != nil {
		return err
	}
	tiers = append(tiers, matcheval.NewShops(wdc, 12, false).Tiers()...)
	shares := matcheval.Shares(tiers)
	share := func(t string) float64 {
		s := shares[t]
		fmt.Printf("tier %s: %d of %d answers right, confidence %.3f\n", t, s.Right, s.All, s.Confidence())
		return s.Confidence()
	}
	m.Strict, m.Unique, m.Same = share(match.TierStrict), share(match.TierCode), share(match.TierSame)
	kinds := map[string]matcheval.TierShare{}
	for _, a := range tiers {
		k := match.TierKey(a.Tier, &a.Features)
		s := kinds[k]
		s.All++
		if a.Right {
			s.Right++
		}
		kinds[k] = s
	}
	m.TierLevels = map[string]float64{}
	for k, s := range kinds {
		// A kind of fewer than minLevel answers tells too little: the
		// tier's whole share stands for it.
		if s.All >= minKind {
			m.TierLevels[k] = math.Round(s.Confidence()*1000) / 1000
		}
		fmt.Printf("tier kind %s: %d of %d answers right, confidence %.3f\n", k, s.Right, s.All, s.Confidence())
	}
	m.Trained = fmt.Sprintf("go run ./internal/match/train -write: %d pairs of %d Walmart–Amazon queries (not held out); tiers on %d answers of Walmart–Amazon and WDC Products (products not held out)",
		len(examples), len(task.Queries), len(tiers))
	for i, n := range match.FeatureNames {
		fmt.Printf("  %-20s %7.3f\n", n, m.Weights[i])
	}
	fmt.Printf("  %-20s %7.3f\n  calibration: %.3f shift %.3f\n", "bias", m.Bias, m.Calibration, m.Shift)
	if write {
		data, err := json.MarshalIndent(m, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", out, "- run go test ./internal/match/matcheval -v for the held-out figures")
	}
	return nil
}

// fit is a logistic regression with an L2 penalty of lambda (not on the
// bias), by gradient descent with a step that adapts (Adam): the sets are
// small, and the features few.
func fit(xs [][]float64, ys []float64, lambda float64, steps int) ([]float64, float64) {
	d := len(xs[0])
	w := make([]float64, d+1) // bias last
	mom, vel := make([]float64, d+1), make([]float64, d+1)
	const rate, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
	grad := make([]float64, d+1)
	for t := 1; t <= steps; t++ {
		clear(grad)
		for i, x := range xs {
			z := w[d]
			for j, v := range x {
				z += w[j] * v
			}
			p := 1 / (1 + math.Exp(-z))
			r := p - ys[i]
			for j, v := range x {
				grad[j] += r * v
			}
			grad[d] += r
		}
		n := float64(len(xs))
		for j := range grad {
			grad[j] /= n
			if j < d {
				grad[j] += lambda * w[j]
			}
			mom[j] = b1*mom[j] + (1-b1)*grad[j]
			vel[j] = b2*vel[j] + (1-b2)*grad[j]*grad[j]
			mh := mom[j] / (1 - math.Pow(b1, float64(t)))
			vh := vel[j] / (1 - math.Pow(b2, float64(t)))
			w[j] -= rate * mh / (math.Sqrt(vh) + eps)
		}
	}
	return slices.Clone(w[:d]), w[d]
}

// minLevel is the fewest training answers a level of confidence rests on:
// a share of fewer tells too little.
const minLevel = 100

// minKind is the fewest training answers a tier's kind rests on.
const minKind = 30

// levels fits an isotonic map from the calibration's probability to the
// share of right answers (pool adjacent violators, over the out-of-fold
// best products), and merges its steps until each holds minLevel answers:
// the confidence given is then a share measured on many answers.
func levels(m *match.Model, cx [][]float64, cy []float64, cg []int) []match.Level {
	type point struct {
		p, y float64
		g    int
	}
	pts := make([]point, len(cx))
	for i, x := range cx {
		z := m.Shift
		for j, v := range x {
			z += m.Calibration[j] * v
		}
		pts[i] = point{1 / (1 + math.Exp(-z)), cy[i], cg[i]}
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.p, b.p) })
	type block struct {
		upto, right, n float64
		half           [2][2]float64 // right and all, by half of the queries
	}
	join := func(a, b block) block {
		j := block{upto: b.upto, right: a.right + b.right, n: a.n + b.n}
		for h := range 2 {
			j.half[h] = [2]float64{a.half[h][0] + b.half[h][0], a.half[h][1] + b.half[h][1]}
		}
		return j
	}
	var bs []block
	push := func(b block) {
		bs = append(bs, b)
		// Pool while a block is right less often than the one before,
		// or the one before is too small.
		for len(bs) > 1 {
			a, b := bs[len(bs)-2], bs[len(bs)-1]
			if a.right/a.n < b.right/b.n && a.n >= minLevel {
				break
			}
			bs = append(bs[:len(bs)-2], join(a, b))
		}
	}
	for _, p := range pts {
		b := block{upto: p.p, right: p.y, n: 1}
		b.half[p.g] = [2]float64{p.y, 1}
		push(b)
	}
	// The last block may be small: join it to the one before.
	if n := len(bs); n > 1 && bs[n-1].n < minLevel {
		a, b := bs[n-2], bs[n-1]
		bs = append(bs[:n-2], join(a, b))
	}
	out := make([]match.Level, len(bs))
	for i, b := range bs {
		out[i] = match.Level{Upto: b.upto, Confidence: math.Round(b.right/b.n*1000) / 1000}
		fmt.Printf("  block up to %.3f: %.0f of %.0f; halves %v\n", b.upto, b.right, b.n, b.half)
		if i > 0 {
			// The probability between two blocks' answers goes to the
			// lower: a new title is not surer than those measured.
			out[i-1].Upto = bs[i-1].upto
		}
	}
	out[len(out)-1].Upto = 1
	return out
}

// calibrationInputs are what the calibration weighs, in the order of
// match.Model.Calibration.
func calibrationInputs(score, lead float64, x []float64, maxLead float64) []float64 {
	return append([]float64{score, min(lead, maxLead)}, make([]float64, len(x))...)
}
