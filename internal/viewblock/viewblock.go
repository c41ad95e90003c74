// Package viewblock encodes the views of one commit group as one compact
// block (docs/decisions.md, Views in blocks): both stores keep a block
// per group instead of a row and its B-tree entries per view.
//
// A block is columnar: a version byte, the number of views, a table of
// the distinct strings (brands, sessions, countries, locales, arms), then
// each column in turn, its values as varints: ids and times as deltas
// from the one before, received and given times as offsets from the
// view's time, strings as indexes in the table, event ids that are
// canonical UUIDs as their 16 bytes.
package viewblock

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
)

// View is a stored view, every column of the store's former view_events.
type View struct {
	ID         int64 // the event's own id in the log (the change feed's)
	EventID    string
	Brand      string
	Product    int64 // the product's ref
	TS         int64 // unix ms, when it counts
	ReceivedAt int64
	Given      int64 // the client's timestamp when it was replaced; if HasGiven
	HasGiven   bool
	// Session, Country and Locale are NULL unless their Has flag is set.
	Session, Country, Locale          string
	HasSession, HasCountry, HasLocale bool
	Keyed                             bool
	Arm                               string
}

const version = 1

// The flags column's bits.
const (
	fSession = 1 << iota
	fCountry
	fLocale
	fGiven
	fKeyed
)

// Append appends the block of views, which must be in id order, to dst.
func Append(dst []byte, views []View) []byte {
	dict := make(map[string]uint64, 8)
	var strs []string
	index := func(s string) uint64 {
		i, ok := dict[s]
		if !ok {
			i = uint64(len(strs))
			dict[s] = i
			strs = append(strs, s)
		}
		return i
	}
	// Strings are indexed first, so that the table comes before the columns.
	for i := range views {
		v := &views[i]
		index(v.Brand)
		index(v.Arm)
		if v.HasSession {
			index(v.Session)
		}
		if v.HasCountry {
			index(v.Country)
		}
		if v.HasLocale {
			index(v.Locale)
		}
	}
	dst = append(dst, version)
	dst = binary.AppendUvarint(dst, uint64(len(views)))
	dst = binary.AppendUvarint(dst, uint64(len(strs)))
	for _, s := range strs {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	var prev int64
	for i := range views { // ids: the first, then the steps (1 but after an erasure)
		dst = binary.AppendVarint(dst, views[i].ID-prev)
		prev = views[i].ID
	}
	for i := range views {
		dst = appendEventID(dst, views[i].EventID)
	}
	for i := range views {
		dst = binary.AppendUvarint(dst, dict[views[i].Brand])
	}
	prev = 0
	for i := range views {
		dst = binary.AppendVarint(dst, views[i].Product-prev)
		prev = views[i].Product
	}
	prev = 0
	for i := range views {
		dst = binary.AppendVarint(dst, views[i].TS-prev)
		prev = views[i].TS
	}
	for i := range views {
		dst = binary.AppendVarint(dst, views[i].ReceivedAt-views[i].TS)
	}
	for i := range views {
		v := &views[i]
		var f byte
		for _, b := range [...]struct {
			on  bool
			bit byte
		}{{v.HasSession, fSession}, {v.HasCountry, fCountry}, {v.HasLocale, fLocale}, {v.HasGiven, fGiven}, {v.Keyed, fKeyed}} {
			if b.on {
				f |= b.bit
			}
		}
		dst = append(dst, f)
	}
	for i := range views {
		if views[i].HasGiven {
			dst = binary.AppendVarint(dst, views[i].Given-views[i].TS)
		}
	}
	for i := range views {
		if views[i].HasSession {
			dst = binary.AppendUvarint(dst, dict[views[i].Session])
		}
	}
	for i := range views {
		if views[i].HasCountry {
			dst = binary.AppendUvarint(dst, dict[views[i].Country])
		}
	}
	for i := range views {
		if views[i].HasLocale {
			dst = binary.AppendUvarint(dst, dict[views[i].Locale])
		}
	}
	for i := range views {
		dst = binary.AppendUvarint(dst, dict[views[i].Arm])
	}
	return dst
}

// appendEventID writes a canonical UUID (lowercase, hyphenated) as a 0 and
// its 16 bytes, and any other id as its length plus one and its bytes.
func appendEventID(dst []byte, id string) []byte {
	if u, ok := parseUUID(id); ok {
		dst = append(dst, 0)
		return append(dst, u[:]...)
	}
	dst = binary.AppendUvarint(dst, uint64(len(id))+1)
	return append(dst, id...)
}

func parseUUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 {
		return u, false
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 { // the hyphens' places, and only theirs
			if s[i] != '-' {
				return u, false
			}
			i++
			continue
		}
		hi, lo := unhex(s[i]), unhex(s[i+1])
		if hi > 15 || lo > 15 {
			return u, false
		}
		u[j] = hi<<4 | lo
		i, j = i+2, j+1
	}
	return u, true
}

// unhex is a lowercase hex digit's value, 16 for any other byte: an
// uppercase UUID is kept as text, so that it reads back as it came.
func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return 16
}

func formatUUID(u []byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// ErrCorrupt is returned for a block that does not decode.
var ErrCorrupt = errors.New("viewblock: corrupt block")

type reader struct {
	b   []byte
	err error
}

// uvarint reads a uvarint; one of a byte, most of a block's, inline.
func (r *reader) uvarint() uint64 {
	if b := r.b; len(b) > 0 && b[0] < 0x80 {
		r.b = b[1:]
		return uint64(b[0])
	}
	return r.longUvarint()
}

func (r *reader) longUvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// varint reads a varint; one of a byte inline, as uvarint.
func (r *reader) varint() int64 {
	if b := r.b; len(b) > 0 && b[0] < 0x80 {
		r.b = b[1:]
		return int64(b[0]>>1) ^ -int64(b[0]&1) // zigzag, as binary.Varint
	}
	return r.longVarint()
}

func (r *reader) longVarint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(n uint64) []byte {
	if uint64(len(r.b)) < n {
		r.fail()
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = ErrCorrupt
	}
	r.b = nil
}

// minViewBytes is the least a view takes: a byte each of its id, event
// id, brand, product, time, received time, flags and arm.
const minViewBytes = 8

// Decode appends the views of the block b to dst.
func Decode(dst []View, b []byte) ([]View, error) { return decode(dst, b, true) }

// DecodeCounted appends the views of the block b to dst without their
// event ids, which what counts views (a replay) never reads: a string of
// 36 bytes a view was a third of a full replay's garbage.
func DecodeCounted(dst []View, b []byte) ([]View, error) { return decode(dst, b, false) }

func decode(dst []View, b []byte, eventIDs bool) ([]View, error) {
	if len(b) == 0 || b[0] != version {
		return dst, fmt.Errorf("viewblock: version %v: %w", b[:min(len(b), 1)], ErrCorrupt)
	}
	r := &reader{b: b[1:]}
	n := r.uvarint()
	ns := r.uvarint()
	// A view takes at least minViewBytes and a string a byte: a count
	// beyond what the block's length holds is corrupt, not a reason to
	// allocate.
	if n > uint64(len(b))/minViewBytes || ns > uint64(len(b)) {
		return dst, ErrCorrupt
	}
	strs := make([]string, ns)
	for i := range strs {
		strs[i] = string(r.bytes(r.uvarint()))
	}
	str := func() string {
		i := r.uvarint()
		if i >= uint64(len(strs)) {
			r.fail()
			return ""
		}
		return strs[i]
	}
	start := len(dst)
	dst = append(dst, make([]View, n)...)
	vs := dst[start:]
	var prev int64
	for i := range vs {
		prev += r.varint()
		vs[i].ID = prev
	}
	for i := range vs {
		k := r.uvarint()
		switch {
		case k == 0:
			u := r.bytes(16)
			if r.err != nil || !eventIDs {
				break
			}
			vs[i].EventID = formatUUID(u)
		case eventIDs:
			vs[i].EventID = string(r.bytes(k - 1))
		default:
			r.bytes(k - 1)
		}
	}
	for i := range vs {
		vs[i].Brand = str()
	}
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
	for i := range vs {
		vs[i].ReceivedAt = vs[i].TS + r.varint()
	}
	flags := r.bytes(n)
	if r.err != nil {
		return dst[:start], r.err
	}
	for i := range vs {
		f := flags[i]
		v := &vs[i]
		v.HasSession, v.HasCountry, v.HasLocale, v.HasGiven, v.Keyed = f&fSession != 0, f&fCountry != 0, f&fLocale != 0, f&fGiven != 0, f&fKeyed != 0
		if f >= fKeyed<<1 {
			r.fail()
		}
	}
	for i := range vs {
		if vs[i].HasGiven {
			vs[i].Given = vs[i].TS + r.varint()
		}
	}
	for i := range vs {
		if vs[i].HasSession {
			vs[i].Session = str()
		}
	}
	for i := range vs {
		if vs[i].HasCountry {
			vs[i].Country = str()
		}
	}
	for i := range vs {
		if vs[i].HasLocale {
			vs[i].Locale = str()
		}
	}
	for i := range vs {
		vs[i].Arm = str()
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	if r.err != nil {
		return dst[:start], r.err
	}
	return dst, nil
}

// Counted is a stored view as a replay counts it: its session as the
// hash that the counting engine keeps, 0 for none.
type Counted struct {
	ID, Product, TS int64
	Session         uint64
}

// CountDecoder decodes blocks into Counted views, hashing each distinct
// session of a block once and decoding no string: a replay of 20 million
// views decoded a string a view, then hashed it. Its tables are reused
// from one block to the next; it is not safe for concurrent use.
type CountDecoder struct {
	// Hash is the session hash of the engine the views go to; it is
	// called with bytes it must not keep.
	Hash   func(session []byte) uint64
	strs   [][]byte // the block's string table, slices of the block
	hashes []uint64 // Hash of strs[i], when hashed[i]
	hashed []bool
}

// Decode appends the views of the block b to dst, with the errors of
// Decode for a block it cannot read.
func (d *CountDecoder) Decode(dst []Counted, b []byte) ([]Counted, error) {
	if len(b) == 0 || b[0] != version {
		return dst, fmt.Errorf("viewblock: version %v: %w", b[:min(len(b), 1)], ErrCorrupt)
	}
	r := &reader{b: b[1:]}
	n := r.uvarint()
	ns := r.uvarint()
	if n > uint64(len(b))/minViewBytes || ns > uint64(len(b)) {
		return dst, ErrCorrupt
	}
	d.strs = d.strs[:0]
	for range ns {
		d.strs = append(d.strs, r.bytes(r.uvarint()))
	}
	d.hashes = append(d.hashes[:0], make([]uint64, ns)...)
	d.hashed = append(d.hashed[:0], make([]bool, ns)...)
	index := func() uint64 { // a string's index, checked as Decode checks it
		i := r.uvarint()
		if i >= ns {
			r.fail()
			return 0
		}
		return i
	}
	start := len(dst)
	dst = append(dst, make([]Counted, n)...)
	vs := dst[start:]
	var prev int64
	for i := range vs {
		prev += r.varint()
		vs[i].ID = prev
	}
	for range vs { // event ids, which counting never reads
		if k := r.uvarint(); k == 0 {
			r.bytes(16)
		} else {
			r.bytes(k - 1)
		}
	}
	for range vs { // brands
		index()
	}
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
	for range vs { // received times
		r.varint()
	}
	flags := r.bytes(n)
	if r.err != nil {
		return dst[:start], r.err
	}
	for _, f := range flags {
		if f >= fKeyed<<1 {
			r.fail()
		}
	}
	for _, f := range flags {
		if f&fGiven != 0 {
			r.varint()
		}
	}
	for i, f := range flags {
		if f&fSession == 0 {
			continue
		}
		s := index()
		if r.err != nil {
			break
		}
		if !d.hashed[s] {
			d.hashes[s], d.hashed[s] = d.Hash(d.strs[s]), true
		}
		vs[i].Session = d.hashes[s]
	}
	for _, f := range flags {
		if f&fCountry != 0 {
			index()
		}
	}
	for _, f := range flags {
		if f&fLocale != 0 {
			index()
		}
	}
	for range vs { // arms
		index()
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	if r.err != nil {
		return dst[:start], r.err
	}
	return dst, nil
}
