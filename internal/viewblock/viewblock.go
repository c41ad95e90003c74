// Package viewblock encodes a commit group's views as one compact block,
// column by column, for both stores (docs/decisions.md, "Views in blocks";
// docs/storage.md). Views are written once and read back in bulk (replay,
// the change feed, export, rollups), or rarely by session (erasure): a
// block costs the store one row where each view cost two B-tree inserts.
//
// A block is version byte 1, then the number of views, then each column:
// positions (the first, then deltas), event ids (16 bytes each when every
// one is a canonical UUID, else length-prefixed), brand (a dictionary),
// product (zigzag deltas), time (zigzag deltas), the client's time (a
// presence bitmap, then zigzag deltas from the time), the time received
// (zigzag deltas from the time), session, country, locale and arm
// (dictionaries: the strings once, then an index per view, 0 for none),
// and keyed (a bitmap). Varints and dictionaries are the compression: a
// general compressor would cost the write path CPU for the few bytes that
// random event ids and sessions leave it.
package viewblock

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// View is a stored view with every column the stores keep.
type View struct {
	Pos        int64 // its position in the event log, unique and growing in commit order
	EventID    string
	Brand      string
	Product    int64 // the store's product ref
	TS         int64 // unix milliseconds, as the stores keep times: when it counts
	GivenTS    int64 // the client's time when it was replaced; HasGiven says whether
	HasGiven   bool
	ReceivedAt int64
	Session    string // "" with HasSession false: none (NULL)
	Country    string
	Locale     string
	HasSession bool
	HasCountry bool
	HasLocale  bool
	Keyed      bool
	Arm        string
}

const version = 1

// ErrCorrupt is returned for a block that does not decode.
var ErrCorrupt = errors.New("viewblock: corrupt block")

// Encoder encodes blocks, reusing its buffers from one to the next.
type Encoder struct {
	buf  []byte
	dict map[string]uint64
	list []string
	idx  []uint64
}

// Encode returns the block of views, in their order, in a buffer the
// next call reuses.
func (e *Encoder) Encode(views []View) []byte {
	b := append(e.buf[:0], version)
	b = binary.AppendUvarint(b, uint64(len(views)))
	if len(views) > 0 {
		b = binary.AppendVarint(b, views[0].Pos)
		for i := 1; i < len(views); i++ {
			b = binary.AppendVarint(b, views[i].Pos-views[i-1].Pos)
		}
	}
	uuids := true
	for i := range views {
		if !isUUID(views[i].EventID) {
			uuids = false
			break
		}
	}
	if uuids {
		b = append(b, 0)
		for i := range views {
			b = appendUUID(b, views[i].EventID)
		}
	} else {
		b = append(b, 1)
		for i := range views {
			b = binary.AppendUvarint(b, uint64(len(views[i].EventID)))
			b = append(b, views[i].EventID...)
		}
	}
	b = e.dictColumn(b, views, func(v *View) (string, bool) { return v.Brand, true })
	var prev int64
	for i := range views {
		b = binary.AppendVarint(b, views[i].Product-prev)
		prev = views[i].Product
	}
	prev = 0
	for i := range views {
		b = binary.AppendVarint(b, views[i].TS-prev)
		prev = views[i].TS
	}
	b = appendBits(b, views, func(v *View) bool { return v.HasGiven })
	for i := range views {
		if views[i].HasGiven {
			b = binary.AppendVarint(b, views[i].GivenTS-views[i].TS)
		}
	}
	for i := range views {
		b = binary.AppendVarint(b, views[i].ReceivedAt-views[i].TS)
	}
	b = e.dictColumn(b, views, func(v *View) (string, bool) { return v.Session, v.HasSession })
	b = e.dictColumn(b, views, func(v *View) (string, bool) { return v.Country, v.HasCountry })
	b = e.dictColumn(b, views, func(v *View) (string, bool) { return v.Locale, v.HasLocale })
	b = e.dictColumn(b, views, func(v *View) (string, bool) { return v.Arm, true })
	b = appendBits(b, views, func(v *View) bool { return v.Keyed })
	e.buf = b
	return b
}

func (e *Encoder) dictColumn(b []byte, views []View, get func(*View) (string, bool)) []byte {
	if e.dict == nil {
		e.dict = make(map[string]uint64)
	}
	clear(e.dict)
	e.list, e.idx = e.list[:0], e.idx[:0]
	for i := range views {
		s, ok := get(&views[i])
		if !ok {
			e.idx = append(e.idx, 0)
			continue
		}
		n, seen := e.dict[s]
		if !seen {
			e.list = append(e.list, s)
			n = uint64(len(e.list))
			e.dict[s] = n
		}
		e.idx = append(e.idx, n)
	}
	b = binary.AppendUvarint(b, uint64(len(e.list)))
	for _, s := range e.list {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, n := range e.idx {
		b = binary.AppendUvarint(b, n)
	}
	return b
}

func appendBits(b []byte, views []View, get func(*View) bool) []byte {
	var cur byte
	for i := range views {
		if get(&views[i]) {
			cur |= 1 << (i % 8)
		}
		if i%8 == 7 {
			b = append(b, cur)
			cur = 0
		}
	}
	if len(views)%8 != 0 {
		b = append(b, cur)
	}
	return b
}

// isUUID reports whether s is a UUID as the tracker writes them: 36
// characters, lower-case hex, dashes at 8, 13, 18 and 23.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}

func appendUUID(b []byte, s string) []byte {
	var raw [16]byte
	j := 0
	for i := 0; i < 36; i += 2 {
		if s[i] == '-' {
			i--
			continue
		}
		raw[j] = unhex(s[i])<<4 | unhex(s[i+1])
		j++
	}
	return append(b, raw[:]...)
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

func formatUUID(raw []byte) string {
	var s [36]byte
	hex.Encode(s[0:8], raw[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], raw[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], raw[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], raw[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], raw[10:16])
	return string(s[:])
}

// Columns chooses what Decode fills in: a replay needs neither event ids
// nor locales, and skipping them is most of a decode's allocations.
type Columns uint8

const (
	All      Columns = 0
	NoIDs    Columns = 1 << iota // EventID stays ""
	NoDetail                     // Country, Locale, GivenTS, ReceivedAt, Keyed stay unset
)

// Decoder decodes blocks, reusing its buffers.
type Decoder struct {
	dict []string
}

type reader struct {
	b   []byte
	err bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = true
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = true
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(n uint64) []byte {
	if uint64(len(r.b)) < n {
		r.err = true
		r.b = nil
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

// Count returns the number of views of a block without decoding it.
func Count(data []byte) (int, error) {
	if len(data) == 0 || data[0] != version {
		return 0, ErrCorrupt
	}
	r := reader{b: data[1:]}
	n := r.uvarint()
	if r.err {
		return 0, ErrCorrupt
	}
	return int(n), nil
}

// Decode appends the views of a block to dst and returns it. Strings are
// allocated once per distinct value of a block, and shared by its views.
func (d *Decoder) Decode(data []byte, dst []View, cols Columns) ([]View, error) {
	if len(data) == 0 || data[0] != version {
		return dst, ErrCorrupt
	}
	r := reader{b: data[1:]}
	n := r.uvarint()
	if r.err || n > uint64(len(data)) {
		return dst, ErrCorrupt
	}
	start := len(dst)
	dst = grow(dst, int(n))
	vs := dst[start:]
	var prev int64
	for i := range vs {
		vs[i] = View{}
		if i == 0 {
			prev = r.varint()
		} else {
			prev += r.varint()
		}
		vs[i].Pos = prev
	}
	switch kind := r.bytes(1); {
	case r.err:
	case kind[0] == 0:
		raw := r.bytes(16 * n)
		if cols&NoIDs == 0 && !r.err {
			for i := range vs {
				vs[i].EventID = formatUUID(raw[16*i : 16*i+16])
			}
		}
	default:
		for i := range vs {
			b := r.bytes(r.uvarint())
			if cols&NoIDs == 0 {
				vs[i].EventID = string(b)
			}
		}
	}
	d.column(&r, vs, true, func(v *View, s string, ok bool) { v.Brand = s })
	prev = 0
	for i := range vs {
		prev += r.varint()
		vs[i].Product = prev
	}
	prev = 0
	for i := range vs {
		prev += r.varint()
		vs[i].TS = prev
	}
	bits := r.bytes((n + 7) / 8)
	for i := range vs {
		if !r.err && bits[i/8]&(1<<(i%8)) != 0 {
			g := r.varint()
			if cols&NoDetail == 0 {
				vs[i].HasGiven, vs[i].GivenTS = true, vs[i].TS+g
			}
		}
	}
	for i := range vs {
		rec := r.varint()
		if cols&NoDetail == 0 {
			vs[i].ReceivedAt = vs[i].TS + rec
		}
	}
	d.column(&r, vs, true, func(v *View, s string, ok bool) { v.Session, v.HasSession = s, ok })
	detail := cols&NoDetail == 0
	d.column(&r, vs, detail, func(v *View, s string, ok bool) { v.Country, v.HasCountry = s, ok })
	d.column(&r, vs, detail, func(v *View, s string, ok bool) { v.Locale, v.HasLocale = s, ok })
	d.column(&r, vs, true, func(v *View, s string, ok bool) { v.Arm = s })
	bits = r.bytes((n + 7) / 8)
	if r.err || len(r.b) != 0 {
		return dst[:start], ErrCorrupt
	}
	if detail {
		for i := range vs {
			vs[i].Keyed = bits[i/8]&(1<<(i%8)) != 0
		}
	}
	return dst, nil
}

func (d *Decoder) column(r *reader, vs []View, keep bool, set func(v *View, s string, ok bool)) {
	k := r.uvarint()
	if r.err || k > uint64(len(r.b)) {
		r.err = true
		return
	}
	d.dict = d.dict[:0]
	for range k {
		b := r.bytes(r.uvarint())
		if keep {
			d.dict = append(d.dict, string(b))
		}
	}
	for i := range vs {
		j := r.uvarint()
		if r.err || j > k {
			r.err = true
			return
		}
		if !keep {
			continue
		}
		if j == 0 {
			set(&vs[i], "", false)
		} else {
			set(&vs[i], d.dict[j-1], true)
		}
	}
}

func grow(dst []View, n int) []View {
	if cap(dst)-len(dst) < n {
		out := make([]View, len(dst), len(dst)+n+len(dst)/4)
		copy(out, dst)
		dst = out
	}
	return dst[:len(dst)+n]
}

// Contains reports whether a block may hold the string s (a session id):
// false is certain, true is to be decoded. Strings are stored as they are,
// so a store may ask the same where the blocks are (instr, position).
func Contains(data []byte, s string) bool { return strings.Contains(string(data), s) }

// Describe returns a short description of a block, for errors.
func Describe(data []byte) string {
	n, err := Count(data)
	if err != nil {
		return fmt.Sprintf("block of %d bytes (corrupt)", len(data))
	}
	return fmt.Sprintf("block of %d views in %d bytes", n, len(data))
}
