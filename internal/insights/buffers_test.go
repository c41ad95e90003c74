package insights

import (
	"context"
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/window"
)

// bigBrand is a store whose brand br_1 has n products, each with a
// title, and 80,000 sessions that bought, of three revenues: what a
// reading of a large brand allocates, without seeding one.
type bigBrand struct {
	*counted
	n int
}

func (b *bigBrand) BrandProductsKey(context.Context, string) (rollup.ProductsKey, error) {
	return rollup.ProductsKey{Products: int64(b.n)}, nil
}

func (b *bigBrand) BrandProductIDs(_ context.Context, _ string, after int64, fn func(ref int64, productID string)) error {
	for ref := after + 1; ref <= int64(b.n); ref++ {
		fn(ref, fmt.Sprintf("p%07d", ref))
	}
	return nil
}

func (b *bigBrand) BrandTitles(_ context.Context, _ string, after rollup.TitlesMark, fn func(ref int64, title string)) (rollup.TitlesMark, bool, error) {
	next := rollup.TitlesMark{Changes: "1"}
	if after == next {
		return next, false, nil // none written since
	}
	for ref := 1; ref <= b.n; ref++ {
		fn(int64(ref), fmt.Sprint("Title ", ref))
	}
	return next, true, nil
}

// RollupArmRevenues: no session held out, so that the experiment has no
// interval to draw (its bootstrap draws every session 1,000 times).
func (b *bigBrand) RollupArmRevenues(_ context.Context, _ string, sessions func(arm string, n int64), revenue func(arm string, value float64, n, saw int64) error) error {
	sessions(holdout.ArmShown, 900_000)
	for _, r := range []struct {
		v       float64
		n, seen int64
	}{{20, 40_000, 30_000}, {10, 30_000, 0}, {30, 8_000, 10}, {20, 2_000, 10}} {
		if err := revenue(holdout.ArmShown, r.v, r.n, r.seen); err != nil {
			return err
		}
	}
	return nil
}

// countsByRef is a window engine with counts for every product.
type countsByRef struct{}

func (countsByRef) CountsOf(ref svc.ProductRef, _ time.Time, ws []window.Windows, out []window.Counts) {
	for i := range ws {
		out[i] = window.Counts{Views: int64(ref%97) + 1, Viewers: int64(ref % 5), Purchases: int64(ref % 3)}
	}
}

// readPages reads f as the overview and the products' CSV do: the
// rankings, the real-time panel, every product by its order, and the
// experiment.
func readPages(t testing.TB, f *Figures, live Live) (top string, rows int) {
	ctx := context.Background()
	first, _, err := f.Ranking(ctx, live, 10)
	if err != nil || len(first) == 0 {
		t.Fatalf("no top product: %v", err)
	}
	top = first[0].ProductID
	if err := f.EachLive(ctx, live, f.At, func(string, LiveCounts) {}); err != nil {
		t.Fatal(err)
	}
	err = f.EachTop(ctx, live, func(r *ProductRow) bool {
		if r.Title == "" {
			t.Fatalf("%s has no title", r.ProductID)
		}
		rows++
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Experiment(ctx, 10); err != nil {
		t.Fatal(err)
	}
	return top, rows
}

// A reading released gives its buffers to the next: the products' counts
// and their order, which were 92 bytes a product a reading (and a value
// per buying session in the arms, 8 bytes each as the lists grew). Not
// parallel: it counts the bytes the process allocates.
func TestReadingsReuseTheirBuffers(t *testing.T) {
	const n = 50_000
	src := &bigBrand{counted: openCounted(t), n: n}
	c := &Cache{Store: src, Now: func() time.Time { return now }} // TTL 0: a reading per request
	read := func() {
		f, err := c.Brand(context.Background(), "br_1")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Release()
		if _, rows := readPages(t, f, countsByRef{}); rows != n {
			t.Fatalf("%d rows, want %d", rows, n)
		}
	}
	read() // the brand's ids and titles are kept across readings
	allocated := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	// The least of several readings: under the race detector, a sync.Pool
	// drops a quarter of what it is given. Without collections meanwhile,
	// which would empty the pool.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	least := uint64(1 << 62)
	for range 12 {
		before := allocated()
		read()
		least = min(least, allocated()-before)
	}
	if perProduct := float64(least) / n; perProduct > 8 {
		t.Errorf("a reading allocated %d bytes, %.1f a product: its buffers were not reused", least, perProduct)
	} else {
		t.Logf("a reading allocated %d bytes, %.1f a product", least, perProduct)
	}
}

// A reading's buffers are reused only once no one holds it: a request
// still holding its figures keeps their counts while other readings are
// made and released, whether the cache dropped them (TTL 0, or past it)
// or still keeps them.
func TestHeldReadingsKeepTheirCounts(t *testing.T) {
	t.Parallel()
	for _, ttl := range []time.Duration{0, time.Minute} {
		src := &bigBrand{counted: openCounted(t), n: 2000}
		clock := now
		c := &Cache{Store: src, Now: func() time.Time { return clock }, TTL: ttl}
		ctx := context.Background()
		brand := func() *Figures {
			f, err := c.Brand(ctx, "br_1")
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		first := brand()
		readPages(t, first, live)
		var held *Figures // the reading before, held by a request
		for i := range 10 {
			clock = clock.Add(2 * time.Minute) // past the TTL: another reading, with another top product
			f, again := brand(), brand()       // a new reading, then the same (TTL 0: another)
			if top, _ := readPages(t, f, live); top != live.top(f.At) {
				t.Fatalf("TTL %s, reading %d: top product %s, want %s", ttl, i, top, live.top(f.At))
			}
			f.Release()
			if held != nil {
				if top, _ := readPages(t, held, live); top != live.top(held.At) {
					t.Errorf("TTL %s, reading %d: the one before, held, gives %s, want %s", ttl, i, top, live.top(held.At))
				}
				held.Release()
			}
			held = again
		}
		held.Release()
		if top, _ := readPages(t, first, live); top != live.top(first.At) {
			t.Errorf("TTL %s: the first reading, held throughout: top product %s, want %s", ttl, top, live.top(first.At))
		}
		first.Release()
	}
}

// live is a window engine whose counts depend on the time: at each
// minute, another product has the most views.
var live liveAt

type liveAt struct{}

func (l liveAt) CountsOf(ref svc.ProductRef, now time.Time, ws []window.Windows, out []window.Counts) {
	views := int64(1)
	if ref == l.topRef(now) {
		views = 1000
	}
	for i := range ws {
		out[i] = window.Counts{Views: views}
	}
}

func (liveAt) topRef(now time.Time) svc.ProductRef {
	return svc.ProductRef(1 + now.Unix()/60%1999)
}

func (l liveAt) top(now time.Time) string { return fmt.Sprintf("p%07d", l.topRef(now)) }
