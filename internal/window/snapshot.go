package window

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/binenc"
)

// A snapshot is the engine's logical state in a compact binary form, so
// that a restart loads it instead of replaying every stored event:
//
//	file    = magic section{1 + Shards} [section]
//	section = length:u32le payload crc32c(payload):u32le
//	header  = version horizons(2) key(16 bytes) shards base meta
//	shard   = mark products ref{products} product{...}
//	product = views sessions orders units pending
//
// Integers are uvarints; seconds are zigzag offsets from base (when the
// snapshot was written) for the first of a list, then gaps minus one, so
// they are strictly ascending by construction. The viewers timeline is not
// written: it is the count of sessions at each session's latest second,
// and is rebuilt from the sessions, grouped by second. Each section has its
// own checksum, so that shards decode on several cores as they are read,
// and a torn or damaged file is refused.
//
// The mark and meta are the caller's: the engine keeps them opaque. Mark
// says where the shard's state stands in the caller's event log. So is
// the optional last section (Encoder.EncodeKept): what the caller keeps
// beside the counts, saved with them in the one file.

// Shards is the number of shards a snapshot writes, one at a time.
const Shards = numShards

const (
	snapshotMagic   = "svcsnap\n"
	snapshotVersion = 1
	maxSection      = 1 << 31 // no shard of any real engine comes near
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt is returned by LoadSnapshot for a file that is torn, damaged,
// or not a snapshot.
var ErrCorrupt = errors.New("window: snapshot is corrupt")

// ErrMismatch is returned by LoadSnapshot for a valid snapshot of another
// version or other horizons than the caller's engine.
var ErrMismatch = errors.New("window: snapshot does not match this engine")

// Encoder writes an engine's snapshot, one shard at a time.
type Encoder struct {
	e    *Engine
	w    io.Writer
	base uint32
	next int
	buf  []byte
	copy shardCopy
}

type sessionAt struct {
	sec uint32
	h   uint64
}

// NewEncoder writes the snapshot's header to w, with the caller's meta;
// EncodeShard then writes each shard in turn.
func (e *Engine) NewEncoder(w io.Writer, now time.Time, meta []byte) (*Encoder, error) {
	enc := &Encoder{e: e, w: w, base: sec(now)}
	b := binary.AppendUvarint(nil, snapshotVersion)
	b = binary.AppendUvarint(b, uint64(e.viewHorizon))
	b = binary.AppendUvarint(b, uint64(e.purchaseHorizon))
	b = binary.LittleEndian.AppendUint64(b, e.key[0])
	b = binary.LittleEndian.AppendUint64(b, e.key[1])
	b = binary.AppendUvarint(b, numShards)
	b = binary.AppendUvarint(b, uint64(enc.base))
	b = binenc.AppendBytes(b, meta)
	if _, err := io.WriteString(w, snapshotMagic); err != nil {
		return nil, err
	}
	return enc, enc.writeSection(b)
}

// EncodeShard writes the next shard with the caller's mark. It locks the
// shard, then calls locked, then copies the shard's state and unlocks it,
// then encodes the copy: the caller holds whatever keeps the shard still
// while it takes the mark (for the tracker, the commit path), and lets it
// go in locked, so that the shard is held only for a copy of its arrays
// (about a millisecond for 1/256 of 20 million events), not its encoding.
func (enc *Encoder) EncodeShard(mark []byte, locked func()) error {
	if enc.next >= numShards {
		locked()
		return errors.New("window: every shard is written")
	}
	s := &enc.e.shards[enc.next]
	enc.next++
	s.mu.Lock()
	locked()
	enc.copyShard(s)
	s.mu.Unlock()
	b, err := enc.appendShard(binenc.AppendBytes(enc.buf[:0], mark))
	enc.buf = b
	if err != nil {
		return err
	}
	return enc.writeSection(b)
}

// EncodeKept writes the caller's last section, after every shard: it is
// read back whole as Snapshot.Kept.
func (enc *Encoder) EncodeKept(payload []byte) error {
	if enc.next != numShards {
		return errors.New("window: the kept section goes after every shard")
	}
	enc.next++ // once
	return enc.writeSection(payload)
}

// shardCopy is a shard's state copied into arenas reused from shard to
// shard: products hold slices of them, and sess ranges of sessions.
type shardCopy struct {
	products []copied
	pts32    []point[uint32]
	pts64    []point[uint64]
	sess     []sessionAt
	more     []more
	pending  []pending
}

type copied struct {
	ref        svc.ProductRef
	p          product // its slices point into the arenas
	sess, sEnd int     // its sessions: sess[sess:sEnd]
	moreAt     int     // 1 + its index in more, or 0
}

func (enc *Encoder) copyShard(s *shard) {
	c := &enc.copy
	c.products, c.pts32, c.pts64, c.sess, c.pending = c.products[:0], c.pts32[:0], c.pts64[:0], c.sess[:0], c.pending[:0]
	c.more = c.more[:0]
	for ref, p := range s.products {
		cp := copied{ref: ref, sess: len(c.sess)}
		var pts []point[uint32]
		pts, c.pts32 = appendCopy(c.pts32, p.views.pts())
		cp.p.views.set(pts)
		pts, c.pts32 = appendCopy(c.pts32, p.viewers.pts())
		cp.p.viewers.set(pts)
		p.latest.each(func(h uint64, s uint32) { c.sess = append(c.sess, sessionAt{s, h}) })
		cp.sEnd = len(c.sess)
		if p.more != nil {
			var m more
			pts, c.pts32 = appendCopy(c.pts32, p.more.orders.pts())
			m.orders.set(pts)
			var units []point[uint64]
			units, c.pts64 = appendCopy(c.pts64, p.more.units.pts())
			m.units.set(units)
			m.pending, c.pending = appendCopy(c.pending, p.more.pending)
			c.more = append(c.more, m)
			cp.moreAt = len(c.more)
		}
		c.products = append(c.products, cp)
	}
	// The arenas may have moved as they grew: point each copy at its
	// final extra part only now.
	for i := range c.products {
		if k := c.products[i].moreAt; k > 0 {
			c.products[i].p.more = &c.more[k-1]
		}
	}
}

// appendCopy appends v to arena and returns the copy and the arena.
func appendCopy[T any](arena, v []T) ([]T, []T) {
	n := len(arena)
	arena = append(arena, v...)
	return arena[n:len(arena):len(arena)], arena
}

func (enc *Encoder) appendShard(b []byte) ([]byte, error) {
	c := &enc.copy
	// By ref: deltas stay small, and the file is the same for the same state.
	slices.SortFunc(c.products, func(a, b copied) int { return cmp.Compare(a.ref, b.ref) })
	b = binary.AppendUvarint(b, uint64(len(c.products)))
	var prev svc.ProductRef
	for i := range c.products {
		cp := &c.products[i]
		b = binary.AppendUvarint(b, uint64(cp.ref-prev))
		prev = cp.ref
		var err error
		if b, err = enc.appendProduct(b, &cp.p, c.sess[cp.sess:cp.sEnd]); err != nil {
			return b, fmt.Errorf("window: product %d: %w", cp.ref, err)
		}
	}
	return b, nil
}

// appendProduct encodes a copied product, whose sessions are sess.
func (enc *Encoder) appendProduct(b []byte, p *product, sess []sessionAt) ([]byte, error) {
	b = appendTimeline(b, &p.views, enc.base)

	// Sessions grouped by their latest second: the groups' sizes are the
	// viewers timeline, which must say the same.
	slices.SortFunc(sess, func(a, b sessionAt) int { return cmp.Or(cmp.Compare(a.sec, b.sec), cmp.Compare(a.h, b.h)) })
	groups := 0
	for i := range sess {
		if i == 0 || sess[i].sec != sess[i-1].sec {
			groups++
		}
	}
	if err := checkViewers(&p.viewers, sess); err != nil {
		return b, err
	}
	b = binary.AppendUvarint(b, uint64(len(sess)))
	b = binary.AppendUvarint(b, uint64(groups))
	st := secWriter{base: enc.base}
	for i := 0; i < len(sess); {
		j := i + 1
		for j < len(sess) && sess[j].sec == sess[i].sec {
			j++
		}
		b = st.append(b, sess[i].sec)
		b = binary.AppendUvarint(b, uint64(j-i))
		for _, x := range sess[i:j] {
			b = binary.LittleEndian.AppendUint64(b, x.h)
		}
		i = j
	}

	var m more
	if p.more != nil {
		m = *p.more
	}
	b = appendTimeline(b, &m.orders, enc.base)
	b = appendTimeline(b, &m.units, enc.base)
	b = binary.AppendUvarint(b, uint64(len(m.pending)))
	for _, ev := range m.pending {
		b = binary.AppendVarint(b, int64(ev.sec)-int64(enc.base))
		b = binary.LittleEndian.AppendUint64(b, ev.session)
		b = binary.AppendUvarint(b, uint64(ev.units))
	}
	return b, nil
}

// checkViewers reports whether the viewers timeline counts each session
// once, at its latest second (sess is sorted by second): what the snapshot
// relies on to leave the timeline out.
func checkViewers(viewers *timeline[uint32], sess []sessionAt) error {
	i := 0
	var err error
	viewers.each(func(s uint32, n uint32) {
		if n == 0 || err != nil {
			return // a session that moved on leaves a zero behind
		}
		j := i
		for j < len(sess) && sess[j].sec == s {
			j++
		}
		if j == i || uint32(j-i) != n {
			err = fmt.Errorf("viewers at %d: %d, but %d sessions", s, n, j-i)
		}
		i = j
	})
	if err == nil && i != len(sess) {
		err = fmt.Errorf("%d sessions have no viewer", len(sess)-i)
	}
	return err
}

func appendTimeline[T uint32 | uint64](b []byte, t *timeline[T], base uint32) []byte {
	b = binary.AppendUvarint(b, uint64(t.len()))
	st := secWriter{base: base}
	t.each(func(s uint32, n T) {
		b = st.append(b, s)
		b = binary.AppendUvarint(b, uint64(n))
	})
	return b
}

// secWriter writes an ascending list of seconds: the first as an offset
// from base, then each as the gap after the one before, less one.
type secWriter struct {
	base, prev uint32
	started    bool
}

func (w *secWriter) append(b []byte, s uint32) []byte {
	if !w.started {
		w.started = true
		b = binary.AppendVarint(b, int64(s)-int64(w.base))
	} else {
		b = binary.AppendUvarint(b, uint64(s-w.prev-1))
	}
	w.prev = s
	return b
}

func (enc *Encoder) writeSection(payload []byte) error {
	var head [4]byte
	binary.LittleEndian.PutUint32(head[:], uint32(len(payload)))
	var tail [4]byte
	binary.LittleEndian.PutUint32(tail[:], crc32.Checksum(payload, castagnoli))
	for _, p := range [][]byte{head[:], payload, tail[:]} {
		if _, err := enc.w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// Snapshot is a decoded snapshot.
type Snapshot struct {
	Engine  *Engine
	Written time.Time // the clock of the writer when it began
	Meta    []byte
	Marks   [Shards][]byte // each shard's mark
	Kept    []byte         // the caller's last section, nil when there is none
}

// ShardOf returns the shard that holds a product's counts, to index
// Snapshot.Marks.
func ShardOf(ref svc.ProductRef) int { return int(uint64(ref) & (numShards - 1)) }

// LoadSnapshot decodes a snapshot into a new engine with the horizons
// given, on every core. Returns ErrCorrupt for a torn or damaged file and
// ErrMismatch for one of another format version or other horizons.
func LoadSnapshot(r io.Reader, viewHorizon, purchaseHorizon time.Duration) (*Snapshot, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != snapshotMagic {
		return nil, fmt.Errorf("%w: no snapshot header", ErrCorrupt)
	}
	head, err := readSection(br, nil)
	if err != nil {
		return nil, err
	}
	d := decoder{Decoder: binenc.Decoder{B: head}}
	version := d.Uvarint()
	if d.Err == nil && version != snapshotVersion {
		return nil, fmt.Errorf("%w: format version %d, want %d", ErrMismatch, version, snapshotVersion)
	}
	vh, ph := d.Uvarint(), d.Uvarint()
	k0, k1 := d.Uint64(), d.Uint64()
	shards, base := d.Uvarint(), d.Uvarint()
	meta := d.Bytes()
	if d.Err != nil || len(d.B) > 0 || base > math.MaxUint32 {
		return nil, fmt.Errorf("%w: header", ErrCorrupt)
	}
	if shards != numShards || vh != uint64(viewHorizon/time.Second) || ph != uint64(purchaseHorizon/time.Second) {
		return nil, fmt.Errorf("%w: %d shards, horizons %ds and %ds", ErrMismatch, shards, vh, ph)
	}
	snap := &Snapshot{
		Engine:  newKeyed(uint32(vh), uint32(ph), [2]uint64{k0, k1}),
		Written: time.Unix(int64(base), 0).UTC(),
		Meta:    slices.Clone(meta),
	}

	// Sections are read here and decoded by workers, each shard by one;
	// buffers go round, so memory stays a few shards however large the file.
	type job struct {
		i int
		b []byte
	}
	workers := max(runtime.GOMAXPROCS(0), 1)
	jobs := make(chan job)
	free := make(chan []byte, workers+1)
	errs := make([]error, numShards)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				errs[j.i] = snap.decodeShard(j.i, j.b, uint32(base))
				select {
				case free <- j.b:
				default:
				}
			}
		})
	}
	for i := range numShards {
		var buf []byte
		select {
		case buf = <-free:
		default:
		}
		if buf, err = readSection(br, buf); err != nil {
			break
		}
		jobs <- job{i, buf}
	}
	close(jobs)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if _, err := br.Peek(1); err == io.EOF {
		return snap, nil
	}
	if snap.Kept, err = readSection(br, nil); err != nil {
		return nil, err
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the last section", ErrCorrupt)
	}
	return snap, nil
}

// readSection reads one section into buf and checks it.
func readSection(r io.Reader, buf []byte) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, fmt.Errorf("%w: truncated", ErrCorrupt)
	}
	n := int(binary.LittleEndian.Uint32(head[:]))
	if n > maxSection {
		return nil, fmt.Errorf("%w: a section of %d bytes", ErrCorrupt, n)
	}
	// Grown as it is read, so that a damaged length in a short file
	// allocates no more than the file holds.
	buf = buf[:0]
	for len(buf) < n {
		chunk := min(n-len(buf), 1<<20)
		buf = slices.Grow(buf, chunk)
		k, err := io.ReadFull(r, buf[len(buf):len(buf)+chunk])
		buf = buf[:len(buf)+k]
		if err != nil {
			return nil, fmt.Errorf("%w: truncated", ErrCorrupt)
		}
	}
	var tail [4]byte
	if _, err := io.ReadFull(r, tail[:]); err != nil {
		return nil, fmt.Errorf("%w: truncated", ErrCorrupt)
	}
	if crc32.Checksum(buf, castagnoli) != binary.LittleEndian.Uint32(tail[:]) {
		return nil, fmt.Errorf("%w: checksum", ErrCorrupt)
	}
	return buf, nil
}

func (snap *Snapshot) decodeShard(i int, b []byte, base uint32) error {
	d := decoder{Decoder: binenc.Decoder{B: b}, base: base}
	snap.Marks[i] = slices.Clone(d.Bytes())
	n := d.Count(2) // a product takes at least a ref and five counts
	s := &snap.Engine.shards[i]
	s.products = make(map[svc.ProductRef]*product, n)
	var ref svc.ProductRef
	for k := 0; k < n && d.Err == nil; k++ {
		delta := d.Uvarint()
		if (k > 0 && delta == 0) || delta > math.MaxInt64-uint64(ref) {
			d.Fail("product refs out of order")
			break
		}
		ref += svc.ProductRef(delta)
		if ShardOf(ref) != i {
			d.Fail("a product in the wrong shard")
			break
		}
		s.products[ref] = d.product()
	}
	if d.Err == nil && len(d.B) > 0 {
		d.Fail("data after the last product")
	}
	if d.Err != nil {
		return fmt.Errorf("%w: shard %d: %v", ErrCorrupt, i, d.Err)
	}
	return nil
}

// decoder reads a section, whose seconds are offsets from base.
type decoder struct {
	binenc.Decoder
	base uint32
}

// secs reads an ascending list of seconds (see secWriter).
type secReader struct {
	d       *decoder
	prev    uint32
	started bool
}

func (r *secReader) next() uint32 {
	var v int64
	if !r.started {
		r.started = true
		v = int64(r.d.base) + r.d.Varint()
	} else {
		v = int64(r.prev) + 1 + int64(min(r.d.Uvarint(), math.MaxUint32))
	}
	if v < 0 || v > math.MaxUint32 {
		r.d.Fail("a second out of range")
		return 0
	}
	r.prev = uint32(v)
	return r.prev
}

func decodeTimeline[T uint32 | uint64](d *decoder, t *timeline[T]) {
	n := d.Count(2)
	if n == 0 {
		return
	}
	pts := make([]point[T], n)
	r := secReader{d: d}
	for i := range pts {
		pts[i].sec = r.next()
		c := d.Uvarint()
		if uint64(T(c)) != c {
			d.Fail("a count out of range")
		}
		pts[i].tree = T(c)
	}
	if d.Err == nil {
		t.load(pts)
	}
}

func (d *decoder) product() *product {
	p := &product{}
	decodeTimeline(d, &p.views)

	sessions := d.Count(8)
	groups := d.Count(2)
	if sessions > 0 {
		p.latest = fittedSessions(sessions)
		pts := make([]point[uint32], groups)
		r := secReader{d: d}
		total := 0
		for g := 0; g < groups && d.Err == nil; g++ {
			s := r.next()
			k := d.Count(8)
			if k == 0 || total+k > sessions {
				d.Fail("an empty group of sessions, or more than counted")
				break
			}
			pts[g] = point[uint32]{s, uint32(k)}
			for range k {
				h := d.Uint64()
				if h == 0 {
					d.Fail("session hash 0")
					break
				}
				p.latest.put(h, s)
			}
			total += k
		}
		if d.Err == nil && (total != sessions || p.latest.len() != sessions) {
			d.Fail("sessions counted twice or missing")
		}
		if d.Err == nil {
			p.viewers.load(pts)
		}
	}

	var orders timeline[uint32]
	var units timeline[uint64]
	decodeTimeline(d, &orders)
	decodeTimeline(d, &units)
	if !orders.empty() || !units.empty() {
		p.extra().orders, p.extra().units = orders, units
	}
	if n := d.Count(10); n > 0 {
		m := p.extra()
		m.pending = make([]pending, n)
		for i := range m.pending {
			s := int64(d.base) + d.Varint()
			session := d.Uint64()
			units := d.Uvarint()
			if s < 0 || s > math.MaxUint32 || units > math.MaxUint32 {
				d.Fail("a pending event out of range")
				break
			}
			m.pending[i] = pending{sec: uint32(s), session: session, units: uint32(units)}
		}
	}
	return p
}
