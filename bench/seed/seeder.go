package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/svc-project/svc/internal/viewblock"
)

// A seeder bulk-loads the rows of one seed: products, then views, then
// orders and their lines. Its random numbers come from one fixed seed, in
// the order of the rows, so a seed with the same options holds the same
// rows.
type seeder struct {
	o      options
	brands []brandOut
	start  time.Time // when the seed began, for its progress lines
	now    time.Time // the time the events lead up to
	l      *loader
	rng    *rand.Rand
	zipf   *rand.Zipf // product ranks 0 to o.products-1 by popularity
	viewID int64      // the last view's id
}

var (
	countries = []string{"DE", "FR", "GB", "US", "ES", "IT", "NL"}
	locales   = []string{"de-DE", "fr-FR", "en-GB", "en-US", "es-ES", "it-IT", "nl-NL"} // one per country
)

func newSeeder(ctx context.Context, db *sql.DB, o options, brands []brandOut, start time.Time) *seeder {
	rng := rand.New(rand.NewPCG(1, 2))
	return &seeder{
		o:      o,
		brands: brands,
		start:  start,
		now:    start.UTC(),
		l:      &loader{db: db, ctx: ctx},
		rng:    rng,
		zipf:   rand.NewZipf(rng, o.zipfS, 1, uint64(o.products-1)),
	}
}

// elapsed is the time since the seed began, in whole seconds.
func (s *seeder) elapsed() time.Duration { return time.Since(s.start).Round(time.Second) }

// products inserts the products: ids 1..n in rank order, so product rank r
// has id r+1 and is product "p<r>" of brand r % brands.
func (s *seeder) products() error {
	l, now := s.l, millis(s.now)
	l.begin(`INSERT INTO products (id, brand_id, product_id, sku, title, url, created_at, updated_at) VALUES `, 8)
	for r := range s.o.products {
		b := s.brands[r%len(s.brands)]
		id := strconv.Itoa(r)
		l.row(r+1, b.ID, "p"+id, "SKU-"+id, "Product "+id, "https://"+b.Domain+"/p/"+id, now, now)
	}
	if err := l.end(); err != nil {
		return err
	}
	fmt.Printf("%d products in %s\n", s.o.products, s.elapsed())
	return nil
}

// views inserts n views spread evenly from from to to, on products by
// popularity, each of a random session and country, in blocks of
// seedBlock views as the store's commit groups keep them
// (internal/viewblock).
func (s *seeder) views(n int, from, to time.Time) error {
	l := s.l
	l.begin(`INSERT INTO view_blocks (id, last, min_ts, max_ts, n, data) VALUES `, 6)
	step := to.Sub(from) / time.Duration(max(n, 1))
	var block []viewblock.View
	flush := func() {
		if len(block) > 0 {
			first, last := block[0], block[len(block)-1]
			l.row(first.ID, last.ID, first.TS, last.TS, len(block), viewblock.Append(nil, block))
			block = block[:0]
		}
	}
	for i := range n {
		ts := millis(from.Add(time.Duration(i) * step))
		c := s.rng.IntN(len(countries))
		rank := int(s.zipf.Uint64())
		s.viewID++
		block = append(block, viewblock.View{ID: s.viewID, EventID: uuid.Must(uuid.NewV7()).String(), Brand: s.brands[rank%len(s.brands)].ID,
			Product: int64(rank + 1), TS: ts, ReceivedAt: ts, Session: s.session(), HasSession: true,
			Country: countries[c], HasCountry: true, Locale: locales[c], HasLocale: true})
		if len(block) == seedBlock {
			flush()
		}
		if i > 0 && i%5_000_000 == 0 {
			fmt.Printf("  %d views, %s\n", i, s.elapsed())
		}
	}
	flush()
	return l.end()
}

// seedBlock is the views of a seeded block: a commit group's under load.
const seedBlock = 32

// session is a random shopper session's id.
func (s *seeder) session() string { return "s" + strconv.Itoa(s.rng.IntN(s.o.sessions)) }

// An item is one line of an order: the rank of the product bought.
type item struct{ order, line, rank int }

// purchases inserts the orders, spread evenly over the last -span, then
// their lines: one connection runs one transaction at a time.
func (s *seeder) purchases() error {
	items, err := s.orders()
	if err != nil {
		return err
	}
	l := s.l
	l.begin(`INSERT INTO purchase_items (purchase, line, product, sku, title, quantity, unit_price) VALUES `, 7)
	for _, it := range items {
		l.row(it.order, it.line, it.rank+1, "SKU-"+strconv.Itoa(it.rank), "Product "+strconv.Itoa(it.rank), 1, 10.0)
	}
	return l.end()
}

// orders inserts the orders, each of the brand of its first line's product,
// and returns their 1 to 3 lines.
func (s *seeder) orders() ([]item, error) {
	l, o := s.l, s.o
	step := o.span / time.Duration(o.purchases)
	l.begin(`INSERT INTO purchase_events (id, event_id, brand_id, order_id, ts, received_at, session_id, currency, total_value, keyed) VALUES `, 10)
	var items []item
	for i := range o.purchases {
		ts := millis(s.now.Add(-o.span + time.Duration(i)*step))
		rank := int(s.zipf.Uint64())
		b := s.brands[rank%len(s.brands)]
		l.row(i+1, uuid.Must(uuid.NewV7()).String(), b.ID, "seed-"+strconv.Itoa(i), ts, ts, s.session(), "EUR", 10.0, 1)
		for line := range 1 + s.rng.IntN(3) {
			items = append(items, item{i + 1, line, s.sameBrand(rank, line)})
		}
	}
	return items, l.end()
}

// sameBrand is the rank of the product on line of an order whose first
// line is rank: a popular product of the same brand.
func (s *seeder) sameBrand(rank, line int) int {
	if line == 0 {
		return rank
	}
	n := len(s.brands)
	r := int(s.zipf.Uint64())/n*n + rank%n
	if r >= s.o.products {
		return rank
	}
	return r
}
