package dashboard_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/dashboard"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/tracker"
)

// rollupsOnly is the store as the figures see it: its rollups, counted.
// insights.Source has no method that reads events, so the figures cannot.
type rollupsOnly struct {
	*sqlite.Store
	hours atomic.Int64
}

func (r *rollupsOnly) RollupHours(ctx context.Context, brandID, productID string, from, to time.Time, fn func(rollup.Row) error) error {
	r.hours.Add(1)
	return r.Store.RollupHours(ctx, brandID, productID, from, to, fn)
}

func (r *rollupsOnly) RollupHourSums(ctx context.Context, brandID, productID string, from, to time.Time, fn func(rollup.Row) error) error {
	r.hours.Add(1)
	return r.Store.RollupHourSums(ctx, brandID, productID, from, to, fn)
}

var _ insights.Source = (*rollupsOnly)(nil)

// seeded is a server over a store with one brand of many products and
// views over 30 days, written through the store's Append as collect does.
type seeded struct {
	f     *fixture
	src   *rollupsOnly
	ins   *insights.Cache
	views int // in the last 30 days, to the hour
}

func newSeeded(tb testing.TB, products, views, orders int) *seeded {
	tb.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, sqlitetest.Dir(tb))
	if err != nil {
		tb.Fatal(err)
	}
	now := t0.Add(30 * time.Minute)
	b := &svc.Brand{ID: "br_big", Name: "Big", Domains: []string{"big.example"}, MinViewers: 3, MinPurchases: 1, CreatedAt: t0}
	secret, k := svc.NewAPIKey(b.ID, t0)
	if err := store.CreateBrand(ctx, b, k); err != nil {
		tb.Fatal(err)
	}
	s := &seeded{}
	span := 30 * 24 * time.Hour
	var batch []*svc.Write
	flush := func() {
		if err := store.Append(ctx, batch); err != nil {
			tb.Fatal(err)
		}
		batch = batch[:0]
	}
	for i := range views {
		at := now.Add(-span / time.Duration(views) * time.Duration(i))
		v := &svc.ViewEvent{BrandID: b.ID, Product: svc.ViewProduct{ProductID: fmt.Sprintf("p%d", (i*7919)%products), Title: ptr(fmt.Sprintf("Product %d", (i*7919)%products))},
			Context: svc.ViewContext{SessionID: ptr(fmt.Sprintf("s%d", i%(views/3+1)))}}
		v.Meta = svc.EventMeta{EventID: fmt.Sprintf("v%d", i), Time: at, ReceivedAt: at, Keyed: true, Arm: holdout.ArmShown}
		batch = append(batch, &svc.Write{View: v, MayRegister: true})
		if !at.Before(insights.End(now).Add(-span)) {
			s.views++
		}
		if len(batch) == 500 {
			flush()
		}
	}
	for i := range orders {
		at := now.Add(-span / time.Duration(orders) * time.Duration(i))
		o := &svc.PurchaseEvent{BrandID: b.ID, Order: svc.Order{OrderID: fmt.Sprintf("o%d", i), Currency: ptr("EUR"),
			Items: []svc.PurchaseItem{{ProductID: fmt.Sprintf("p%d", i%products), Quantity: ptr[int64](1), UnitPrice: ptr(9.5)}}}}
		o.Meta = svc.EventMeta{EventID: fmt.Sprintf("o%d", i), Time: at, ReceivedAt: at, Keyed: true}
		batch = append(batch, &svc.Write{Purchase: o, MayRegister: true})
		if len(batch) == 500 {
			flush()
		}
	}
	flush()

	f := &fixture{t: nil, clock: &clock{now: now}, store: store, keys: map[string]string{b.ID: secret}, log: &syncBuffer{}}
	log := slog.New(slog.DiscardHandler)
	a, err := auth.Open(ctx, store, 0, log)
	if err != nil {
		tb.Fatal(err)
	}
	catalog := enrich.NewCatalog()
	tr, err := tracker.Open(ctx, store, tracker.Config{Catalog: catalog, Now: f.clock.Now, Logger: log})
	if err != nil {
		tb.Fatal(err)
	}
	s.src = &rollupsOnly{Store: store}
	s.ins = &insights.Cache{Store: s.src, Now: f.clock.Now} // no TTL: every request computes
	dash, err := dashboard.New(dashboard.Config{Store: store, Brands: a, Tracker: tr, Insights: s.ins, Log: log, Now: f.clock.Now})
	if err != nil {
		tb.Fatal(err)
	}
	f.srv = httptest.NewServer(httpapi.New(tr, a, log, httpapi.Options{Catalog: catalog, Insights: s.ins, Dashboard: dash}).Handler())
	tb.Cleanup(func() { f.srv.Close(); tr.Close(); a.Close(); store.Close() })
	s.f = f
	return s
}

// TestSeededPagesFromRollups checks that every page, range and download of
// a seeded brand reads its figures from the rollups. It seeds a tenth of
// BenchmarkSeededOverview's brand, which times the overview: what it
// asserts holds at any size, and seeding through SQLite under the race
// detector took most of the package's time.
func TestSeededPagesFromRollups(t *testing.T) {
	t.Parallel()
	s := newSeeded(t, 200, 3000, 100)
	s.f.t = t
	b := s.f.signIn("br_big")
	p := b.get("/dashboard/brands/br_big/")
	if p.status != 200 || s.src.hours.Load() == 0 {
		t.Fatalf("overview %d, %d reads of the rollups", p.status, s.src.hours.Load())
	}
	// The last 30 days' views are the seeded ones: the rollups hold them all.
	p30 := b.get("/dashboard/brands/br_big/?range=30d")
	if want := fmt.Sprintf("<th scope=\"row\">Views</th><td>%s</td>", group(s.views)); !strings.Contains(p30.body, want) {
		i := strings.Index(p30.body, "Totals")
		t.Errorf("overview lacks %q: %s", want, p30.body[i:min(len(p30.body), i+400)])
	}
	if !strings.Contains(p.body, "within ±0.8%") {
		t.Error("the overview does not state the viewers' error")
	}
	for _, path := range []string{"products/p0", "settings"} {
		if p := b.get("/dashboard/brands/br_big/" + path); p.status != 200 || path == "products/p0" && !strings.Contains(p.body, "within ±0.8%") {
			t.Errorf("%s: %d, or no error stated", path, p.status)
		}
	}
	// Every range and download reads the rollups too: a range's totals
	// are read for it, never from the events.
	custom := "range=custom&from=" + t0.Add(-20*24*time.Hour).Format(time.DateOnly) + "&to=" + t0.Add(-11*24*time.Hour).Format(time.DateOnly)
	for _, path := range []string{"?range=today", "?" + custom, "realtime", "csv/totals?" + custom, "csv/chart?range=30d",
		"csv/countries?range=7d", "csv/widget?range=today", "csv/products"} {
		before := s.src.hours.Load()
		if p := b.get("/dashboard/brands/br_big/" + path); p.status != 200 {
			t.Errorf("%s: %d", path, p.status)
		}
		if strings.Contains(path, "custom") && s.src.hours.Load() == before {
			t.Errorf("%s: the range's totals were not read from the rollups", path)
		}
	}
}

// group writes n as the dashboard does, with thousands separated.
func group(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// BenchmarkSeededOverview times the overview and the products' CSV of a
// brand of 2,000 products, every request a reading (-benchmem: what a
// reading allocates): go test ./internal/dashboard -run '^$' -bench Seeded -benchmem
func BenchmarkSeededOverview(b *testing.B) {
	s := newSeeded(b, 2000, 30000, 1000)
	s.f.t = b
	br := s.f.signIn("br_big")
	for _, path := range []string{"", "csv/products"} {
		b.Run("page="+path, func(b *testing.B) {
			for b.Loop() {
				if p := br.get("/dashboard/brands/br_big/" + path); p.status != 200 {
					b.Fatal(p.status)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
