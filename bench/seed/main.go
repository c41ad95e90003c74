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
	"net/url"
	"os"
	"path/filepath"
	"time"

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

// seed creates the store and the brands, writes the brands file, then
// bulk-loads products, views and, when asked for, orders, saying how far
// it got and when.
func seed(ctx context.Context, o options) error {
	if _, err := os.Stat(filepath.Join(o.data, sqlite.FileName)); err == nil {
		return fmt.Errorf("%s already holds a store: seed a fresh folder", o.data)
	}
	start := time.Now()
	now := start.UTC()
	brands, err := createBrands(ctx, o.data, o.brands, now)
	if err != nil {
		return err
	}
	if err := writeBrandsFile(o.brandsFile, brands); err != nil {
		return err
	}
	db, err := openBulk(o.data)
	if err != nil {
		return err
	}
	defer db.Close()
	s := newSeeder(ctx, db, o, brands, start)
	if err := s.products(); err != nil {
		return err
	}
	if o.oldViews > 0 {
		if err := s.views(o.oldViews, now.Add(-o.oldFrom), now.Add(-o.oldTo)); err != nil {
			return err
		}
		fmt.Printf("%d old views, %s\n", o.oldViews, s.elapsed())
	}
	if err := s.views(o.views, now.Add(-o.span), now); err != nil {
		return err
	}
	fmt.Printf("%d views, %s\n", o.views, s.elapsed())
	if o.purchases > 0 {
		if err := s.purchases(); err != nil {
			return err
		}
		fmt.Printf("%d orders, %s\n", o.purchases, s.elapsed())
	}
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return err
	}
	fmt.Printf("seeded %s in %s; brands in %s\n", o.data, s.elapsed(), o.brandsFile)
	return nil
}

// createBrands opens a new store in data, which creates its schema, and
// creates n brands in it through the store itself, each with an API key
// and the domain b<i>.bench.test.
func createBrands(ctx context.Context, data string, n int, now time.Time) ([]brandOut, error) {
	store, err := sqlite.Open(ctx, data)
	if err != nil {
		return nil, err
	}
	brands := make([]brandOut, n)
	for i := range brands {
		domain := fmt.Sprintf("b%d.bench.test", i)
		b := &svc.Brand{ID: svc.NewBrandID(), Name: fmt.Sprintf("Bench %d", i), Domains: []string{domain},
			MinViewers: svc.DefaultMinViewers, MinPurchases: svc.DefaultMinPurchases, CreatedAt: now}
		secret, key := svc.NewAPIKey(b.ID, now)
		if err := store.CreateBrand(ctx, b, key); err != nil {
			store.Close()
			return nil, err
		}
		brands[i] = brandOut{b.ID, secret, domain}
	}
	return brands, store.Close()
}

// writeBrandsFile writes the brands as the load generator reads them.
func writeBrandsFile(file string, brands []brandOut) error {
	out, err := json.MarshalIndent(brands, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, out, 0o600)
}

// openBulk opens the store's file in data for bulk loading: no fsync, a
// large cache, no foreign key checks, one connection.
func openBulk(data string) (*sql.DB, error) {
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(OFF)", "cache_size(-262144)", "foreign_keys(0)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, sqlite.FileName)+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

func millis(t time.Time) int64 { return t.UnixMilli() }
