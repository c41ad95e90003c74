package purchasefeed

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

var rules = Rules{RecentSettings: svc.RecentSettings{Delay: 5 * time.Minute, Window: 24 * time.Hour, MaxItems: 10, K: 2}, MinPurchases: 1}

func buy(f *Feed, order string, product svc.ProductRef, d time.Duration, country, city string) {
	f.Add(svc.RecentPurchase{BrandID: "b", Order: order, Product: product, Time: t0.Add(-d), Units: 2, Country: country, City: city, Keyed: true})
}

// show describes items by their age in whole minutes, rounded up: an
// order placed at a whole minute is shown less than a minute later.
func show(items []Item) []string {
	out := []string{}
	for _, it := range items {
		age := (t0.Sub(it.Time) + time.Minute - 1).Truncate(time.Minute)
		out = append(out, fmt.Sprintf("%d %s/%s %s", it.Product, it.Country, it.City, age))
	}
	return out
}

func TestRecent(t *testing.T) {
	f := New()
	buy(f, "o1", 1, 10*time.Minute, "DE", "Berlin")
	buy(f, "o3", 1, 30*time.Minute, "DE", "Berlin") // backdated: put in its place
	buy(f, "o2", 1, 20*time.Minute, "DE", "Berlin")
	buy(f, "o2", 2, 20*time.Minute, "DE", "Berlin") // the same order: one purchase for k
	buy(f, "o4", 3, 40*time.Minute, "AT", "Wien")
	f.Add(svc.RecentPurchase{BrandID: "other", Order: "x", Product: 9, Time: t0, Country: "DE", City: "Berlin", Keyed: true})
	tests := []struct {
		name    string
		product svc.ProductRef
		rules   func(*Rules)
		want    []string
	}{
		{"all", 0, nil, []string{"1 DE/Berlin 10m0s", "2 DE/Berlin 20m0s", "1 DE/Berlin 20m0s", "1 DE/Berlin 30m0s", "3 / 40m0s"}},
		{"one product", 2, nil, []string{"2 DE/Berlin 20m0s"}},
		{"k 4: Berlin has 3 orders", 0, func(r *Rules) { r.K = 4 }, []string{"1 / 10m0s", "2 / 20m0s", "1 / 20m0s", "1 / 30m0s", "3 / 40m0s"}},
		{"two items", 0, func(r *Rules) { r.MaxItems = 2 }, []string{"1 DE/Berlin 10m0s", "2 DE/Berlin 20m0s"}},
		{"threshold 3: only product 1", 0, func(r *Rules) { r.MinPurchases = 3 }, []string{"1 DE/Berlin 10m0s", "1 DE/Berlin 20m0s", "1 DE/Berlin 30m0s"}},
		// A coarsened time shows a minute after the delay: never early.
		{"delay 18 min", 0, func(r *Rules) { r.Delay = 18 * time.Minute }, []string{"2 DE/Berlin 20m0s", "1 DE/Berlin 20m0s", "1 DE/Berlin 30m0s", "3 / 40m0s"}},
		{"delay 20 min, at the edge: not yet", 0, func(r *Rules) { r.Delay = 20 * time.Minute }, []string{"1 / 30m0s", "3 / 40m0s"}},
		{"window 30 min, at the edge: out", 0, func(r *Rules) { r.Window = 30 * time.Minute }, []string{"1 DE/Berlin 10m0s", "2 DE/Berlin 20m0s", "1 DE/Berlin 20m0s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rules
			if tt.rules != nil {
				tt.rules(&r)
			}
			if got := show(f.Recent("b", tt.product, r, t0)); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestCancelAndSweep(t *testing.T) {
	f := New()
	buy(f, "o1", 1, 10*time.Minute, "DE", "Berlin")
	buy(f, "o1", 2, 10*time.Minute, "DE", "Berlin")
	buy(f, "o2", 1, 30*time.Minute, "DE", "Berlin")
	if !f.Cancel("o1", 1, 1) {
		t.Fatal("a part of a line")
	}
	if got := show(f.Recent("b", 0, rules, t0)); len(got) != 3 {
		t.Fatalf("one of two units cancelled: the purchase stays: %v", got)
	}
	if !f.Cancel("o1", 1, 0) || f.Cancel("o1", 1, 0) || f.Cancel("nope", 2, 0) {
		t.Fatal("the whole line, once, of a known order only")
	}
	if got := show(f.Recent("b", 0, rules, t0)); !reflect.DeepEqual(got, []string{"2 DE/Berlin 10m0s", "1 DE/Berlin 30m0s"}) {
		t.Fatalf("after the cancellation: %v", got)
	}
	if !f.Cancel("o2", 1, 5) {
		t.Fatal("more units than the line has")
	}
	// Berlin now has one order: its place is withheld.
	if got := show(f.Recent("b", 0, rules, t0)); !reflect.DeepEqual(got, []string{"2 / 10m0s"}) {
		t.Fatalf("after the second: %v", got)
	}
	f.Sweep(t0)
	if len(f.brands) != 0 || len(f.orders) != 0 {
		t.Fatalf("swept: %v %v", f.brands, f.orders)
	}
}

// Reads share the count of their second while orders and cancellations
// come (run with -race); each read sees every change made before it.
func TestConcurrentReads(t *testing.T) {
	f := New()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 500 {
			o := fmt.Sprint("o", i)
			f.Add(svc.RecentPurchase{BrandID: "b", Order: o, Product: 1, Time: t0.Add(-time.Hour), Units: 1, Country: "DE", City: "Berlin", Keyed: true},
				svc.RecentPurchase{BrandID: "b", Order: o, Product: 2, Time: t0.Add(-time.Hour), Units: 1, Country: "DE", City: "Berlin", Keyed: true})
			if i%3 == 0 {
				f.Cancel(o, 2, 0)
			}
		}
	}()
	for range 200 {
		f.Recent("b", 0, rules, t0)
	}
	<-done
	r := rules
	r.MaxItems = 1000
	items := f.Recent("b", 0, r, t0)
	if len(items) != 500+333 {
		t.Fatalf("%d items, want 833", len(items))
	}
	if it := items[0]; it.City != "Berlin" {
		t.Fatalf("500 Berlin orders: %+v", it)
	}
}

// Anonymous orders never enter the feed: anyone can send them
// (docs/security.md, Provenance).
func TestAnonymousLeftOut(t *testing.T) {
	f := New()
	buy(f, "o1", 1, 10*time.Minute, "DE", "Kleinstadt")
	for _, o := range []string{"a1", "a2", "a3"} {
		f.Add(svc.RecentPurchase{BrandID: "b", Order: o, Product: 1, Time: t0.Add(-10 * time.Minute), Units: 1, Country: "DE", City: "Kleinstadt"})
	}
	if got := show(f.Recent("b", 0, rules, t0)); !reflect.DeepEqual(got, []string{"1 / 10m0s"}) {
		t.Fatalf("one keyed order, its place withheld (k 2): %v", got)
	}
}

// An order's coarsened time depends on its minute and its id, never on
// its second, and stays within a minute of the true time.
func TestCoarse(t *testing.T) {
	base := coarse("01a2f0c4-7e1b-7c3d-9a4e-5f6b7c8d9e0f", t0)
	for s := range 60 {
		if got := coarse("01a2f0c4-7e1b-7c3d-9a4e-5f6b7c8d9e0f", t0.Add(time.Duration(s)*time.Second+time.Duration(s)*time.Millisecond)); got != base {
			t.Fatalf("second %d: %v, want %v", s, time.Unix(0, got), time.Unix(0, base))
		}
	}
	if d := time.Duration(base - t0.UnixNano()); d < 0 || d >= time.Minute {
		t.Fatalf("%s from its minute", d)
	}
	spread := map[int64]bool{}
	for i := range 20 {
		spread[coarse(fmt.Sprint("o", i), t0)] = true
	}
	if len(spread) < 15 {
		t.Fatalf("20 orders of one minute at %d points", len(spread))
	}
}
