package purchasefeed

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// busyFeed has orders of two brands, in and out of time order, with and
// without places, some of several products, one partly cancelled.
func busyFeed() *Feed {
	f := New()
	for i := range 300 {
		country, city := "", ""
		if i%3 > 0 {
			country = []string{"DE", "AT"}[i%2]
		}
		if i%3 == 2 {
			city = fmt.Sprint("c", i%5)
		}
		brand := []string{"b", "other"}[i%2]
		d := time.Duration(300-i)*time.Minute + time.Duration(i%7)*time.Hour
		for p := range 1 + i%3 {
			f.Add(svc.RecentPurchase{BrandID: brand, Order: fmt.Sprint("o", i), Product: svc.ProductRef(1 + (i+p)%40),
				Time: t0.Add(-d), Units: int64(1 + p), Country: country, City: city, Keyed: true})
		}
	}
	f.Cancel("o7", 8, 0)
	f.Cancel("o8", 10, 1)
	return f
}

// TestFeedRoundTrip: what a cut encodes decodes to a feed that shows what
// the cut one did, takes the same cancellations, and holds nothing that
// changed after the cut.
func TestFeedRoundTrip(t *testing.T) {
	f := busyFeed()
	cut := f.Cut()
	f.Add(svc.RecentPurchase{BrandID: "b", Order: "late", Product: 1, Time: t0, Units: 1, Keyed: true})
	f.Cancel("o10", 11, 0)
	f.Sweep(t0.Add(-3 * time.Hour))
	b, err := cut.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := New()
	buy(got, "replaced", 1, 0, "", "")
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	want := busyFeed()
	r := rules
	r.MaxItems, r.Window, r.Delay = 1000, 24*time.Hour, 0
	for _, brand := range []string{"b", "other"} {
		for _, product := range []svc.ProductRef{0, 1, 8, 11} {
			if g, w := got.Recent(brand, product, r, t0.Add(2*time.Minute)), want.Recent(brand, product, r, t0.Add(2*time.Minute)); !reflect.DeepEqual(g, w) || len(w) == 0 && product == 0 {
				t.Fatalf("brand %s product %d:\n got %v\nwant %v", brand, product, g, w)
			}
		}
	}
	for _, g := range []*Feed{got, want} {
		if !g.Cancel("o10", 11, 0) || g.Cancel("late", 1, 0) {
			t.Fatal("the decoded feed takes other cancellations than the cut one")
		}
	}
	if !reflect.DeepEqual(got.orders, want.orders) || !reflect.DeepEqual(got.list, want.list) {
		t.Fatal("orders or places differ")
	}
}

// TestFeedRefusesDamage: a truncated encoding, one with a place or an
// order out of range or out of time order, is refused, and the feed is
// left as it was.
func TestFeedRefusesDamage(t *testing.T) {
	b, _ := busyFeed().Cut().AppendBinary(nil)
	f := New()
	buy(f, "kept", 1, time.Minute, "", "")
	for cut := range len(b) {
		if err := f.UnmarshalBinary(b[:cut]); err == nil {
			t.Fatalf("truncated at %d of %d: decoded", cut, len(b))
		}
	}
	entry := func(gap int64, country uint64) []byte {
		// no places; one brand "b" of one entry: order "o", product 1
		return []byte{0, 1, 1, 'b', 1, 1, 'o', 1, byte(gap << 1), 2, byte(country), 0}
	}
	if err := f.UnmarshalBinary(entry(5, 0)); err != nil {
		t.Fatalf("a good entry: %v", err)
	}
	buy(f, "kept", 1, time.Minute, "", "")
	backwards := []byte{0, 1, 1, 'b', 2, 1, 'o', 1, 10, 2, 0, 0, 1, 'p', 1, 1, 2, 0, 0} // the second 1 ms before the first
	for _, bad := range [][]byte{append(b[:len(b):len(b)], 0), entry(5, 1), backwards} {
		if err := f.UnmarshalBinary(bad); err == nil {
			t.Fatalf("%x: decoded", bad)
		}
	}
	if _, ok := f.orders["kept"]; !ok {
		t.Fatal("a refused encoding changed the feed")
	}
}
