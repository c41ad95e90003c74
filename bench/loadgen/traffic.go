package main

import (
	"math/rand/v2"
	"strconv"
)

// Endpoint is one of the API calls the traffic is made of.
type Endpoint int

// The endpoints, in the order reports list them.
const (
	View Endpoint = iota
	Purchase
	Proof
	Batch       // Catalog.BatchEvents views and purchases in one keyed request
	SignedProof // a proof read that asks for the signature (Accept-Signature), as svc verify does
	numEndpoints
)

func (e Endpoint) String() string {
	return [...]string{"product-view", "product-purchase", "product-proof", "batch", "product-proof-signed"}[e]
}

// Path is the endpoint's URL path.
func (e Endpoint) Path() string {
	return [...]string{"/api/collect/product-view", "/api/collect/product-purchase", "/api/svc/product-proof", "/api/collect/batch", "/api/svc/product-proof"}[e]
}

// Mix is the share of each endpoint in the traffic, in percent of requests.
type Mix [numEndpoints]float64

// The traffic of bench/RESULTS.md, Method: 80% views, 2% purchases, 18% proof
// reads.
var (
	FullMix    = Mix{View: 80, Purchase: 2, Proof: 18}
	CollectMix = Mix{View: 80, Purchase: 2} // the same writes, without the reads
	ProofMix   = Mix{Proof: 100}
	// SignedProofMix is ProofMix asking for signatures: the widget's reads
	// do not ask, the extension's and svc verify's do.
	SignedProofMix = Mix{SignedProof: 100}
	BatchMix       = Mix{Batch: 100} // each request carries CollectMix's events
)

// Endpoints lists the endpoints the mix sends to.
func (m Mix) Endpoints() []Endpoint {
	var es []Endpoint
	for e := Endpoint(0); e < numEndpoints; e++ {
		if m[e] > 0 {
			es = append(es, e)
		}
	}
	return es
}

// Writes reports whether the mix sends events.
func (m Mix) Writes() bool { return m[View] > 0 || m[Purchase] > 0 || m[Batch] > 0 }

// pick draws an endpoint with the mix's weights from u, uniform in [0,1).
func (m Mix) pick(u float64) Endpoint {
	total := m[View] + m[Purchase] + m[Proof] + m[Batch] + m[SignedProof]
	x := u * total
	for e := Endpoint(0); e < numEndpoints; e++ {
		if x < m[e] {
			return e
		}
		x -= m[e]
	}
	return Proof // rounding at the top end
}

// Brand is what the traffic needs of a brand: its id, a key, and the domain
// its pages live on (anonymous requests come from there).
type Brand struct {
	ID     string `json:"brand_id"`
	APIKey string `json:"api_key"`
	Domain string `json:"domain"`
}

// Catalog is the products the traffic is about: product rank r is product
// "p<r>" of brand r % len(Brands), so every brand has popular products and
// a long tail.
type Catalog struct {
	Brands   []Brand
	Products int     // over all brands
	ZipfS    float64 // Zipf exponent (> 1); popularity of rank r ~ 1/(1+r)^s
	Sessions int     // distinct shopper sessions
	Keyed    float64 // share of requests sent with the brand's key, 0 to 1
	// BatchEvents is how many events a batch request carries (keyed
	// always: the batch endpoint is for brands' servers).
	BatchEvents int
}

// BrowserUA is the User-Agent of anonymous requests: unknown agents are
// bots, whose events svc answers but does not count.
const BrowserUA = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"

// Request is one generated request.
type Request struct {
	Endpoint Endpoint
	Method   string
	Target   string // path and query
	Body     []byte // nil for a GET
	Key      string // the API key header, or empty for an anonymous request
	Origin   string // the Origin header of an anonymous request
}

// Generator draws requests; one per worker, as it is not safe for
// concurrent use.
type Generator struct {
	cat   *Catalog
	mix   Mix
	rng   *rand.Rand
	zipf  *rand.Zipf
	tag   string // makes order ids unique to this generator and run
	order int
	buf   []byte
	batch []byte
}

// NewGenerator returns a generator seeded with seed; tag must differ between
// the generators of one store, since order ids are built from it.
func NewGenerator(cat *Catalog, mix Mix, seed uint64, tag string) *Generator {
	r := rand.New(rand.NewPCG(seed, 0x5bd1e995))
	return &Generator{cat: cat, mix: mix, rng: r, zipf: rand.NewZipf(r, cat.ZipfS, 1, uint64(cat.Products-1)), tag: tag}
}

// product draws a product rank by popularity.
func (g *Generator) product() int { return int(g.zipf.Uint64()) }

func (g *Generator) brandOf(rank int) *Brand { return &g.cat.Brands[rank%len(g.cat.Brands)] }

// Next draws the next request. Its Body is valid until the next call.
func (g *Generator) Next() Request {
	e := g.mix.pick(g.rng.Float64())
	rank := g.product()
	b := g.brandOf(rank)
	req := Request{Endpoint: e, Method: "POST", Target: e.Path()}
	if g.rng.Float64() < g.cat.Keyed {
		req.Key = b.APIKey
	} else if b.Domain != "" {
		req.Origin = "https://" + b.Domain
	}
	switch e {
	case View:
		req.Body = g.viewBody(b, rank)
	case Purchase:
		req.Body = g.purchaseBody(b, rank)
	case Proof, SignedProof:
		req.Method, req.Body = "GET", nil
		req.Target = e.Path() + "?brand_id=" + b.ID + "&product_id=p" + strconv.Itoa(rank)
	case Batch:
		req.Key, req.Origin = b.APIKey, ""
		req.Body = g.batchBody(b, rank)
	}
	return req
}

// batchBody is a batch of brand b: its first event is about product rank,
// the others about the brand's products drawn by popularity, each a view
// or a purchase in CollectMix's shares, with the single endpoint's body.
func (g *Generator) batchBody(b *Brand, rank int) []byte {
	n := len(g.cat.Brands)
	s := append(g.batch[:0], `{"events":[`...)
	for i := range max(g.cat.BatchEvents, 1) {
		r := rank
		if i > 0 {
			if r = g.product()/n*n + rank%n; r >= g.cat.Products {
				r = rank
			}
		}
		if i > 0 {
			s = append(s, ',')
		}
		var body []byte
		if CollectMix.pick(g.rng.Float64()) == Purchase {
			s = append(s, `{"type":"product-purchase",`...)
			body = g.purchaseBody(b, r)
		} else {
			s = append(s, `{"type":"product-view",`...)
			body = g.viewBody(b, r)
		}
		s = append(s, body[1:]...) // the body's members after its '{'
	}
	s = append(s, "]}"...)
	g.batch = s
	return s
}

var countries = []struct{ country, locale string }{
	{"DE", "de-DE"}, {"FR", "fr-FR"}, {"GB", "en-GB"}, {"US", "en-US"}, {"ES", "es-ES"}, {"IT", "it-IT"}, {"NL", "nl-NL"},
}

func (g *Generator) session() int { return g.rng.IntN(g.cat.Sessions) }

// viewBody is a view of product rank from a page of brand b, as svc.js
// sends it.
func (g *Generator) viewBody(b *Brand, rank int) []byte {
	c := countries[g.rng.IntN(len(countries))]
	s := g.buf[:0]
	s = append(s, `{"brand_id":"`...)
	s = append(s, b.ID...)
	s = append(s, `","product":{"product_id":"p`...)
	s = strconv.AppendInt(s, int64(rank), 10)
	s = append(s, `","sku":"SKU-`...)
	s = strconv.AppendInt(s, int64(rank), 10)
	s = append(s, `","title":"Product `...)
	s = strconv.AppendInt(s, int64(rank), 10)
	s = append(s, `","url":"https://`...)
	s = append(s, b.Domain...)
	s = append(s, `/p/`...)
	s = strconv.AppendInt(s, int64(rank), 10)
	s = append(s, `"},"context":{"session_id":"s`...)
	s = strconv.AppendInt(s, int64(g.session()), 10)
	s = append(s, `","country":"`...)
	s = append(s, c.country...)
	s = append(s, `","locale":"`...)
	s = append(s, c.locale...)
	s = append(s, `"}}`...)
	g.buf = s
	return s
}

// purchaseBody is an order of 1 to 3 lines of brand b: the first is product
// rank, the others drawn by popularity among the same brand's products.
func (g *Generator) purchaseBody(b *Brand, rank int) []byte {
	g.order++
	lines := 1 + g.rng.IntN(3)
	n := len(g.cat.Brands)
	s := g.buf[:0]
	s = append(s, `{"brand_id":"`...)
	s = append(s, b.ID...)
	s = append(s, `","order":{"order_id":"o-`...)
	s = append(s, g.tag...)
	s = append(s, '-')
	s = strconv.AppendInt(s, int64(g.order), 10)
	s = append(s, `","currency":"EUR","items":[`...)
	var total int64
	for i := range lines {
		r := rank
		if i > 0 {
			// Another product of the same brand: same residue modulo n.
			r = g.product()/n*n + rank%n
			if r >= g.cat.Products {
				r = rank
			}
		}
		qty := 1 + int64(g.rng.IntN(2))
		price := 500 + int64(r%50)*100 // cents
		total += qty * price
		if i > 0 {
			s = append(s, ',')
		}
		s = append(s, `{"product_id":"p`...)
		s = strconv.AppendInt(s, int64(r), 10)
		s = append(s, `","sku":"SKU-`...)
		s = strconv.AppendInt(s, int64(r), 10)
		s = append(s, `","title":"Product `...)
		s = strconv.AppendInt(s, int64(r), 10)
		s = append(s, `","quantity":`...)
		s = strconv.AppendInt(s, qty, 10)
		s = append(s, `,"unit_price":`...)
		s = appendCents(s, price)
		s = append(s, '}')
	}
	s = append(s, `],"total_value":`...)
	s = appendCents(s, total)
	s = append(s, `},"context":{"session_id":"s`...)
	s = strconv.AppendInt(s, int64(g.session()), 10)
	s = append(s, `"}}`...)
	g.buf = s
	return s
}

func appendCents(b []byte, cents int64) []byte {
	b = strconv.AppendInt(b, cents/100, 10)
	b = append(b, '.')
	if c := cents % 100; c < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, cents%100, 10)
}
