package window

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// busyEngine fills an engine the way traffic does: views in and out of
// order, repeat sessions, anonymous views, future-dated events, purchases,
// and sweeps that prune some of it.
func busyEngine(t testing.TB, seed uint64) (*Engine, time.Time) {
	t.Helper()
	e := newEngine()
	rng := rand.New(rand.NewPCG(seed, seed))
	now := t0
	for i := range 20_000 {
		now = now.Add(time.Duration(rng.IntN(40)) * time.Second)
		ref := svc.ProductRef(rng.IntN(600))
		at := now.Add(-time.Duration(rng.IntN(600)) * time.Second) // up to 10 min late
		switch r := rng.IntN(100); {
		case r < 3:
			at = now.Add(time.Duration(1+rng.IntN(300)) * time.Second) // ahead of the clock
		case r < 5:
			at = now.Add(-time.Duration(rng.IntN(9*24*3600)) * time.Second) // a backfill, maybe out of every window
		}
		switch r := rng.IntN(100); {
		case r < 5:
			e.AddPurchase(ref, at, int64(1+rng.IntN(5)), now)
		case r < 15:
			e.AddView(ref, at, 0, now)
		default:
			e.AddView(ref, at, e.SessionHash(fmt.Sprint("s", rng.IntN(3000))), now)
		}
		if i%4000 == 3999 {
			e.Sweep(now)
		}
	}
	return e, now
}

func encode(t testing.TB, e *Engine, now time.Time, meta string, mark func(i int) string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := e.NewEncoder(&buf, now, []byte(meta))
	if err != nil {
		t.Fatal(err)
	}
	for i := range Shards {
		if err := enc.EncodeShard([]byte(mark(i)), func() {}); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func load(b []byte) (*Snapshot, error) {
	return LoadSnapshot(bytes.NewReader(b), svc.MaxViewWindow, svc.MaxPurchaseWindow)
}

// sameCounts compares two engines' answers for every product over windows
// of many sizes, now and as the clock moves on (pending events come due,
// old ones leave).
func sameCounts(t *testing.T, want, got *Engine, now time.Time) {
	t.Helper()
	for _, later := range []time.Duration{0, time.Minute, 10 * time.Minute, 3 * time.Hour, 8 * 24 * time.Hour} {
		at := now.Add(later)
		for ref := range svc.ProductRef(600) {
			for _, w := range []time.Duration{time.Minute, 15 * time.Minute, time.Hour, 24 * time.Hour, svc.MaxViewWindow} {
				a := want.Counts(ref, at, w, 4*w)
				b := got.Counts(ref, at, w, 4*w)
				if a != b {
					t.Fatalf("product %d at +%s, window %s: %+v after the snapshot, want %+v", ref, later, w, b, a)
				}
			}
		}
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	e, now := busyEngine(t, 1)
	b := encode(t, e, now, "meta", func(i int) string { return fmt.Sprint("mark", i) })
	snap, err := load(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(snap.Meta) != "meta" || string(snap.Marks[7]) != "mark7" || !snap.Written.Equal(now) {
		t.Fatalf("meta %q, mark 7 %q, written %s", snap.Meta, snap.Marks[7], snap.Written)
	}
	if again := encode(t, snap.Engine, now, "meta", func(i int) string { return fmt.Sprint("mark", i) }); !bytes.Equal(again, b) {
		t.Fatal("the loaded engine encodes differently")
	}
	// The key came along: the same session is the same viewer after a restart.
	if h := snap.Engine.SessionHash("s1"); h != e.SessionHash("s1") {
		t.Fatal("session hashes changed over the snapshot")
	}
	for ref := range svc.ProductRef(600) {
		at := now.Add(time.Second)
		e.AddView(ref, at, e.SessionHash("s1"), at)
		snap.Engine.AddView(ref, at, snap.Engine.SessionHash("s1"), at)
	}
	sameCounts(t, e, snap.Engine, now.Add(time.Second))
}

func TestSnapshotOfAnEmptyEngine(t *testing.T) {
	e := newEngine()
	snap, err := load(encode(t, e, t0, "", func(int) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	if st := snap.Engine.Sweep(t0); st.Products != 0 {
		t.Fatalf("%+v", st)
	}
}

// TestSnapshotKeepsTheCallersSection: the optional last section comes back
// whole, a file without one has none, and one damaged or followed by more
// is refused.
func TestSnapshotKeepsTheCallersSection(t *testing.T) {
	e, now := busyEngine(t, 2)
	counts := encode(t, e, now, "m", func(int) string { return "x" })
	var buf bytes.Buffer
	enc, err := e.NewEncoder(&buf, now, []byte("m"))
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.EncodeKept([]byte("early")); err == nil {
		t.Fatal("a kept section before the shards was written")
	}
	for range Shards {
		if err := enc.EncodeShard([]byte("x"), func() {}); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.EncodeKept([]byte("kept")); err != nil {
		t.Fatal(err)
	}
	if err := enc.EncodeKept([]byte("twice")); err == nil {
		t.Fatal("a second kept section was written")
	}
	withKept := buf.Bytes()
	snap, err := load(withKept)
	if err != nil || string(snap.Kept) != "kept" {
		t.Fatalf("kept %q, %v", snap.Kept, err)
	}
	sameCounts(t, e, snap.Engine, now)
	if snap, err := load(counts); err != nil || snap.Kept != nil {
		t.Fatalf("without a kept section: %q, %v", snap.Kept, err)
	}
	bad := bytes.Clone(withKept)
	bad[len(bad)-6] ^= 1
	if _, err := load(bad); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a damaged kept section: %v", err)
	}
	if _, err := load(append(bytes.Clone(withKept), 0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a byte after the kept section: %v", err)
	}
	if _, err := load(withKept[:len(withKept)-1]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a torn kept section: %v", err)
	}
}

func TestSnapshotRefusesDamage(t *testing.T) {
	e, now := busyEngine(t, 2)
	b := encode(t, e, now, "m", func(int) string { return "x" })
	rng := rand.New(rand.NewPCG(2, 2))
	for range 50 {
		cut := rng.IntN(len(b))
		if _, err := load(b[:cut]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated at %d of %d: %v, want ErrCorrupt", cut, len(b), err)
		}
		bad := bytes.Clone(b)
		bad[cut] ^= 1 << rng.IntN(8)
		if _, err := load(bad); err == nil {
			t.Fatalf("a bit flipped at %d: loaded", cut)
		}
	}
	if _, err := load(append(bytes.Clone(b), 0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a byte appended: %v", err)
	}
	if _, err := LoadSnapshot(bytes.NewReader(b), time.Hour, svc.MaxPurchaseWindow); !errors.Is(err, ErrMismatch) {
		t.Fatalf("other horizons: %v, want ErrMismatch", err)
	}
}

// A checksum-valid shard whose content is wrong is refused, not loaded.
func TestSnapshotRefusesBadContent(t *testing.T) {
	tests := []struct {
		name  string
		shard []byte
	}{
		{"product in the wrong shard", []byte{0, 1, 1, 0, 0, 0, 0, 0, 0}},
		{"refs out of order", append([]byte{0, 2}, make([]byte, 14)...)},
		{"count beyond the data", []byte{0, 100}},
		{"session hash 0", append([]byte{0, 1, 0, 0, 1, 1, 0, 1}, make([]byte, 8)...)},
		{"more sessions than counted", append([]byte{0, 1, 0, 0, 1, 1, 0, 3},
			1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0)},
		{"trailing bytes", []byte{0, 0, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := load(wrapShard(tt.shard)); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%v, want ErrCorrupt", err)
			}
		})
	}
}

// wrapShard makes a snapshot whose shard 0 is payload and every other is
// empty, with valid checksums.
func wrapShard(payload []byte) []byte {
	var buf bytes.Buffer
	enc, _ := newEngine().NewEncoder(&buf, t0, nil)
	_ = enc.writeSection(payload)
	for range Shards - 1 {
		_ = enc.writeSection([]byte{0, 0})
	}
	return buf.Bytes()
}

// FuzzLoadSnapshot feeds the decoder shards that pass their checksum:
// it must refuse or load them, never panic, and what it loads must work.
func FuzzLoadSnapshot(f *testing.F) {
	e := newEngine()
	now := t0
	for i := range 50 {
		e.AddView(svc.ProductRef(i%3*Shards), now.Add(-time.Duration(i)*time.Second), e.SessionHash(fmt.Sprint(i%7)), now)
		e.AddPurchase(svc.ProductRef(i%2*Shards), now.Add(time.Duration(i)*time.Second), 2, now)
	}
	var buf bytes.Buffer
	enc, _ := e.NewEncoder(&buf, now, nil)
	_ = enc.EncodeShard(nil, func() {})
	b := buf.Bytes()
	// The first shard's payload: after the magic and the header section.
	head := len(snapshotMagic) + 8 + int(binary.LittleEndian.Uint32(b[len(snapshotMagic):]))
	f.Add(b[head+4 : len(b)-4])
	f.Add([]byte{0, 0})
	f.Fuzz(func(t *testing.T, shard []byte) {
		snap, err := load(wrapShard(shard))
		if err != nil {
			return
		}
		snap.Engine.Sweep(now)
		for ref := range svc.ProductRef(4) {
			snap.Engine.AddView(ref*Shards, now, 5, now)
			snap.Engine.Counts(ref*Shards, now.Add(time.Hour), time.Hour, 24*time.Hour)
		}
		snap.Engine.Sweep(now.Add(40 * 24 * time.Hour))
	})
}

func BenchmarkSnapshot(b *testing.B) {
	e, now := busyEngine(b, 3)
	data := encode(b, e, now, "", func(int) string { return "" })
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			encode(b, e, now, "", func(int) string { return "" })
		}
	})
	b.Run("load", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := load(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
