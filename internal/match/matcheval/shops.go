package matcheval

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
)

// Listing is one shop's offer of a product: its title and the product it
// is (the set's cluster: offers of one cluster are one product).
type Listing struct {
	Title   string
	Cluster string
}

// Set is a labelled set read as listings of products, and the labelled
// pairs of its test part.
type Set struct {
	Name     string
	Listings []Listing
	Test     []Pair
	// cluster of each title in Test
	clusterOf map[string]string
}

// SiblingDir finds another set beside the Walmart–Amazon benchmark in
// shared/data/product-matching (DataDir's parent), so that the one
// SVC_MATCH_DATA that .ci/run sets finds every set.
func SiblingDir(name string) (string, error) {
	dir, err := DataDir()
	if err != nil {
		return "", err
	}
	d := filepath.Join(filepath.Dir(dir), name)
	if _, err := os.Stat(d); err != nil {
		return "", fmt.Errorf("matcheval: %w", err)
	}
	return d, nil
}

// wdcPair is one labelled pair of WDC Products offers.
type wdcPair struct {
	IDLeft       int64  `json:"id_left"`
	IDRight      int64  `json:"id_right"`
	TitleLeft    string `json:"title_left"`
	TitleRight   string `json:"title_right"`
	ClusterLeft  int64  `json:"cluster_id_left"`
	ClusterRight int64  `json:"cluster_id_right"`
	Label        int    `json:"label"`
}

// LoadWDCProducts reads every file of WDC Products (dir is its folder):
// each distinct offer is a listing of its cluster; the pairs of the test
// file whose products are all unseen in training (rnd100un) are Test.
func LoadWDCProducts(dir string) (*Set, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("matcheval: no WDC Products files in %s (%v)", dir, err)
	}
	slices.Sort(names)
	s := &Set{Name: "wdc-products", clusterOf: map[string]string{}}
	seen := map[int64]bool{}
	add := func(id int64, title string, cluster int64) {
		title = strings.TrimSpace(title)
		if seen[id] || title == "" {
			return
		}
		seen[id] = true
		s.Listings = append(s.Listings, Listing{Title: title, Cluster: fmt.Sprint(cluster)})
	}
	for _, name := range names {
		err := readLines(name, func(line []byte) error {
			var p wdcPair
			if err := json.Unmarshal(line, &p); err != nil {
				return err
			}
			add(p.IDLeft, p.TitleLeft, p.ClusterLeft)
			add(p.IDRight, p.TitleRight, p.ClusterRight)
			if strings.HasSuffix(name, "rnd100un_gs.json.gz") {
				s.Test = append(s.Test, Pair{Left: p.TitleLeft, Right: p.TitleRight, Label: p.Label})
				s.clusterOf[p.TitleLeft] = fmt.Sprint(p.ClusterLeft)
				s.clusterOf[p.TitleRight] = fmt.Sprint(p.ClusterRight)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// LoadLSPC reads one category of WDC LSPC v2 (dir is wdc-lspc): its
// titles, cleaned as a page's title is, are listings, and the products are
// the groups of titles that its matching pairs join; test.txt is Test.
func LoadLSPC(dir, category string) (*Set, error) {
	names, err := filepath.Glob(filepath.Join(dir, category, "*.txt*"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("matcheval: no LSPC %s files in %s (%v)", category, dir, err)
	}
	slices.Sort(names)
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok {
			parent[x] = x
			return x
		}
		if p == x {
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	var order []string
	s := &Set{Name: "lspc-" + category, clusterOf: map[string]string{}}
	for _, name := range names {
		err := readLines(name, func(line []byte) error {
			f := strings.Split(string(line), "\t")
			if len(f) != 3 {
				return fmt.Errorf("want 3 fields, got %d", len(f))
			}
			l, r := lspcTitle(f[0]), lspcTitle(f[1])
			for _, t := range []string{l, r} {
				if _, ok := parent[t]; !ok {
					order = append(order, t)
					find(t)
				}
			}
			if f[2] == "1" {
				parent[find(l)] = find(r)
			}
			if filepath.Base(name) == "test.txt" {
				s.Test = append(s.Test, Pair{Left: l, Right: r, Label: int(f[2][0] - '0')})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, t := range order {
		if t != "" {
			s.Listings = append(s.Listings, Listing{Title: t, Cluster: find(t)})
			s.clusterOf[t] = find(t)
		}
	}
	return s, nil
}

var (
	lspcField = regexp.MustCompile(`^\s*COL title VAL\s*`)
	lspcLang  = regexp.MustCompile(`"@[a-zA-Z]{2,3}(-[a-zA-Z]{2,4})?`)
)

// lspcTitle is a page's title of LSPC's "COL title VAL "…"@en tail"@en":
// without the corpus's field name, quotes and language tags.
func lspcTitle(f string) string {
	f = lspcField.ReplaceAllString(f, "")
	f = lspcLang.ReplaceAllString(f, " ")
	f = strings.ReplaceAll(f, `"`, " ")
	return strings.Join(strings.Fields(f), " ")
}

func readLines(name string, fn func([]byte) error) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	var sc *bufio.Scanner
	if strings.HasSuffix(name, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer z.Close()
		sc = bufio.NewScanner(z)
	} else {
		sc = bufio.NewScanner(f)
	}
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	return sc.Err()
}

// HeldCluster reports whether a product is held out: half of the
// products, whole, by the hash of its cluster, so that no product is both
// trained on and evaluated, as a new shop's products are new.
func HeldCluster(cluster string) bool { return bucket("cluster:"+cluster, 10) >= 5 }

// Shops is a catalog of many shops: a set's listings spread over brands,
// each product's listings at different brands, as a directory of shops
// holds one product at many of them.
type Shops struct {
	Set     *Set
	Index   *match.Index
	Brands  int
	brandOf []int // of each listing
	byRef   map[svc.ProductRef]int
	has     map[string][]bool // cluster: which brands hold it
	Queries []ShopQuery
}

// ShopQuery is one listing of a product asked about: by Lookup in one
// other brand (Target), which holds the product or (Absent) does not, and
// by Offers from its own brand.
type ShopQuery struct {
	Query
	Listing int
	Brand   int
	Target  int
}

func brandID(b int) string { return fmt.Sprintf("shop%02d", b) }

// listingRef is the ref NewShops puts listing i under.
func listingRef(i int) svc.ProductRef { return svc.ProductRef(i + 1) }

// NewShops spreads a set's listings over n brands: a product's listings
// go to consecutive brands from one its cluster's hash picks, so a brand
// rarely holds two of one product. The queries are the listings of the
// products held out (held) or not; half of them (by the title's hash) are
// asked in a brand without their product, the rest in one with it, when
// there are such brands.
func NewShops(s *Set, n int, held bool) *Shops {
	t := &Shops{Set: s, Index: match.New(), Brands: n, brandOf: make([]int, len(s.Listings)),
		byRef: map[svc.ProductRef]int{}, has: map[string][]bool{}}
	next := map[string]int{}
	for i, l := range s.Listings {
		k, ok := next[l.Cluster]
		if !ok {
			k = int(bucket("brand:"+l.Cluster, uint32(n)))
		}
		next[l.Cluster] = (k + 1) % n
		t.brandOf[i] = k
		if t.has[l.Cluster] == nil {
			t.has[l.Cluster] = make([]bool, n)
		}
		t.has[l.Cluster][k] = true
		ref := listingRef(i)
		t.byRef[ref] = i
		title := l.Title
		t.Index.Put(&svc.Product{Ref: ref, BrandID: brandID(k), ProductID: fmt.Sprint(ref), Title: &title})
	}
	for i, l := range s.Listings {
		if HeldCluster(l.Cluster) != held {
			continue
		}
		own := t.brandOf[i]
		var with, without []int
		for k := range n {
			if k == own {
				continue
			}
			if t.has[l.Cluster][k] {
				with = append(with, k)
			} else {
				without = append(without, k)
			}
		}
		pick := with
		if Absent(l.Title) && len(without) > 0 || len(with) == 0 {
			pick = without
		}
		target := pick[bucket("target:"+l.Title, uint32(len(pick)))]
		q := ShopQuery{Listing: i, Brand: own, Target: target,
			Query: Query{Title: l.Title, Truth: map[string]bool{}, Absent: !t.has[l.Cluster][target]}}
		for j, m := range s.Listings {
			if m.Cluster == l.Cluster && j != i {
				q.Truth[m.Title] = true
				q.Coded = q.Coded || match.SharedCode(l.Title, m.Title)
			}
		}
		t.Queries = append(t.Queries, q)
	}
	return t
}

// right reports whether a product answered is the query's: a listing of
// its product, or of its very title.
func (t *Shops) right(q *ShopQuery, ref svc.ProductRef) bool {
	j := t.byRef[ref]
	return t.Set.Listings[j].Cluster == t.Set.Listings[q.Listing].Cluster || t.Set.Listings[j].Title == q.Title
}

// Run asks every query in its target brand, as search-enrich does.
func (t *Shops) Run(minConfidence float64) []Answer {
	out := make([]Answer, len(t.Queries))
	each(len(t.Queries), func(i int) {
		q := &t.Queries[i]
		a := Answer{Query: &q.Query}
		h, ok := t.Index.Lookup(brandID(q.Target), match.Query{Title: q.Title, MinConfidence: minConfidence})
		if ok {
			a.Matched, a.Confidence, a.Right, a.Title = true, h.Confidence, t.right(q, h.Ref), t.Set.Listings[t.byRef[h.Ref]].Title
		}
		out[i] = a
	})
	return out
}

// OfferFigures sum up offers asked from each query's own brand, as
// product-enrich asks them.
type OfferFigures struct {
	Queries, WithCounterpart, FoundOne int // queries; those whose product another brand holds; of which at least one right offer
	Pairs, PairsFound                  int // (query, other brand holding its product); found by a right offer
	Offers, Right                      int // offers given; right
	NoCounterpartOffers                int // offers at brands without the product
	Answers                            []Answer
	queryOf                            []int // of each answer, the query's index
}

// AtLeast is the figures of the offers at a least confidence, as a
// client's min_confidence would keep them.
func (f OfferFigures) AtLeast(minConfidence float64) OfferFigures {
	g := OfferFigures{Queries: f.Queries, WithCounterpart: f.WithCounterpart, Pairs: f.Pairs}
	found := map[int]bool{}
	for i, a := range f.Answers {
		if a.Confidence < minConfidence {
			continue
		}
		g.Answers = append(g.Answers, a)
		g.Offers++
		switch {
		case a.Query.Absent:
			g.NoCounterpartOffers++
			if a.Right {
				g.Right++ // its very title
			}
		case a.Right:
			g.Right++
			g.PairsFound++
			found[f.queryOf[i]] = true
		}
		g.queryOf = append(g.queryOf, f.queryOf[i])
	}
	g.FoundOne = len(found)
	return g
}

// Precision is the share of offers that are right.
func (f OfferFigures) Precision() float64 { return float64(f.Right) / float64(max(f.Offers, 1)) }

// FoundShare is the share of queries with a counterpart at another brand
// that got at least one right offer.
func (f OfferFigures) FoundShare() float64 {
	return float64(f.FoundOne) / float64(max(f.WithCounterpart, 1))
}

// PairShare is the share of (query, other brand with its product) found.
func (f OfferFigures) PairShare() float64 { return float64(f.PairsFound) / float64(max(f.Pairs, 1)) }

func (f OfferFigures) String() string {
	return fmt.Sprintf("offers: precision %.3f (%d of %d), queries with a counterpart found %.3f (%d of %d), pairs found %.3f (%d of %d), offers at a shop without the product %d",
		f.Precision(), f.Right, f.Offers, f.FoundShare(), f.FoundOne, f.WithCounterpart,
		f.PairShare(), f.PairsFound, f.Pairs, f.NoCounterpartOffers)
}

// Offers asks every query's offers from its own brand, as product-enrich
// asks them for a page whose product it knows: the listing itself.
func (t *Shops) Offers(minConfidence float64) OfferFigures {
	offers := make([][]match.Offer, len(t.Queries))
	each(len(t.Queries), func(i int) {
		q := &t.Queries[i]
		offers[i] = t.Index.Offers(brandID(q.Brand), match.Query{Title: q.Title, MinConfidence: minConfidence, Own: listingRef(q.Listing)}, "", t.Brands)
	})
	var f OfferFigures
	for i := range t.Queries {
		q := &t.Queries[i]
		f.Queries++
		has := t.has[t.Set.Listings[q.Listing].Cluster]
		holders := 0
		for k, ok := range has {
			if ok && k != q.Brand {
				holders++
			}
		}
		f.Pairs += holders
		if holders > 0 {
			f.WithCounterpart++
		}
		found := false
		for _, o := range offers[i] {
			f.Offers++
			right := t.right(q, o.Ref)
			k := t.brandOf[t.byRef[o.Ref]]
			// Each offer is an answer about its brand: wrong when the
			// brand does not hold the product.
			aq := &Query{Title: q.Title, Truth: q.Truth, Absent: !has[k]}
			f.Answers = append(f.Answers, Answer{Query: aq, Matched: true, Right: right, Confidence: o.Confidence, Title: t.Set.Listings[t.byRef[o.Ref]].Title})
			f.queryOf = append(f.queryOf, i)
			if !has[k] {
				f.NoCounterpartOffers++
			}
			if right {
				f.Right++
				if has[k] {
					f.PairsFound++
					found = true
				}
			}
		}
		if found {
			f.FoundOne++
		}
	}
	return f
}

// PairFigures are the pairwise figures of a set's test pairs, at a least
// confidence: every distinct right-hand title is a product of one of two
// brands (by its hash), each left-hand title is looked up in its pair's
// right-hand brand, and a pair is said to match when the answer is its
// right-hand title. A pair whose left-hand title is itself a product of
// that brand (WDC's offers are on both sides of its pairs) is skipped:
// the title would find itself.
type PairFigures struct {
	Pairs, Matches, Said, SaidRight, Skipped int
	Precision, Recall, F1                    float64
}

func (f PairFigures) String() string {
	return fmt.Sprintf("pairs: %d (%d matches; %d skipped): precision %.3f (%d of %d), recall %.3f, F1 %.3f",
		f.Pairs, f.Matches, f.Skipped, f.Precision, f.SaidRight, f.Said, f.Recall, f.F1)
}

// Pairs works out the pairwise figures over the test pairs whose
// left-hand product is held out (held) or not.
func (s *Set) Pairs(minConfidence float64, held bool) PairFigures {
	c := match.New()
	titles := map[svc.ProductRef]string{}
	var rights []string
	for _, p := range s.Test {
		rights = append(rights, p.Right)
	}
	slices.Sort(rights)
	side := func(title string) string { return fmt.Sprint("pairs", bucket("side:"+title, 2)) }
	in := map[string]bool{}
	for i, r := range slices.Compact(rights) {
		ref := svc.ProductRef(i + 1)
		titles[ref] = r
		in[side(r)+"\x00"+r] = true
		c.Put(&svc.Product{Ref: ref, BrandID: side(r), ProductID: fmt.Sprint(ref), Title: &r})
	}
	type asked struct{ title, brand string }
	answer := map[asked]string{}
	var f PairFigures
	for _, p := range s.Test {
		if HeldCluster(s.clusterOf[p.Left]) != held {
			continue
		}
		k := asked{p.Left, side(p.Right)}
		if in[k.brand+"\x00"+p.Left] {
			f.Skipped++
			continue
		}
		a, ok := answer[k]
		if !ok {
			if h, found := c.Lookup(k.brand, match.Query{Title: p.Left, MinConfidence: minConfidence}); found {
				a = titles[h.Ref]
			}
			answer[k] = a
		}
		f.Pairs++
		f.Matches += p.Label
		if a == p.Right {
			f.Said++
			f.SaidRight += p.Label
		}
	}
	f.Precision = float64(f.SaidRight) / float64(max(f.Said, 1))
	f.Recall = float64(f.SaidRight) / float64(max(f.Matches, 1))
	if f.Precision+f.Recall > 0 {
		f.F1 = 2 * f.Precision * f.Recall / (f.Precision + f.Recall)
	}
	return f
}

// ShopSetNames are the sets beside Walmart–Amazon: WDC Products and the
// four categories of WDC LSPC.
var ShopSetNames = []string{"wdc-products", "lspc-cameras", "lspc-computers", "lspc-shoes", "lspc-watches"}

// LoadShopSet loads one of ShopSetNames.
func LoadShopSet(name string) (*Set, error) {
	if name == "wdc-products" {
		dir, err := SiblingDir("wdc-products")
		if err != nil {
			return nil, err
		}
		return LoadWDCProducts(dir)
	}
	category, ok := strings.CutPrefix(name, "lspc-")
	if !ok || !slices.Contains(ShopSetNames, name) {
		return nil, fmt.Errorf("matcheval: no set %q", name)
	}
	dir, err := SiblingDir("wdc-lspc")
	if err != nil {
		return nil, err
	}
	return LoadLSPC(dir, category)
}

// ShopSets loads every set of ShopSetNames.
func ShopSets() ([]*Set, error) {
	var out []*Set
	for _, name := range ShopSetNames {
		s, err := LoadShopSet(name)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// AtLeast keeps the answers of a run at a least confidence, as a client's
// min_confidence would: the others become no answer.
func AtLeast(answers []Answer, minConfidence float64) []Answer {
	out := slices.Clone(answers)
	for i := range out {
		if out[i].Matched && out[i].Confidence < minConfidence {
			out[i] = Answer{Query: out[i].Query}
		}
	}
	return out
}

// Asked is one lookup as the trainer weighs it: the candidates Lookup
// gathers (match.Index.Candidates), which of them are right, and the
// group of lookups that must be in one fold (one product, or the queries
// that share a true match).
type Asked struct {
	Group  string
	Absent bool
	Cands  []match.Candidate
	Right  []bool
}

// Asked is every query's lookup in the right-hand brand, grouped by its
// first true match.
func (t *Task) Asked() []Asked {
	var out []Asked
	for i := range t.Queries {
		q := &t.Queries[i]
		key := ""
		for r := range q.Truth {
			if key == "" || r < key {
				key = r
			}
		}
		a := Asked{Group: "wa:" + key, Absent: q.Absent, Cands: t.Index.Candidates(RightBrand, q.Title)}
		for _, c := range a.Cands {
			a.Right = append(a.Right, !q.Absent && q.Right(c.Title) || c.Title == q.Title)
		}
		out = append(out, a)
	}
	return out
}

// Asked is every query's lookup in up to per brands that hold its
// product and as many that do not (its own target first), grouped by
// product: more answers to calibrate on, in the same measure of the two
// kinds as Run's.
func (t *Shops) Asked(per int) []Asked {
	var out []Asked
	for i := range t.Queries {
		q := &t.Queries[i]
		cluster := t.Set.Listings[q.Listing].Cluster
		var with, without []int
		for k, ok := range t.has[cluster] {
			switch {
			case k == q.Brand:
			case ok:
				with = append(with, k)
			default:
				without = append(without, k)
			}
		}
		n := min(per, len(with), len(without))
		for _, ks := range [][]int{with[:n], without[:n]} {
			for _, k := range ks {
				a := Asked{Group: t.Set.Name + ":" + cluster, Absent: !t.has[cluster][k], Cands: t.Index.Candidates(brandID(k), q.Title)}
				for _, c := range a.Cands {
					a.Right = append(a.Right, !a.Absent && t.right(q, c.Ref) || c.Title == q.Title)
				}
				out = append(out, a)
			}
		}
	}
	return out
}

// OfferPoint is one title offer a query's own product finds back, for
// the trainer's OfferLevels: the calibration's probability, whether the
// offer is right, and its product's group (a fold keeps a product
// whole).
type OfferPoint struct {
	Probability float64
	Right       bool
	Group       string
}

// OfferPoints are the title offers of every query that find its own
// listing back, at any confidence, as product-enrich weighs them for a
// page whose product it knows.
func (t *Shops) OfferPoints() []OfferPoint {
	per := make([][]match.OfferAnswer, len(t.Queries))
	each(len(t.Queries), func(i int) {
		q := &t.Queries[i]
		per[i] = t.Index.OfferAnswers(brandID(q.Brand), match.Query{Title: q.Title, Own: listingRef(q.Listing)})
	})
	var out []OfferPoint
	for i, offers := range per {
		q := &t.Queries[i]
		for _, o := range offers {
			if o.FoundBack {
				out = append(out, OfferPoint{Probability: o.Probability, Right: t.right(q, o.Ref),
					Group: t.Set.Name + ":" + t.Set.Listings[q.Listing].Cluster})
			}
		}
	}
	return out
}
