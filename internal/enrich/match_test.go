package enrich

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
	"github.com/svc-project/svc/internal/match/matchtest"
)

var update = flag.Bool("update", false, "write testdata/fixture.json anew from the generator")

const fixturePath = "testdata/fixture.json"

func loadFixture(t testing.TB) *matchtest.Fixture {
	t.Helper()
	if *update {
		f := matchtest.Generate(7, 40, 110, true)
		data, err := json.MarshalIndent(f, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(fixturePath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fixturePath, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	var f matchtest.Fixture
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

// fixtureMatcher indexes a fixture's products; refs are positions + 1.
func fixtureMatcher(f *matchtest.Fixture) (Matcher, map[svc.ProductRef]string) {
	idx := match.New()
	names := map[svc.ProductRef]string{}
	for i, p := range f.Products {
		ref := svc.ProductRef(i + 1)
		idx.Put(&svc.Product{Ref: ref, BrandID: p.BrandID, ProductID: p.ProductID, Title: &p.Title, URL: &p.URL, SKU: &p.SKU})
		names[ref] = p.BrandID + "/" + p.ProductID
	}
	var brands []*svc.Brand
	for _, b := range f.Brands {
		brands = append(brands, &svc.Brand{ID: b.ID, Name: b.Name, Domains: b.Domains})
	}
	return Matcher{Index: idx, Dir: match.NewDirectory(brands)}, names
}

// TestMatchPrecisionRecall measures matching on the committed fixture: a
// wrong match is worse than none, so precision must stay at 0.98 or more,
// and recall at 0.97 or more (docs/enrichment.md, Matching). The test
// holds the line closer to what is measured (0.9997 and 0.990 since the
// calibration across shops puts 31 right title answers under the default
// least confidence), so that a regression shows.
func TestMatchPrecisionRecall(t *testing.T) {
	f := loadFixture(t)
	m, names := fixtureMatcher(f)
	type tally struct{ queries, matched, correct, wrong int }
	byKind := map[string]*tally{}
	var positives, matched, correct int
	for _, q := range f.Queries {
		k := byKind[q.Kind]
		if k == nil {
			k = new(tally)
			byKind[q.Kind] = k
		}
		k.queries++
		if q.Expect != "" {
			positives++
		}
		found, ok := m.Match(q.Title, q.URL, q.Domain)
		if !ok {
			continue
		}
		matched++
		k.matched++
		if names[found.Ref] == q.Expect {
			correct++
			k.correct++
		} else {
			k.wrong++
			if testing.Verbose() {
				t.Logf("wrong %s match %.3f: %q → %q (want %q)", q.Kind, found.Confidence, q.Title, found.Title, q.Expect)
			}
		}
	}
	precision := float64(correct) / float64(max(matched, 1))
	recall := float64(correct) / float64(max(positives, 1))
	for kind, k := range byKind {
		t.Logf("%-9s queries %5d  matched %5d  correct %5d  wrong %3d", kind, k.queries, k.matched, k.correct, k.wrong)
	}
	t.Logf("products %d, queries %d: precision %.4f, recall %.4f", len(f.Products), len(f.Queries), precision, recall)
	if precision < 0.998 || recall < 0.985 {
		t.Errorf("precision %.4f (want >= 0.998), recall %.4f (want >= 0.985)", precision, recall)
	}
}

// TestOfferPrecision measures offers found by title alone on the fixture,
// for a page whose product is known, as product-enrich asks them: shops
// that give a SKU give the maker's, so two products with SKUs are the
// same product exactly when their SKUs are equal.
func TestOfferPrecision(t *testing.T) {
	f := loadFixture(t)
	m, _ := fixtureMatcher(f)
	skus := map[string]string{}
	for _, p := range f.Products {
		skus[p.BrandID+"/"+p.ProductID] = p.SKU
	}
	var judged, wrong int
	for i, p := range f.Products {
		if p.SKU == "" || i%3 != 0 {
			continue
		}
		for _, o := range m.Index.Offers(p.BrandID, match.Query{Title: p.Title, Own: svc.ProductRef(i + 1)}, "", 10) {
			other := skus[o.BrandID+"/"+o.ProductID]
			if other == "" {
				continue
			}
			judged++
			if other != p.SKU {
				wrong++
				if testing.Verbose() && wrong <= 10 {
					t.Logf("wrong offer %.3f: %q → %q", o.Confidence, p.Title, o.Title)
				}
			}
		}
	}
	precision := 1 - float64(wrong)/float64(max(judged, 1))
	t.Logf("offers by title: %d judged, %d wrong: precision %.4f", judged, wrong, precision)
	if judged < 500 || precision < 0.98 {
		t.Errorf("offer precision %.4f over %d offers, want >= 0.98 over 500 or more", precision, judged)
	}
}
