package prices

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

var saveT0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// history has n prices over products in two currencies, some added out of
// time order.
func history(n, products int) *History {
	h := New()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		at := saveT0.Add(time.Duration(i)*time.Minute - time.Duration(rng.IntN(3))*time.Hour)
		cur := "EUR"
		if i%7 == 0 {
			cur = "USD"
		}
		h.Add(svc.ProductRef(1+rng.IntN(products)), at, cur, float64(rng.IntN(10000))/100)
	}
	return h
}

// TestHistoryRoundTrip: what a cut encodes decodes to the same history, as
// every statistic reads it, and changes after the cut are not in it.
func TestHistoryRoundTrip(t *testing.T) {
	h := history(5000, 300)
	cut := h.Cut()
	// After the cut, every kind of change: none may reach it.
	h.Add(1, saveT0, "EUR", 12345)
	h.Add(1000, saveT0, "EUR", 1)
	for ref, s := range h.byProduct {
		p := s.points[0]
		h.Remove(ref, time.UnixMilli(p.at), string(p.currency[:]), p.price)
		break
	}
	h.Sweep(saveT0.Add(30 * time.Hour))
	b, err := cut.AppendBinary([]byte("head"))
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:4]) != "head" {
		t.Fatal("AppendBinary did not append")
	}
	got := New()
	got.Add(999, saveT0, "EUR", 1) // replaced
	if err := got.UnmarshalBinary(b[4:]); err != nil {
		t.Fatal(err)
	}
	want := history(5000, 300)
	if !reflect.DeepEqual(got.byProduct, want.byProduct) {
		t.Fatal("the decoded history differs from the cut")
	}
	for ref := range svc.ProductRef(301) {
		for _, cur := range []string{"EUR", "USD"} {
			if g, w := got.Stats(ref, saveT0.Add(-3*time.Hour), cur), want.Stats(ref, saveT0.Add(-3*time.Hour), cur); g != w {
				t.Fatalf("product %d %s: %+v, want %+v", ref, cur, g, w)
			}
		}
	}
	empty, _ := New().Cut().AppendBinary(nil)
	if err := got.UnmarshalBinary(empty); err != nil || len(got.byProduct) != 0 {
		t.Fatalf("an empty history: %v, %d products", err, len(got.byProduct))
	}
}

// TestHistoryRefusesDamage: a truncated or damaged encoding is refused,
// and leaves the history as it was.
func TestHistoryRefusesDamage(t *testing.T) {
	b, _ := history(200, 20).Cut().AppendBinary(nil)
	h := New()
	h.Add(1, saveT0, "EUR", 5)
	for cut := range len(b) {
		if err := h.UnmarshalBinary(b[:cut]); err == nil && cut > 0 {
			t.Fatalf("truncated at %d of %d: decoded", cut, len(b))
		}
	}
	for _, bad := range [][]byte{append(b[:len(b):len(b)], 0), {1, 1, 1, 0, 0, 0, 0, 0, 0, 0xf8, 0xff, 'E', 'U', 'R'}} {
		if err := h.UnmarshalBinary(bad); err == nil {
			t.Fatalf("%x: decoded", bad)
		}
	}
	if got := h.Stats(1, saveT0, "EUR"); got.Purchases != 1 {
		t.Fatalf("a refused encoding changed the history: %+v", got)
	}
}

// BenchmarkCut is what a save holds the commit path for: the prices of
// 670,000 order lines over 500,000 products (the restart's seed).
func BenchmarkCut(b *testing.B) {
	h := history(670_000, 500_000)
	b.ReportAllocs()
	for b.Loop() {
		h.Cut()
	}
}
