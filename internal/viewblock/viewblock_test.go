package viewblock

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func sample(r *rand.Rand, n int, pos int64) []View {
	vs := make([]View, n)
	ts := int64(1_700_000_000_000)
	for i := range vs {
		pos += 1 + int64(r.IntN(3))
		v := View{
			Pos:        pos,
			EventID:    fmt.Sprintf("0190a1b2-c3d4-7e5f-8a9b-%012x", r.Int64N(1<<48)),
			Brand:      []string{"acme", "b"}[r.IntN(2)],
			Product:    r.Int64N(1000) + 1,
			TS:         ts + r.Int64N(5000) - 1000,
			ReceivedAt: ts + r.Int64N(100),
			Keyed:      r.IntN(3) == 0,
			Arm:        []string{"", "shown", "held_out"}[r.IntN(3)],
		}
		if r.IntN(4) == 0 {
			v.HasGiven, v.GivenTS = true, v.TS-r.Int64N(3600_000)
		}
		if r.IntN(5) != 0 {
			v.HasSession, v.Session = true, fmt.Sprintf("s%d", r.IntN(20))
		}
		if r.IntN(6) == 0 {
			v.HasSession = true // present and empty
		}
		if r.IntN(2) == 0 {
			v.HasCountry, v.Country = true, "DE"
		}
		if r.IntN(2) == 0 {
			v.HasLocale, v.Locale = true, "de-DE"
		}
		vs[i] = v
	}
	return vs
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var e Encoder
	var d Decoder
	for _, n := range []int{0, 1, 7, 8, 9, 100, 1000} {
		vs := sample(r, n, 41)
		if n == 9 {
			vs[3].EventID = "an-id-of-an-import" // not a UUID: the block keeps strings
			vs[4].EventID = "0190A1B2-C3D4-7E5F-8A9B-000000000000"
		}
		b := slices.Clone(e.Encode(vs))
		got, err := d.Decode(b, nil, All)
		if err != nil {
			t.Fatalf("%d views: %v", n, err)
		}
		if len(got) != len(vs) || (n > 0 && !reflect.DeepEqual(got, vs)) {
			t.Fatalf("%d views: decoded\n%+v\nwant\n%+v", n, got, vs)
		}
		if c, err := Count(b); err != nil || c != n {
			t.Fatalf("Count = %d, %v; want %d", c, err, n)
		}
		// Appending keeps what dst held.
		prefix := []View{{Pos: 1}}
		got, err = d.Decode(b, prefix, NoIDs|NoDetail)
		if err != nil || len(got) != n+1 || got[0].Pos != 1 {
			t.Fatalf("appending: %d views, %v", len(got), err)
		}
		for i, v := range got[1:] {
			w := vs[i]
			if v.EventID != "" || v.Country != "" || v.Pos != w.Pos || v.Product != w.Product || v.TS != w.TS || v.Session != w.Session || v.Brand != w.Brand || v.Arm != w.Arm {
				t.Fatalf("view %d with fewer columns: %+v, want %+v", i, v, w)
			}
		}
	}
}

func TestCorrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var e Encoder
	var d Decoder
	b := slices.Clone(e.Encode(sample(r, 50, 0)))
	for i := 0; i < len(b); i++ {
		if _, err := d.Decode(b[:i], nil, All); err == nil {
			t.Fatalf("a block cut at %d of %d bytes decoded", i, len(b))
		}
	}
	if _, err := d.Decode(append(slices.Clone(b), 0), nil, All); err == nil {
		t.Fatal("a block with a byte more decoded")
	}
}

func FuzzDecode(f *testing.F) {
	var e Encoder
	f.Add(slices.Clone(e.Encode(sample(rand.New(rand.NewPCG(5, 6)), 20, 0))))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Decoder
		_, _ = d.Decode(b, nil, All)
	})
}

func TestSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var blocks [][]View
	var all []View
	pos := int64(0)
	for range 200 {
		vs := sample(r, 1+r.IntN(30), pos)
		pos = vs[len(vs)-1].Pos
		blocks = append(blocks, vs)
		all = append(all, vs...)
	}
	minTS := func(vs []View) int64 {
		return slices.MinFunc(vs, func(a, b View) int { return less(&a, &b) }).TS
	}
	slices.SortFunc(blocks, func(a, b []View) int { return int(minTS(a) - minTS(b)) })
	var got []View
	s := Sorted{Emit: func(v *View) error { got = append(got, *v); return nil }}
	for _, b := range blocks {
		if err := s.Until(minTS(b)); err != nil {
			t.Fatal(err)
		}
		s.Add(b)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b View) int { return less(&a, &b) })
	if !reflect.DeepEqual(got, all) {
		t.Fatalf("%d views out of order or lost, want %d", len(got), len(all))
	}
}

func TestSize(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var e Encoder
	vs := sample(r, 32, 0)
	b := e.Encode(vs)
	if per := len(b) / len(vs); per > 40 {
		t.Errorf("%d bytes a view, want at most 40", per)
	}
}

func BenchmarkEncode32(b *testing.B) {
	vs := sample(rand.New(rand.NewPCG(1, 1)), 32, 0)
	var e Encoder
	b.ReportAllocs()
	for b.Loop() {
		e.Encode(vs)
	}
}

func BenchmarkDecodeReplay(b *testing.B) {
	var e Encoder
	blk := slices.Clone(e.Encode(sample(rand.New(rand.NewPCG(1, 1)), 32, 0)))
	var d Decoder
	var dst []View
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = d.Decode(blk, dst[:0], NoIDs|NoDetail)
	}
}
