package matchtest

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// Brand is a shop.
type Brand struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Domains []string `json:"domains"`
}

// Product is one product of a shop, as its events name it.
type Product struct {
	BrandID   string `json:"brand_id"`
	ProductID string `json:"product_id"`
	Title     string `json:"title"`
	URL       string `json:"url"`
	SKU       string `json:"sku,omitempty"`
}

// Query is a search result to match, and the product it names: empty
// Expect means it names no product of the catalog.
type Query struct {
	Kind   string `json:"kind"` // how it was made: url, title, near_miss, foreign
	Title  string `json:"title"`
	URL    string `json:"url"`
	Domain string `json:"domain"`
	Expect string `json:"expect,omitempty"` // brand_id/product_id
}

// Fixture is a catalog with queries against it.
type Fixture struct {
	Brands   []Brand   `json:"brands"`
	Products []Product `json:"products"`
	Queries  []Query   `json:"queries"`
}

var shopWords = [][]string{
	{"Nordlicht", "Urban", "Maison", "Casa", "Blue", "Alpine", "Metro", "Atlas", "Harbor", "Kiwi", "Lumen", "Orbit", "Pioneer", "Rhein", "Sierra", "Tandem", "Vega", "Zenith", "Brick", "Cedar"},
	{"Elektronik", "Gear", "Store", "Shop", "Outlet", "Market", "Home", "Supply", "Direct", "Depot"},
}

var tlds = []string{"com", "de", "fr", "es", "co.uk", "nl", "it"}

// titleStyles are the ways shops write a product's title.
var titleStyles = []func(it item) string{
	func(it item) string { return join(it.maker, it.line, it.kind, strings.Join(it.variant, " "), it.color) },
	func(it item) string {
		return join(it.maker, it.line, strings.Join(it.variant, " ")) + suffix(" - ", it.color)
	},
	func(it item) string {
		return join(it.maker, it.line, it.kind) + paren(join(strings.Join(it.variant, ", "), it.color))
	},
	func(it item) string {
		return join(it.line, it.kind, strings.Join(it.variant, " "), it.color) + suffix(" by ", it.maker)
	},
}

func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

func suffix(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

type shop struct {
	Brand
	style    int
	urlStyle int
	items    map[int]bool // indexes into the universe sold here
}

// Generate makes a catalog of about brands × perBrand products and the
// queries against it; the same seed gives the same fixture.
func Generate(seed uint64, brands, perBrand int, queries bool) *Fixture {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	var universe []item
	for _, l := range lines {
		universe = append(universe, l.items(r)...)
		universe = append(universe, l.accessories(r)...)
	}
	byCategory := map[string][]int{}
	for i, it := range universe {
		byCategory[it.category] = append(byCategory[it.category], i)
	}
	var categories []string
	for c := range byCategory {
		categories = append(categories, c)
	}
	slices.Sort(categories)

	f := &Fixture{}
	shops := make([]*shop, brands)
	for b := range shops {
		name := fmt.Sprintf("%s %s", shopWords[0][b%len(shopWords[0])], shopWords[1][(b/len(shopWords[0])+b)%len(shopWords[1])])
		if b >= len(shopWords[0])*len(shopWords[1]) || b >= len(shopWords[0]) {
			name = fmt.Sprintf("%s %d", name, b)
		}
		domain := slug(name) + "." + tlds[b%len(tlds)]
		s := &shop{Brand: Brand{ID: fmt.Sprintf("br_%04d", b), Name: name, Domains: []string{domain}},
			style: r.IntN(len(titleStyles)), urlStyle: r.IntN(3), items: map[int]bool{}}
		// A shop sells from two or three categories.
		cats := slices.Clone(categories)
		r.Shuffle(len(cats), func(i, j int) { cats[i], cats[j] = cats[j], cats[i] })
		var pool []int
		for _, c := range cats[:2+r.IntN(2)] {
			pool = append(pool, byCategory[c]...)
		}
		r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		for _, i := range pool[:min(len(pool), perBrand)] {
			s.items[i] = true
		}
		shops[b] = s
		f.Brands = append(f.Brands, s.Brand)
	}
	type sold struct {
		shop *shop
		item int
		p    Product
	}
	var all []sold
	for _, s := range shops {
		ids := make([]int, 0, len(s.items))
		for i := range s.items {
			ids = append(ids, i)
		}
		slices.Sort(ids)
		for n, i := range ids {
			it := universe[i]
			title := titleStyles[s.style](it)
			p := Product{BrandID: s.ID, ProductID: fmt.Sprintf("p%05d", n+1), Title: title, URL: productURL(s, n+1, title)}
			if r.IntN(2) == 0 {
				p.SKU = it.sku
			}
			f.Products = append(f.Products, p)
			all = append(all, sold{s, i, p})
		}
	}
	if !queries {
		return f
	}
	for _, x := range all {
		want := x.p.BrandID + "/" + x.p.ProductID
		domain := x.shop.Domains[0]
		switch r.IntN(4) {
		case 0:
			f.Queries = append(f.Queries, Query{Kind: "url", Title: x.p.Title, URL: urlVariant(r, x.p.URL), Domain: domain, Expect: want})
		case 1, 2:
			f.Queries = append(f.Queries, Query{Kind: "title", Title: titleVariant(r, x.p.Title, x.shop.Name, universe[x.item]),
				URL: searchURL(domain, x.p.Title), Domain: domain, Expect: want})
		case 3:
			if q, ok := nearMiss(r, x.shop, universe, x.item); ok {
				q.URL, q.Domain = searchURL(domain, q.Title), domain
				f.Queries = append(f.Queries, q)
			}
			// The same page at a shop that is not a brand of ours.
			f.Queries = append(f.Queries, Query{Kind: "foreign", Title: x.p.Title, URL: "https://www.elsewhere-" + domain + "/item/" + slug(x.p.Title), Domain: "elsewhere-" + domain})
		}
	}
	return f
}

func productURL(s *shop, n int, title string) string {
	d := "https://www." + s.Domains[0]
	switch s.urlStyle {
	case 0:
		return fmt.Sprintf("%s/products/%s", d, slug(title))
	case 1:
		return fmt.Sprintf("%s/p/%d/%s", d, 100000+n, slug(title))
	}
	return fmt.Sprintf("%s/en/product/%s.html?variant=%d", d, slug(title), 4000+n)
}

// searchURL is an address that is not the product page itself: the result
// must be matched by its title.
func searchURL(domain, title string) string {
	return "https://" + domain + "/search?q=" + url.QueryEscape(title)
}

func urlVariant(r *rand.Rand, raw string) string {
	u, _ := url.Parse(raw)
	q := u.Query()
	for range 1 + r.IntN(3) {
		switch r.IntN(9) {
		case 0:
			q.Set("utm_source", pick(r, []string{"google", "newsletter", "facebook"}))
			q.Set("utm_medium", "cpc")
		case 1:
			q.Set("gclid", "Cj0KCQiA"+fmt.Sprint(r.IntN(1e6)))
		case 2:
			q.Set("fbclid", "IwAR"+fmt.Sprint(r.IntN(1e6)))
		case 3:
			u.Host = strings.Replace(u.Host, "www.", "m.", 1)
		case 4:
			u.Host = strings.TrimPrefix(u.Host, "www.")
		case 5:
			u.Path += "/"
		case 6:
			u.Fragment = pick(r, []string{"reviews", "specs", "top"})
		case 7:
			u.Scheme = "http"
		case 8:
			u.Host = strings.ToUpper(u.Host)
		}
	}
	u.RawQuery = q.Encode()
	if r.IntN(2) == 0 && len(q) > 1 { // parameters in another order
		parts := strings.Split(u.RawQuery, "&")
		slices.Reverse(parts)
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

// titleVariant writes a title the way a search engine or another page
// shows it: the same product, told differently.
func titleVariant(r *rand.Rand, title, shopName string, it item) string {
	t := title
	for range 1 + r.IntN(3) {
		switch r.IntN(10) {
		case 9: // the maker left out, as many shops and results do
			if it.maker != "" {
				t = strings.TrimSpace(strings.NewReplacer(" by "+it.maker, "", it.maker+" ", "").Replace(t))
			}
		case 0:
			t = t + pick(r, []string{" | ", " - ", " – ", " :: "}) + shopName
		case 1:
			t = strings.ToLower(t)
		case 2:
			t = strings.ToUpper(t)
		case 3: // words in another order
			w := strings.Fields(t)
			if len(w) > 3 {
				i := r.IntN(len(w) - 1)
				w[i], w[i+1] = w[i+1], w[i]
			}
			t = strings.Join(w, " ")
		case 4: // punctuation
			t = strings.NewReplacer(" - ", ", ", "(", "", ")", "", ",", " ").Replace(t)
		case 5: // a typo in a long word
			w := strings.Fields(t)
			for tries := 0; tries < 5; tries++ {
				i := r.IntN(len(w))
				if len(w[i]) >= 7 && !strings.ContainsAny(w[i], "0123456789") {
					b := []byte(w[i])
					j := 1 + r.IntN(len(b)-3)
					b[j], b[j+1] = b[j+1], b[j]
					w[i] = string(b)
					break
				}
			}
			t = strings.Join(w, " ")
		case 6: // "128GB" written "128 GB"
			t = spaceUnits(t)
		case 7: // the maker named twice, or first
			if it.maker != "" && !strings.HasPrefix(t, it.maker) {
				t = it.maker + " " + t
			}
		case 8:
			t = t + pick(r, []string{" - Buy Online", " | Free Delivery", " – Best Price", " | Official Store"})
		}
	}
	return t
}

func spaceUnits(t string) string {
	var b strings.Builder
	prevDigit := false
	for _, c := range t {
		if prevDigit && unicode.IsLetter(c) {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
		prevDigit = unicode.IsDigit(c)
	}
	return b.String()
}

// nearMiss names something the shop does not sell that reads almost like
// one of its products: an accessory of it, or another model or size.
func nearMiss(r *rand.Rand, s *shop, universe []item, i int) (Query, bool) {
	it := universe[i]
	if it.kind == "" {
		return Query{}, false // an accessory already
	}
	switch r.IntN(3) {
	case 0: // an accessory for it that the shop does not sell
		tmpl := pick(r, accessoryTemplates)
		name := fmt.Sprintf(tmpl, it.line)
		for j := range s.items {
			if universe[j].kind == "" && strings.Contains(universe[j].line, it.line) && strings.Contains(tmpl, strings.Fields(universe[j].line)[0]) {
				return Query{}, false
			}
		}
		return Query{Kind: "near_miss", Title: titleStyles[s.style](item{maker: it.maker, line: name, color: it.color})}, true
	default: // a sibling the shop does not sell: another model, size or color
		for _, j := range r.Perm(len(universe)) {
			o := universe[j]
			if s.items[j] || o.maker != it.maker || o.kind != it.kind || o.kind == "" || j == i {
				continue
			}
			return Query{Kind: "near_miss", Title: titleStyles[s.style](o)}, true
		}
	}
	return Query{}, false
}

// Large makes a catalog of brands × perBrand products for benchmarks: the
// fixture's product lines, made distinct by series names and years, so that
// titles stay real-looking and the vocabulary grows as a real one does.
func Large(seed uint64, brands, perBrand int) ([]Brand, []Product) {
	r := rand.New(rand.NewPCG(seed, seed^0x1a26e))
	var universe []item
	for _, l := range lines {
		universe = append(universe, l.items(r)...)
	}
	series := []string{"", "Pro", "Max", "Lite", "Plus", "Edition", "Sport", "Classic", "Signature", "Studio", "Air", "Mini", "Ultra", "SE", "Neo", "Prime"}
	out := make([]Product, 0, brands*perBrand)
	bs := make([]Brand, brands)
	for b := range bs {
		name := fmt.Sprintf("%s %s %d", shopWords[0][b%len(shopWords[0])], shopWords[1][b%len(shopWords[1])], b)
		bs[b] = Brand{ID: fmt.Sprintf("br_%04d", b), Name: name, Domains: []string{slug(name) + "." + tlds[b%len(tlds)]}}
		style := r.IntN(len(titleStyles))
		for n := range perBrand {
			it := universe[r.IntN(len(universe))]
			it.line = join(it.line, series[r.IntN(len(series))], fmt.Sprint(2015+r.IntN(12)))
			title := titleStyles[style](it)
			out = append(out, Product{BrandID: bs[b].ID, ProductID: fmt.Sprintf("p%07d", n), Title: title,
				URL: fmt.Sprintf("https://www.%s/p/%d/%s", bs[b].Domains[0], n, slug(title)), SKU: it.sku})
		}
	}
	return bs, out
}
