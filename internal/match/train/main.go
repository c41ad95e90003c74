// Command train fits the title matcher's model (internal/match/model.json)
// on the Walmart–Amazon benchmark's training part, and its calibration on
// the training products of Walmart–Amazon, WDC Products and two
// categories of WDC LSPC:
//
//	go run ./internal/match/train          # fit and print
//	go run ./internal/match/train -write   # and write model.json
//	go run ./internal/match/train -offers -write  # the offer levels alone
//
// The pairwise model is a logistic regression over the features of each
// left-hand title and the right-hand products gathered for it in a
// catalog lookup, as Lookup gathers them. The calibration is a second
// logistic regression (Platt scaling) of whether Lookup's answer is
// right, over the rule that decided it, its score and its lead over the
// next product, fitted and put on isotonic levels by ten folds of whole
// products (group k-fold), so that a confidence says what a product and
// a shop not seen in training get; it prints each set's reliability with
// the calibration fitted on the other sets alone.
//
// The offer levels are the calibration's levels for a title offer that
// finds the page's product back (match.Index.Offers): the share of such
// offers right at each probability of the committed calibration, on the
// training products of calibrationSets.
package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/svc-project/svc/internal/match"
	"github.com/svc-project/svc/internal/match/matcheval"
)

func main() {
	write := flag.Bool("write", false, "write internal/match/model.json")
	out := flag.String("out", "internal/match/model.json", "where -write writes the model")
	offers := flag.Bool("offers", false, "fit the offer levels alone, of the model in -out, keeping the rest")
	flag.Parse()
	fit := run
	if *offers {
		fit = runOffers
	}
	if err := fit(*write, *out); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

// calibrationSets are the sets beside Walmart–Amazon the calibration is
// fitted on: those whose products are whole. LSPC's products are the
// groups its matching pairs join, and in computers and watches one
// product is often two groups (their offers' precision is 0.40, the
// rest mostly the same product counted wrong: docs/enrichment.md), so a
// right answer there would be learned as a wrong one; cameras and shoes
// are split far less (0.66 and 0.89).
var calibrationSets = []string{"wdc-products", "lspc-cameras", "lspc-shoes"}

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
	for _, q := range task.Queries {
		for _, c := range task.Index.Candidates(matcheval.RightBrand, q.Title) {
			y := 0.0
			if !q.Absent && q.Right(c.Title) || c.Title == q.Title {
				y = 1
			}
			if c.Vetoed != "" || c.Strict {
				continue
			}
			examples = append(examples, example{c.Features, y})
		}
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
	// Calibration, on answers of shops and products the model and the
	// calibration were not fitted on: Walmart–Amazon's training queries
	// and the training products of calibrationSets as twelve shops, each
	// lookup asked in several shops.
	m.MaxLead = 8
	m.CalibrationInputs = match.CalibrationInputs[:]
	sets := []calSet{{name: "walmart-amazon", asked: task.Asked()}}
	shopSets, err := matcheval.ShopSets()
	if err != nil {
		return err
	}
	for _, s := range shopSets {
		if !slices.Contains(calibrationSets, s.Name) {
			continue
		}
		sets = append(sets, calSet{name: s.Name, asked: matcheval.NewShops(s, 12, false).Asked(3)})
	}
	var all []point
	for i := range sets {
		sets[i].points = answers(m, sets[i].asked)
		all = append(all, sets[i].points...)
		fmt.Printf("calibration: %s: %d answers, %d right\n", sets[i].name, len(sets[i].points), rightOf(sets[i].points))
	}
	// Out of fold: each group of lookups (a product, or Walmart–Amazon's
	// queries of one true match) is scored by a calibration fitted on
	// the other folds, so the levels say what an unseen product gets.
	oof := outOfFold(all, 10)
	m.Calibration, m.Shift = platt(all)
	m.Levels = levels(oof)
	for _, l := range m.Levels {
		fmt.Printf("  level: probability up to %.3f: confidence %.3f\n", l.Upto, l.Confidence)
	}
	// Leave one set out: the calibration fitted on the other sets, its
	// reliability on the one left out, as a new kind of shop sees it.
	for i := range sets {
		var rest []point
		for j := range sets {
			if j != i {
				rest = append(rest, sets[j].points...)
			}
		}
		lm := &match.Model{MaxLead: m.MaxLead}
		lm.Calibration, lm.Shift = platt(rest)
		lm.Levels = levels(outOfFold(rest, 10))
		fmt.Printf("left out %s:\n%s", sets[i].name, reliability(lm, sets[i].points))
	}
	fmt.Printf("all sets, out of fold:\n%s", reliabilityOf(oof))
	m.Trained = fmt.Sprintf("go run ./internal/match/train -write: model on %d pairs of %d Walmart–Amazon queries (not held out); calibration on %d answers of the training products of %s, ten folds by product",
		len(examples), len(task.Queries), len(all), setNames(sets))
	for i, n := range match.FeatureNames {
		fmt.Printf("  %-20s %7.3f\n", n, m.Weights[i])
	}
	fmt.Printf("  %-20s %7.3f\n", "bias", m.Bias)
	for i, n := range m.CalibrationInputs {
		fmt.Printf("  calibration %-14s %7.3f\n", n, m.Calibration[i])
	}
	fmt.Printf("  calibration %-14s %7.3f\n", "shift", m.Shift)
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

// minLevel is the fewest answers a level of confidence rests on: a share
// of fewer tells too little (one standard deviation of a share of 100 is
// at most 0.05).
const minLevel = 100

// point is one answer to calibrate on.
type point struct {
	in    [len(match.CalibrationInputs)]float64
	y     float64 // 1 if right
	group string
	p     float64 // out of fold: the probability a calibration fitted without its fold gave
}

// calSet is one set's lookups and their answers.
type calSet struct {
	name   string
	asked  []matcheval.Asked
	points []point
}

func setNames(sets []calSet) string {
	var names []string
	for _, s := range sets {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

// answers are the answers Lookup gives to the lookups (at any
// confidence; only a tier answers), with their calibration inputs.
func answers(m *match.Model, asked []matcheval.Asked) []point {
	var out []point
	for _, a := range asked {
		k, in := m.Answer(a.Cands)
		if k < 0 {
			continue
		}
		y := 0.0
		if a.Right[k] {
			y = 1
		}
		out = append(out, point{in: in, y: y, group: a.Group})
	}
	return out
}

func rightOf(ps []point) int {
	n := 0
	for _, p := range ps {
		n += int(p.y)
	}
	return n
}

// platt fits the calibration, a logistic regression of whether an answer
// is right over its inputs.
func platt(ps []point) ([len(match.CalibrationInputs)]float64, float64) {
	xs, ys := make([][]float64, len(ps)), make([]float64, len(ps))
	for i := range ps {
		xs[i], ys[i] = ps[i].in[:], ps[i].y
	}
	w, b := fit(xs, ys, 1e-3, 3000)
	var c [len(match.CalibrationInputs)]float64
	copy(c[:], w)
	return c, b
}

// outOfFold gives each answer the probability of a calibration fitted on
// the other folds, by the hash of its group: a product's answers are in
// one fold.
func outOfFold(ps []point, folds int) []point {
	out := slices.Clone(ps)
	fold := func(g string) int {
		h := fnv.New32a()
		h.Write([]byte(g))
		return int(h.Sum32() % uint32(folds))
	}
	for f := range folds {
		var rest []point
		for _, p := range ps {
			if fold(p.group) != f {
				rest = append(rest, p)
			}
		}
		c, b := platt(rest)
		m := &match.Model{Calibration: c, Shift: b}
		for i := range out {
			if fold(out[i].group) == f {
				out[i].p = m.Probability(&out[i].in)
			}
		}
	}
	return out
}

// levels fits an isotonic map from the calibration's out-of-fold
// probability to the share of right answers (pool adjacent violators),
// and merges its steps until each holds minLevel answers: the confidence
// given is then a share measured on many answers of unseen products.
func levels(ps []point) []match.Level {
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b point) int { return cmp.Compare(a.p, b.p) })
	type block struct{ upto, right, n float64 }
	var bs []block
	for _, p := range ps {
		bs = append(bs, block{p.p, p.y, 1})
		// Pool while a block is right less often than the one before,
		// or the one before is too small.
		for len(bs) > 1 {
			a, b := bs[len(bs)-2], bs[len(bs)-1]
			if a.right/a.n < b.right/b.n && a.n >= minLevel {
				break
			}
			bs = append(bs[:len(bs)-2], block{b.upto, a.right + b.right, a.n + b.n})
		}
	}
	// The last block may be small: join it to the one before.
	if n := len(bs); n > 1 && bs[n-1].n < minLevel {
		a, b := bs[n-2], bs[n-1]
		bs = append(bs[:n-2], block{b.upto, a.right + b.right, a.n + b.n})
	}
	out := make([]match.Level, len(bs))
	for i, b := range bs {
		// A level is its share less one standard deviation: a new shop's
		// titles are not surer than those measured, and the sets differ
		// by about that much (the reliability of each set left out).
		share := b.right / b.n
		share -= math.Sqrt(share * (1 - share) / b.n)
		out[i] = match.Level{Upto: b.upto, Confidence: math.Round(share*1000) / 1000}
		fmt.Printf("  block up to %.3f: %.0f of %.0f\n", b.upto, b.right, b.n)
	}
	out[len(out)-1].Upto = 1
	return out
}

// reliability is the table of a set's answers at the confidence m gives
// them, by tenths.
func reliability(m *match.Model, ps []point) string {
	ps = slices.Clone(ps)
	for i := range ps {
		ps[i].p = m.Level(m.Probability(&ps[i].in))
	}
	return reliabilityOf(ps)
}

// reliabilityOf bins answers by tenths of p; those under 0.5 are no
// answer.
func reliabilityOf(ps []point) string {
	var n, right, sum [10]float64
	for _, p := range ps {
		k := min(int(p.p*10), 9)
		n[k]++
		right[k] += p.y
		sum[k] += p.p
	}
	var b strings.Builder
	for k := range 10 {
		if n[k] > 0 {
			fmt.Fprintf(&b, "  %.1f–%.1f: %4.0f answers, %4.0f right, mean %.3f, share right %.3f\n", float64(k)/10, float64(k+1)/10, n[k], right[k], sum[k]/n[k], right[k]/n[k])
		}
	}
	return b.String()
}

// runOffers fits the model's OfferLevels on the title offers of the
// calibration sets' training products that find their own listing back,
// each listing asked as product-enrich asks for a page whose product it
// knows, and keeps the rest of the model in out. The probabilities are
// the committed calibration's (the index weighs offers with the model
// built in), so out must hold that calibration.
func runOffers(write bool, out string) error {
	data, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	m, err := match.ParseModel(data)
	if err != nil {
		return err
	}
	if m.Calibration != match.DefaultModel.Calibration || m.Shift != match.DefaultModel.Shift {
		return fmt.Errorf("%s's calibration is not the one built in: build with it first", out)
	}
	shopSets, err := matcheval.ShopSets()
	if err != nil {
		return err
	}
	var sets []calSet
	var all []point
	for _, s := range shopSets {
		if !slices.Contains(calibrationSets, s.Name) {
			continue
		}
		cs := calSet{name: s.Name}
		for _, o := range matcheval.NewShops(s, 12, false).OfferPoints() {
			y := 0.0
			if o.Right {
				y = 1
			}
			cs.points = append(cs.points, point{y: y, group: o.Group, p: o.Probability})
		}
		fmt.Printf("offers: %s: %d found back, %d right\n", cs.name, len(cs.points), rightOf(cs.points))
		sets = append(sets, cs)
		all = append(all, cs.points...)
	}
	m.OfferLevels = levels(all)
	for _, l := range m.OfferLevels {
		fmt.Printf("  offer level: probability up to %.3f: confidence %.3f\n", l.Upto, l.Confidence)
	}
	for _, cs := range sets {
		ps := slices.Clone(cs.points)
		for i := range ps {
			ps[i].p = m.OfferLevel(ps[i].p)
		}
		fmt.Printf("offers of %s at the offer levels:\n%s", cs.name, reliabilityOf(ps))
	}
	m.Trained, _, _ = strings.Cut(m.Trained, "; offer levels")
	m.Trained += fmt.Sprintf("; offer levels (go run ./internal/match/train -offers -write) on %d title offers that find their listing back, of the training products of %s", len(all), setNames(sets))
	if !write {
		return nil
	}
	data, err = json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Println("wrote", out)
	return nil
}
