// Package binenc holds what the snapshot's binary encodings share
// (internal/window's counts, internal/purchasefeed's recent purchases,
// internal/prices' prices paid): strings framed by their length, and a
// decoder whose first error sticks, which never allocates more than the
// data it reads could hold.
package binenc

import (
	"encoding/binary"
	"errors"
)

// AppendBytes appends v, framed by its length.
func AppendBytes(b, v []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

// AppendString appends s, framed by its length.
func AppendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// Decoder reads B; the first error sticks in Err, and every read after it
// returns zero.
type Decoder struct {
	B   []byte
	Err error
}

// Fail records what was wrong, unless something was before, and stops
// the reading.
func (d *Decoder) Fail(what string) {
	if d.Err == nil {
		d.Err = errors.New(what)
	}
	d.B = nil
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Fail("bad number")
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Varint reads a signed varint.
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.B)
	if n <= 0 {
		d.Fail("bad number")
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Uint64 reads eight bytes, little-endian.
func (d *Decoder) Uint64() uint64 {
	if len(d.B) < 8 {
		d.Fail("short")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.B)
	d.B = d.B[8:]
	return v
}

// Bytes reads what AppendBytes wrote; the result shares B.
func (d *Decoder) Bytes() []byte {
	n := d.Count(1)
	v := d.B[:n]
	d.B = d.B[n:]
	return v
}

// String reads what AppendString wrote.
func (d *Decoder) String() string { return string(d.Bytes()) }

// Count reads a number of items that take at least size bytes each, so
// that a damaged count cannot make a large allocation.
func (d *Decoder) Count(size int) int {
	n := d.Uvarint()
	if n > uint64(len(d.B)/size) {
		d.Fail("count beyond the data")
		return 0
	}
	return int(n)
}
