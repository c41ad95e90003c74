package match

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/urlcanon"
)

func TestRefIndex(t *testing.T) {
	x := refIndex{sparse: map[svc.ProductRef]uint32{}}
	refs := []svc.ProductRef{1, 2, 5000, 3, 1 << 40, 4, -7}
	for i, r := range refs {
		x.set(r, uint32(i))
	}
	for i := svc.ProductRef(6); i < 6000; i++ { // the slice grows past 5000
		if i != 5000 {
			x.set(i, 99)
		}
	}
	for i, r := range refs {
		if got, ok := x.get(r); !ok || got != uint32(i) {
			t.Errorf("get(%d) = %d, %v; want %d", r, got, ok, i)
		}
	}
	if _, ok := x.get(6001); ok {
		t.Error("an unset reference was found")
	}
}

// An index filled by Load answers as one filled by Put, and keeps doing
// so through changed titles, addresses and SKUs (which compact the arena).
func TestLoadAndCompactAgreeWithPut(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 9))
	words := []string{"iphone", "galaxy", "case", "black", "white", "pro", "max", "15", "128gb", "charger"}
	title := func() string {
		s := ""
		for range 2 + rng.IntN(4) {
			s += words[rng.IntN(len(words))] + " "
		}
		return s
	}
	ps := make([]svc.Product, 1200)
	for i := range ps {
		tl, u, sku := title(), fmt.Sprintf("https://shop%d.example/p/%d?utm_source=x", i%7, i), fmt.Sprintf("SKU-%d", i%500)
		ps[i] = svc.Product{Ref: svc.ProductRef(i + 1), BrandID: fmt.Sprintf("b%d", i%7), ProductID: fmt.Sprint("p", i), Title: &tl, URL: &u, SKU: &sku}
	}
	put, load := New(), New()
	for i := range ps {
		put.Put(&ps[i])
	}
	if err := load.Load(func(add func(*svc.Product)) error {
		for i := range ps {
			add(&ps[i])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		brandsBySKU := map[string]map[string]bool{} // what Offers by SKU must name
		for _, p := range ps {
			k := foldSKU(*p.SKU)
			if brandsBySKU[k] == nil {
				brandsBySKU[k] = map[string]bool{}
			}
			brandsBySKU[k][p.BrandID] = true
		}
		for k, want := range brandsBySKU {
			for _, c := range []*Index{put, load} {
				got := map[string]bool{}
				for _, o := range c.Offers("", Query{}, k, 100) {
					got[o.BrandID] = true
				}
				if !maps.Equal(got, want) {
					t.Fatalf("%s: Offers by SKU %q name %v, want %v", when, k, got, want)
				}
			}
		}
		for i := range ps {
			p := &ps[i]
			for _, c := range []*Index{put, load} {
				canon, _ := urlcanon.URL(*p.URL)
				for _, brand := range []string{p.BrandID, ""} {
					if got, ok := c.ByURL(brand, canon); !ok || got.Ref != p.Ref || got.ProductID != p.ProductID || got.Title != *p.Title {
						t.Fatalf("%s: ByURL(%q, %s) = %+v, %v", when, brand, canon, got, ok)
					}
				}
			}
			m1, ok1 := put.ByTitle(p.BrandID, *p.Title, nil)
			m2, ok2 := load.ByTitle(p.BrandID, *p.Title, nil)
			if m1 != m2 || ok1 != ok2 {
				t.Fatalf("%s: ByTitle(%q): Put %+v %v, Load %+v %v", when, *p.Title, m1, ok1, m2, ok2)
			}
			if i%50 == 0 {
				o1, o2 := put.Offers("", Query{Title: *p.Title}, *p.SKU, 10), load.Offers("", Query{Title: *p.Title}, *p.SKU, 10)
				if !slices.Equal(o1, o2) {
					t.Fatalf("%s: Offers differ: %+v, %+v", when, o1, o2)
				}
			}
		}
	}
	check("loaded")
	for round := range 5 { // enough changes to compact
		for i := range ps {
			tl, u, sku := title(), fmt.Sprintf("https://shop%d.example/q/%d/%d", i%7, round, i), fmt.Sprintf("SKU-%d-%d", round, i%300)
			ps[i].Title, ps[i].URL, ps[i].SKU = &tl, &u, &sku
			put.Put(&ps[i])
			load.Put(&ps[i])
		}
	}
	check("changed")
	for _, c := range []*Index{put, load} {
		c.mu.Lock()
		c.compact() // whether or not the changes made enough waste to
		c.mu.Unlock()
	}
	check("compacted")
	if _, ok := put.ByURL("", "shop1.example/p/1"); ok {
		t.Error("an old address still finds its product")
	}
	if put.Len() != len(ps) || load.Len() != len(ps) {
		t.Errorf("%d and %d products, want %d", put.Len(), load.Len(), len(ps))
	}
}

// Posting lists must agree with a plain map of word to products through
// adds (which move, merge and compact lists) and removals.
func TestPostingsAgreeWithAMap(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 4))
	var ps postings
	want := map[uint32]map[uint64]bool{}
	for step := range 200_000 {
		id := uint32(rng.IntN(40))
		if rng.IntN(8) == 0 {
			id = uint32(rng.IntN(4000)) // many short lists
		}
		ps.word(id)
		if want[id] == nil {
			want[id] = map[uint64]bool{}
		}
		p := posting(uint32(rng.IntN(20)), uint32(rng.IntN(5000)))
		if want[id][p] || rng.IntN(5) == 0 {
			ps.remove(id, p)
			delete(want[id], p)
		} else {
			ps.add(id, p)
			want[id][p] = true
		}
		if step%20_000 == 0 || step == 199_999 {
			for id, set := range want {
				l := ps.list(id)
				if l.len() != len(set) || !slices.IsSorted(l.sorted) {
					t.Fatalf("step %d: word %d has %d postings, want %d (sorted run %v)", step, id, l.len(), len(set), slices.IsSorted(l.sorted))
				}
				for b := range uint32(20) {
					n := 0
					l.brand(b, func(e uint32) {
						n++
						if !set[posting(b, e)] {
							t.Fatalf("step %d: word %d lists %d of brand %d", step, id, e, b)
						}
					})
					in := 0
					for p := range set {
						if uint32(p>>32) == b {
							in++
						}
					}
					if n != in {
						t.Fatalf("step %d: word %d has %d postings of brand %d, want %d", step, id, n, b, in)
					}
				}
			}
		}
	}
	if ps.waste > len(ps.pool)/2+1<<16 {
		t.Errorf("waste %d of %d", ps.waste, len(ps.pool))
	}
}

// An outside probe found that one anonymous view to an open brand A naming brand
// B's page made every enrichment of the page unmatched, and B's keyed
// views did not restore it. A brand's site matches only its own products,
// whatever other brands name; a page on a host no brand owns moves to
// another brand's product only by a keyed event.
func TestURLBindings(t *testing.T) {
	c := New()
	u := func(s string) *string { return &s }
	const page = "https://beta.example/p/bag-7"
	canon, _ := urlcanon.URL(page)
	want := func(brand, wantProduct string) {
		t.Helper()
		got, ok := c.ByURL(brand, canon)
		if wantProduct == "" {
			if ok {
				t.Errorf("ByURL(%q) = %s/%s, want none", brand, got.BrandID, got.ProductID)
			}
			return
		}
		if !ok || got.BrandID+"/"+got.ProductID != wantProduct {
			t.Errorf("ByURL(%q) = %s/%s %v, want %s", brand, got.BrandID, got.ProductID, ok, wantProduct)
		}
	}
	c.PutKeyed(&svc.Product{Ref: 1, BrandID: "br_beta", ProductID: "bag-7", URL: u(page)})
	c.Put(&svc.Product{Ref: 2, BrandID: "br_open", ProductID: "squat", URL: u(page)}) // anonymous
	want("br_beta", "br_beta/bag-7")
	want("", "br_beta/bag-7")
	want("br_open", "br_open/squat") // its own site's view of it, if it owned the host
	c.PutKeyed(&svc.Product{Ref: 1, BrandID: "br_beta", ProductID: "bag-7", URL: u(page)})
	want("br_beta", "br_beta/bag-7")

	// A host no brand owns: the first product binds it; an anonymous
	// event of another brand does not move it, a keyed one does, and
	// the brand's own anonymous events may.
	const market = "https://market.example/item/9"
	mc, _ := urlcanon.URL(market)
	c.Put(&svc.Product{Ref: 3, BrandID: "br_beta", ProductID: "m9", URL: u(market)})
	c.Put(&svc.Product{Ref: 4, BrandID: "br_open", ProductID: "m9-squat", URL: u(market)})
	if got, _ := c.ByURL("", mc); got.ProductID != "m9" {
		t.Errorf("an anonymous event of another brand took a page: %s/%s", got.BrandID, got.ProductID)
	}
	c.PutKeyed(&svc.Product{Ref: 5, BrandID: "br_gamma", ProductID: "g9", URL: u(market)})
	if got, _ := c.ByURL("", mc); got.ProductID != "g9" {
		t.Errorf("a keyed event did not take the page: %s/%s", got.BrandID, got.ProductID)
	}
	c.Put(&svc.Product{Ref: 3, BrandID: "br_beta", ProductID: "m9", URL: u(market + "?again=1")})
	c.Put(&svc.Product{Ref: 3, BrandID: "br_beta", ProductID: "m9", URL: u(market)})
	if got, _ := c.ByURL("", mc); got.ProductID != "g9" {
		t.Errorf("an anonymous event took a keyed binding: %s/%s", got.BrandID, got.ProductID)
	}
}
