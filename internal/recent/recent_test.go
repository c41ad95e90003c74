package recent

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
	f.Add(svc.RecentPurchase{BrandID: "b", Order: order, Product: product, Time: t0.Add(-d), Units: 2, Country: country, City: city})
}

func show(items []Item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, fmt.Sprintf("%d %s/%s %s", it.Product, it.Country, it.City, t0.Sub(it.Time)))
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
	f.Add(svc.RecentPurchase{BrandID: "other", Order: "x", Product: 9, Time: t0, Country: "DE", City: "Berlin"})
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
		{"delay 20 min, at the edge", 0, func(r *Rules) { r.Delay = 20 * time.Minute }, []string{"2 DE/Berlin 20m0s", "1 DE/Berlin 20m0s", "1 DE/Berlin 30m0s", "3 / 40m0s"}},
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
	if !f.Cancel("b", "o1", 1, 1) {
		t.Fatal("a part of a line")
	}
	if got := show(f.Recent("b", 0, rules, t0)); len(got) != 3 {
		t.Fatalf("one of two units cancelled: the purchase stays: %v", got)
	}
	if !f.Cancel("b", "o1", 1, 0) || f.Cancel("b", "o1", 1, 0) || f.Cancel("other", "o1", 2, 0) {
		t.Fatal("the whole line, once, of its brand only")
	}
	if got := show(f.Recent("b", 0, rules, t0)); !reflect.DeepEqual(got, []string{"2 DE/Berlin 10m0s", "1 DE/Berlin 30m0s"}) {
		t.Fatalf("after the cancellation: %v", got)
	}
	if !f.Cancel("b", "o2", 1, 5) {
		t.Fatal("more units than the line has")
	}
	// Berlin now has one order: its place is withheld.
	if got := show(f.Recent("b", 0, rules, t0)); !reflect.DeepEqual(got, []string{"2 / 10m0s"}) {
		t.Fatalf("after the second: %v", got)
	}
	f.Sweep(t0)
	if len(f.brands) != 0 {
		t.Fatalf("swept: %v", f.brands)
	}
}
