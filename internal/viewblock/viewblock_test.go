package viewblock

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"runtime"
	"testing"
)

func sample() []View {
	return []View{
		{ID: 41, EventID: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", Brand: "acme", Product: 7, TS: 1_700_000_000_123,
			ReceivedAt: 1_700_000_000_200, Session: "s1", HasSession: true, Country: "DE", HasCountry: true, Locale: "de-DE", HasLocale: true, Arm: "shown"},
		{ID: 42, EventID: "custom-id", Brand: "acme", Product: 3, TS: 1_699_999_000_000, ReceivedAt: 1_700_000_000_201,
			Given: 1_600_000_000_000, HasGiven: true, Keyed: true, Session: "", HasSession: true},
		{ID: 45, EventID: "0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B", Brand: "other", Product: 900_000, TS: 1_700_000_000_123,
			ReceivedAt: 1_700_000_000_123, Session: "s1", HasSession: true, Arm: "held_out"},
	}
}

func TestRoundTrip(t *testing.T) {
	in := sample()
	b := Append(nil, in)
	out, err := Decode(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", out, in)
	}
	// Decode appends.
	out, err = Decode(out[:1], b)
	if err != nil || len(out) != 4 || !reflect.DeepEqual(out[1:], in) {
		t.Fatalf("append: %v %+v", err, out)
	}
	if empty, err := Decode(nil, Append(nil, nil)); err != nil || len(empty) != 0 {
		t.Fatalf("empty block: %v %v", empty, err)
	}
}

// A view of a commit group takes a small part of the row it replaces.
func TestCompact(t *testing.T) {
	var views []View
	for i := range 100 {
		v := sample()[0]
		v.ID = int64(1000 + i)
		v.TS += int64(i * 3)
		v.ReceivedAt = v.TS + 5
		v.Product = int64(i * 37 % 1000)
		views = append(views, v)
	}
	b := Append(nil, views)
	if per := len(b) / len(views); per > 32 {
		t.Fatalf("%d bytes a view", per)
	}
}

func TestCorrupt(t *testing.T) {
	b := Append(nil, sample())
	for i := range b {
		if _, err := Decode(nil, b[:i]); err == nil {
			t.Fatalf("a block cut at %d of %d decoded", i, len(b))
		}
	}
	if _, err := Decode(nil, append(bytes.Clone(b), 0)); err == nil {
		t.Fatal("a block with a byte more decoded")
	}
}

// Event ids of 36 characters with hyphens where a UUID has them, but
// not a UUID's hex digits between, are kept as text, and read back as they
// were.
func TestEventIDsLikeUUIDs(t *testing.T) {
	for _, id := range []string{
		"00000000-0000-0000-0000--00000000000",
		"------------------------------------",
		"0000000--0000-0000-0000-000000000000",
		"00000000-0000-0000-0000-00000000000A",
	} {
		v := sample()[:1]
		v[0].EventID = id
		got, err := Decode(nil, Append(nil, v))
		if err != nil || got[0].EventID != id {
			t.Errorf("%q read back as %q, %v", id, got[0].EventID, err)
		}
	}
}

// A corrupt block that claims more views than its bytes can hold fails
// before it allocates them: a view takes 8 bytes at least, and a decoded
// one near 200.
func TestDecodeAllocatesForTheViewsItsBytesHold(t *testing.T) {
	b := make([]byte, 1<<20)
	b[0] = version
	n := binary.AppendUvarint(nil, uint64(len(b)/2))
	copy(b[1:], n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Decode(nil, b); err == nil {
		t.Fatal("decoded")
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 32*uint64(len(b)) {
		t.Fatalf("allocated %d bytes for a block of %d", got, len(b))
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Append(nil, sample()))
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		vs, err := Decode(nil, b)
		counted, cerr := testDecoder(nil).Decode(nil, b)
		if (err == nil) != (cerr == nil) {
			t.Fatalf("Decode: %v; CountDecoder: %v", err, cerr)
		}
		if err != nil {
			return
		}
		if want := countedOf(vs); !reflect.DeepEqual(counted, want) && len(vs) > 0 {
			t.Fatalf("CountDecoder:\n%+v\nwant\n%+v", counted, want)
		}
		// What decodes encodes back to a block of the same views.
		again, err := Decode(nil, Append(nil, vs))
		if err != nil || !reflect.DeepEqual(again, vs) && len(vs) > 0 {
			t.Fatalf("re-encoded: %v\n%+v\n%+v", err, again, vs)
		}
	})
}

// busyBlock is a commit group of 4,096 views with UUID event ids, over
// 300 sessions and 1,000 products.
func busyBlock() []View {
	vs := make([]View, 4096)
	for i := range vs {
		vs[i] = View{ID: int64(1000 + i), EventID: fmt.Sprintf("0190a1b2-c3d4-7e5f-8a9b-%012x", i), Brand: "acme",
			Product: int64(i * 7919 % 1000), TS: 1_700_000_000_000 + int64(i), ReceivedAt: 1_700_000_000_000 + int64(i),
			Session: fmt.Sprint("s", i%300), HasSession: true, Arm: "shown"}
	}
	return vs
}

// TestDecodeCounted: every column but the event ids, as Decode reads them.
func TestDecodeCounted(t *testing.T) {
	vs := append(sample(), busyBlock()...)
	for i := range vs {
		vs[i].ID = int64(i + 1)
	}
	b := Append(nil, vs)
	got, err := DecodeCounted(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range vs {
		vs[i].EventID = ""
	}
	if !reflect.DeepEqual(got, vs) {
		t.Fatal("DecodeCounted differs from the views but for their event ids")
	}
	if _, err := DecodeCounted(nil, b[:len(b)-1]); err == nil {
		t.Fatal("a torn block decoded")
	}
}

// BenchmarkDecode decodes a block of 4,096 views, as an export does
// (every column) and as a replay does (without event ids).
func BenchmarkDecode(b *testing.B) {
	block := Append(nil, busyBlock())
	for _, tc := range []struct {
		name   string
		decode func([]View, []byte) ([]View, error)
	}{{"every-column", Decode}, {"counted", DecodeCounted}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var vs []View
			for b.Loop() {
				var err error
				if vs, err = tc.decode(vs[:0], block); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// testHash stands for the engine's session hash: 0 for the empty session,
// as Engine.SessionHash.
func testHash(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return 1 + uint64(len(b))<<32 + uint64(b[len(b)-1])
}

// testDecoder is a CountDecoder of testHash that counts its calls.
func testDecoder(calls *int) *CountDecoder {
	return &CountDecoder{Hash: func(b []byte) uint64 {
		if calls != nil {
			*calls++
		}
		return testHash(b)
	}}
}

// countedOf is what a replay counts of vs.
func countedOf(vs []View) []Counted {
	out := make([]Counted, len(vs))
	for i, v := range vs {
		out[i] = Counted{ID: v.ID, Product: v.Product, TS: v.TS}
		if v.HasSession {
			out[i].Session = testHash([]byte(v.Session))
		}
	}
	return out
}

// A CountDecoder reads what Decode reads of a view's id, product, time
// and session, hashing each distinct session of a block once, and fails
// where Decode fails.
func TestCountDecoder(t *testing.T) {
	vs := append(sample(), busyBlock()...)
	for i := range vs {
		vs[i].ID = int64(i + 1)
	}
	vs[5].HasSession, vs[5].Session = false, ""
	b := Append(nil, vs)
	calls := 0
	d := testDecoder(&calls)
	got, err := d.Decode([]Counted{{ID: -1}}, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]Counted{{ID: -1}}, countedOf(vs)...); !reflect.DeepEqual(got, want) {
		t.Fatal("the counted views differ from Decode's")
	}
	if calls != 301 { // busyBlock's 300, which hold sample's "s1", and ""
		t.Fatalf("%d hashes for 301 distinct sessions", calls)
	}
	// The tables are reused, and a second block hashes its own sessions.
	small := Append(nil, sample()[2:])
	if got, err := d.Decode(nil, small); err != nil || !reflect.DeepEqual(got, countedOf(sample()[2:])) {
		t.Fatalf("second block: %v %+v", err, got)
	}
	for _, blk := range [][]byte{Append(nil, sample()), small} {
		for i := range blk {
			if _, err := d.Decode(nil, blk[:i]); err == nil {
				t.Fatalf("a block cut at %d of %d decoded", i, len(blk))
			}
		}
		if _, err := d.Decode(nil, append(bytes.Clone(blk), 0)); err == nil {
			t.Fatal("a block with a byte more decoded")
		}
	}
}

// BenchmarkCountDecoder decodes a block of 4,096 views as a replay does.
func BenchmarkCountDecoder(b *testing.B) {
	block := Append(nil, busyBlock())
	b.ReportAllocs()
	d := testDecoder(nil)
	var vs []Counted
	for b.Loop() {
		var err error
		if vs, err = d.Decode(vs[:0], block); err != nil {
			b.Fatal(err)
		}
	}
}
