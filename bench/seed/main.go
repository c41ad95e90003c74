// Command seed fills a fresh svc data folder with many products and events,
// fast, for the figures of bench/RESULTS.md that need a large store: memory
// with 20 million events, the time a restart takes to be ready, and proof
// latency with 1 versus 50 million stored events.
//
// It creates the schema and the brands through the store itself, so both
// are exactly what svc serve expects, then bulk-inserts products and events
// in large transactions without fsync (a seed that fails is started over).
// Product rank r is product "p<r>" of brand r % brands, as the load
// generator addresses them, and events fall on products by the same Zipf
// popularity. It writes the brands file the load generator reads.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
)

type options struct {
	data       string
	brandsFile string
	brands     int
	products   int
	views      int
	purchases  int
	span       time.Duration
	oldViews   int
	oldFrom    time.Duration
	oldTo      time.Duration
	sessions   int
	zipfS      float64
}

func main() {
	var o options
	flag.StringVar(&o.data, "data", "", "a data folder that does not exist yet (required)")
	flag.StringVar(&o.brandsFile, "brands-file", "", "where to write the brands, keys and domains for the load generator (required)")
	flag.IntVar(&o.brands, "brands", 100, "brands")
	flag.IntVar(&o.products, "products", 1_000_000, "products over all brands")
	flag.IntVar(&o.views, "views", 20_000_000, "views spread evenly over the last -span")
	flag.IntVar(&o.purchases, "purchases", 0, "orders of 1 to 3 lines spread evenly over the last -span")
	flag.DurationVar(&o.span, "span", 24*time.Hour, "how far back the recent events go")
	flag.IntVar(&o.oldViews, "old-views", 0, "more views between -old-from and -old-to ago: stored, but outside every window")
	flag.DurationVar(&o.oldFrom, "old-from", 30*24*time.Hour, "the oldest of the old views (within the 35-day retention)")
	flag.DurationVar(&o.oldTo, "old-to", 8*24*time.Hour, "the newest of the old views (outside the 7-day view horizon)")
	flag.IntVar(&o.sessions, "sessions", 5_000_000, "distinct shopper sessions")
	flag.Float64Var(&o.zipfS, "zipf", 1.1, "Zipf exponent of product popularity (> 1)")
	flag.Parse()
	if o.data == "" || o.brandsFile == "" || o.brands < 1 || o.products < 2 || o.sessions < 1 || o.zipfS <= 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := seed(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

type brandOut struct {
	ID     string `json:"brand_id"`
	APIKey string `json:"api_key"`
	Domain string `json:"domain"`
}

func seed(ctx context.Context, o options) error {
	if _, err := os.Stat(filepath.Join(o.data, sqlite.FileName)); err == nil {
		return fmt.Errorf("%s already holds a store: seed a fresh folder", o.data)
	}
	start := time.Now()
	now := start.UTC()
	store, err := sqlite.Open(ctx, o.data)
	if err != nil {
		return err
	}
	brands := make([]brandOut, o.brands)
	for i := range brands {
		domain := fmt.Sprintf("b%d.bench.test", i)
		b := &svc.Brand{ID: svc.NewBrandID(), Name: fmt.Sprintf("Bench %d", i), Domains: []string{domain},
			MinViewers: svc.DefaultMinViewers, MinPurchases: svc.DefaultMinPurchases, CreatedAt: now}
		secret, key := svc.NewAPIKey(b.ID, now)
		if err := store.CreateBrand(ctx, b, key); err != nil {
			store.Close()
			return err
		}
		brands[i] = brandOut{b.ID, secret, domain}
	}
	if err := store.Close(); err != nil {
		return err
	}
	out, err := json.MarshalIndent(brands, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.brandsFile, out, 0o600); err != nil {
		return err
	}

	// The same file, opened for bulk loading: no fsync, a large cache.
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(OFF)", "cache_size(-262144)", "foreign_keys(0)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(o.data, sqlite.FileName)+"?"+q.Encode())
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	l := &loader{db: db, ctx: ctx}

	// Products: ids 1..n in rank order, so product rank r has id r+1.
	l.begin(`INSERT INTO products (id, brand_id, product_id, sku, title, url, created_at, updated_at) VALUES `, 8)
	for r := range o.products {
		b := brands[r%len(brands)]
		id := strconv.Itoa(r)
		l.row(r+1, b.ID, "p"+id, "SKU-"+id, "Product "+id, "https://"+b.Domain+"/p/"+id, millis(now), millis(now))
	}
	if err := l.end(); err != nil {
		return err
	}
	fmt.Printf("%d products in %s\n", o.products, time.Since(start).Round(time.Second))

	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, o.zipfS, 1, uint64(o.products-1))
	countries := []string{"DE", "FR", "GB", "US", "ES", "IT", "NL"}
	locales := []string{"de-DE", "fr-FR", "en-GB", "en-US", "es-ES", "it-IT", "nl-NL"}
	views := func(n int, from, to time.Time) error {
		l.begin(`INSERT INTO view_events (event_id, product, ts, received_at, session_id, country, locale, keyed) VALUES `, 8)
		step := to.Sub(from) / time.Duration(max(n, 1))
		for i := range n {
			ts := millis(from.Add(time.Duration(i) * step))
			c := rng.IntN(len(countries))
			l.row(uuid.Must(uuid.NewV7()).String(), int(zipf.Uint64())+1, ts, ts, "s"+strconv.Itoa(rng.IntN(o.sessions)),
				countries[c], locales[c], 0)
			if i > 0 && i%5_000_000 == 0 {
				fmt.Printf("  %d views, %s\n", i, time.Since(start).Round(time.Second))
			}
		}
		return l.end()
	}
	if o.oldViews > 0 {
		if err := views(o.oldViews, now.Add(-o.oldFrom), now.Add(-o.oldTo)); err != nil {
			return err
		}
		fmt.Printf("%d old views, %s\n", o.oldViews, time.Since(start).Round(time.Second))
	}
	if err := views(o.views, now.Add(-o.span), now); err != nil {
		return err
	}
	fmt.Printf("%d views, %s\n", o.views, time.Since(start).Round(time.Second))

	if o.purchases > 0 {
		step := o.span / time.Duration(o.purchases)
		l.begin(`INSERT INTO purchase_events (id, event_id, brand_id, order_id, ts, received_at, session_id, currency, total_value, keyed) VALUES `, 10)
		type item struct{ order, line, rank int }
		var items []item // inserted after the orders: one connection, one transaction at a time
		for i := range o.purchases {
			ts := millis(now.Add(-o.span + time.Duration(i)*step))
			rank := int(zipf.Uint64())
			b := brands[rank%len(brands)]
			l.row(i+1, uuid.Must(uuid.NewV7()).String(), b.ID, "seed-"+strconv.Itoa(i), ts, ts, "s"+strconv.Itoa(rng.IntN(o.sessions)), "EUR", 10.0, 1)
			for line := range 1 + rng.IntN(3) {
				r := rank
				if line > 0 {
					r = int(zipf.Uint64())/len(brands)*len(brands) + rank%len(brands)
					if r >= o.products {
						r = rank
					}
				}
				items = append(items, item{i + 1, line, r})
			}
		}
		if err := l.end(); err != nil {
			return err
		}
		l.begin(`INSERT INTO purchase_items (purchase, line, product, sku, title, quantity, unit_price) VALUES `, 7)
		for _, it := range items {
			l.row(it.order, it.line, it.rank+1, "SKU-"+strconv.Itoa(it.rank), "Product "+strconv.Itoa(it.rank), 1, 10.0)
		}
		if err := l.end(); err != nil {
			return err
		}
		fmt.Printf("%d orders, %s\n", o.purchases, time.Since(start).Round(time.Second))
	}
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return err
	}
	fmt.Printf("seeded %s in %s; brands in %s\n", o.data, time.Since(start).Round(time.Second), o.brandsFile)
	return nil
}

func millis(t time.Time) int64 { return t.UnixMilli() }
