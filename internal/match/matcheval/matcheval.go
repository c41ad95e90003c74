// Package matcheval measures title matching on real shops' labelled
// pairs (docs/enrichment.md, Evaluation): it loads the Walmart–Amazon
// benchmark, splits it for training and evaluation, and runs the catalog
// lookup that the acceptance runs, with one shop or both in the index;
// and it spreads WDC Products and WDC LSPC over twelve shops, held out by
// whole products, for lookups, offers and test pairs (shops.go).
package matcheval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
)

// Pair is one labelled pair of product records of two shops.
type Pair struct {
	Left  string `json:"title_left"`
	Right string `json:"title_right"`
	Label int    `json:"label"`
}

// DataDir finds the benchmark's folder: SVC_MATCH_DATA, else
// shared/data/product-matching/walmart-amazon in the working directory or
// one above it.
func DataDir() (string, error) {
	if d := os.Getenv("SVC_MATCH_DATA"); d != "" {
		return d, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		d := filepath.Join(dir, "shared", "data", "product-matching", "walmart-amazon")
		if _, err := os.Stat(filepath.Join(d, "train.ndjson")); err == nil {
			return d, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("matcheval: no shared/data/product-matching/walmart-amazon above the working directory; set SVC_MATCH_DATA")
		}
		dir = up
	}
}

// Load reads every labelled pair of the benchmark (train, valid and test
// alike: the split is ours, by query).
func Load(dir string) ([]Pair, error) {
	var out []Pair
	for _, name := range []string{"train.ndjson", "valid.ndjson", "test.ndjson"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for line := 1; sc.Scan(); line++ {
			var p Pair
			if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			out = append(out, p)
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func bucket(s string, n uint32) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32() % n
}

// Held reports whether a left-hand title is in the held-out part: half,
// by the FNV-1a hash of the title, so that no query is both trained on
// and evaluated, and the evaluation's bins of confidence are not too small
// to tell anything.
func Held(left string) bool { return bucket(left, 10) >= 5 }

// Absent reports whether the true matches of a query are taken out of the
// catalog, as the acceptance does with half of them (key is one of them):
// the query must then get no answer.
func Absent(key string) bool { return bucket("absent:"+key, 2) == 1 }

// Brands of the lookup catalog.
const (
	LeftBrand  = "left"
	RightBrand = "right"
)

// Task is a catalog lookup: the right-hand shop's titles in an index, and
// queries of left-hand titles with their true matches.
type Task struct {
	Index   *match.Index
	Queries []Query
	Titles  map[svc.ProductRef]string
	left    map[string]svc.ProductRef // each left-hand title's product, withLeft
}

// Query is one left-hand title with the right-hand titles that are the
// same product.
type Query struct {
	Title  string
	Truth  map[string]bool
	Absent bool // its true matches are not in the catalog
	// Coded: the title shares a distinctive model code with one of its
	// true matches, as the electronics of the acceptance mostly do.
	Coded bool
}

// NewTask makes the lookup for the queries held (or not): every distinct
// right-hand title is in the catalog, but the true matches of the queries
// that Absent picks; withLeft puts the left-hand titles in the index too,
// as a second brand.
func NewTask(pairs []Pair, held, withLeft bool) *Task {
	truth := map[string]map[string]bool{}
	var lefts, rights []string
	for _, p := range pairs {
		lefts, rights = append(lefts, p.Left), append(rights, p.Right)
		if p.Label == 1 {
			if truth[p.Left] == nil {
				truth[p.Left] = map[string]bool{}
			}
			truth[p.Left][p.Right] = true
		}
	}
	slices.Sort(lefts)
	slices.Sort(rights)
	lefts, rights = slices.Compact(lefts), slices.Compact(rights)
	t := &Task{Index: match.New(), Titles: map[svc.ProductRef]string{}, left: map[string]svc.ProductRef{}}
	removed, kept := map[string]bool{}, map[string]bool{}
	for _, l := range lefts {
		if truth[l] == nil || Held(l) != held {
			continue
		}
		// Queries that share a true match share its fate: the key is the
		// first of the query's true matches.
		key := ""
		for r := range truth[l] {
			if key == "" || r < key {
				key = r
			}
		}
		q := Query{Title: l, Truth: truth[l], Absent: Absent(key)}
		for r := range q.Truth {
			q.Coded = q.Coded || match.SharedCode(l, r)
			if q.Absent {
				removed[r] = true
			} else {
				kept[r] = true
			}
		}
		t.Queries = append(t.Queries, q)
	}
	for i := range t.Queries {
		q := &t.Queries[i]
		for r := range q.Truth {
			if q.Absent && kept[r] {
				q.Absent = false // another query needs it: it stays, and this one counts as present
			}
		}
	}
	ref := svc.ProductRef(0)
	put := func(brand, title string) {
		ref++
		t.Titles[ref] = title
		t.Index.Put(&svc.Product{Ref: ref, BrandID: brand, ProductID: fmt.Sprint(ref), Title: &title})
	}
	for _, r := range rights {
		if !removed[r] || kept[r] {
			put(RightBrand, r)
		}
	}
	if withLeft {
		for _, l := range lefts {
			put(LeftBrand, l)
			t.left[l] = ref
		}
	}
	return t
}

// Right reports whether an answer is right for the query: one of its true
// matches, or a title identical to the query's.
func (q *Query) Right(title string) bool { return q.Truth[title] || title == q.Title }

// Answer is what one query got.
type Answer struct {
	Query      *Query
	Matched    bool
	Right      bool
	Confidence float64
	Title      string // of the product answered
}

// Run asks every query by Lookup on the right-hand brand, or, with offers
// set, by Offers from the left-hand brand, at the least confidence given.
func (t *Task) Run(minConfidence float64, offers bool) []Answer {
	out := make([]Answer, len(t.Queries))
	each(len(t.Queries), func(i int) {
		q := &t.Queries[i]
		a := Answer{Query: q}
		mq := match.Query{Title: q.Title, MinConfidence: minConfidence}
		var h match.Hit
		var ok bool
		if offers {
			// The page's own product, as product-enrich knows it.
			mq.Own = t.left[q.Title]
			for _, o := range t.Index.Offers(LeftBrand, mq, "", 10) {
				if o.BrandID == RightBrand {
					h, ok = o.Hit, true
				}
			}
		} else {
			h, ok = t.Index.Lookup(RightBrand, mq)
		}
		if ok {
			a.Matched, a.Confidence, a.Right, a.Title = true, h.Confidence, q.Right(t.Titles[h.Ref]), t.Titles[h.Ref]
		}
		out[i] = a
	})
	return out
}

// each calls fn(i) for every i below n, on as many goroutines as Go runs
// at once: the queries of a run are independent, and the index answers
// reads concurrently. Each fn writes only its own i's results.
func each(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// Coded keeps the answers to queries that share a model code with a
// true match.
func Coded(answers []Answer) []Answer {
	var out []Answer
	for _, a := range answers {
		if a.Query.Coded {
			out = append(out, a)
		}
	}
	return out
}

// Figures sum a run up.
type Figures struct {
	Present, Answered, Right int // queries whose truth is in the catalog
	Absent, AbsentAnswered   int // queries whose truth is not
	Precision, Recall        float64
	AbsentRate               float64 // share of absent queries that got an answer
}

// Sum works out the figures of a run.
func Sum(answers []Answer) Figures {
	var f Figures
	for _, a := range answers {
		if a.Query.Absent {
			f.Absent++
			if a.Matched {
				f.AbsentAnswered++
			}
			continue
		}
		f.Present++
		if a.Matched {
			f.Answered++
			if a.Right {
				f.Right++
			}
		}
	}
	f.Precision = float64(f.Right) / float64(max(f.Answered, 1))
	f.Recall = float64(f.Right) / float64(max(f.Present, 1))
	f.AbsentRate = float64(f.AbsentAnswered) / float64(max(f.Absent, 1))
	return f
}

func (f Figures) String() string {
	return fmt.Sprintf("precision %.3f (%d of %d answers), recall %.3f (of %d), answered %d of %d without a true match (%.3f)",
		f.Precision, f.Right, f.Answered, f.Recall, f.Present, f.AbsentAnswered, f.Absent, f.AbsentRate)
}

// Bin is one tenth of confidence.
type Bin struct {
	Low, High      float64
	Answers, Right int
	MeanConfidence float64
	Accuracy       float64
}

// Reliability bins the answers of a run by tenths of confidence; an
// answer to a query without a true match in the catalog is wrong.
func Reliability(answers []Answer) []Bin {
	bins := make([]Bin, 10)
	for i := range bins {
		bins[i].Low, bins[i].High = float64(i)/10, float64(i+1)/10
	}
	for _, a := range answers {
		if !a.Matched {
			continue
		}
		k := min(int(a.Confidence*10), 9)
		b := &bins[k]
		b.Answers++
		b.MeanConfidence += a.Confidence
		if a.Right && !a.Query.Absent {
			b.Right++
		}
	}
	for i := range bins {
		if b := &bins[i]; b.Answers > 0 {
			b.MeanConfidence /= float64(b.Answers)
			b.Accuracy = float64(b.Right) / float64(b.Answers)
		}
	}
	return bins
}
