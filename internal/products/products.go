// Package products finds a product's store reference by its brand and its
// own id, as every proof does before it reads the counts.
package products

import (
	"hash/maphash"
	"math/bits"
	"strings"
	"sync"

	"github.com/svc-project/svc"
)

// shards: a proof read locks one shard of many, so that concurrent reads
// seldom share a lock's cache line, and a new product, the only write,
// holds up the reads of a sixty-fourth of the products for a moment.
const shards = 64

// Index maps (brand id, product id) to the store's reference. It is safe
// for concurrent use, and is read far more often than written: a product
// is added once, when its first event commits.
//
// It holds a million products without a heap object each: the product ids
// live in one byte array per shard, and an open-addressing table of 8-byte
// slots maps a hash to a position, so the collector has nothing to scan.
// (Go maps of a hash to a position took 16 bytes a slot at up to 7/8
// full, 30 of the index's 79 MiB with a million products; the table takes
// 11 to 21 bytes a product.) A brand's id is held once a shard, not once a
// product: a brand has many products, and its id was most of the bytes.
type Index struct {
	seed   maphash.Seed
	shards [shards]shard
}

type shard struct {
	mu sync.RWMutex
	// slots: the high 32 bits of an entry's hash, then its index plus
	// one; 0 is free. At most 3/4 full, probed linearly: entries whose
	// hashes share those bits are told apart by their ids.
	slots   []uint64
	entries []entry
	ids     []byte // each entry's product id, in the entries' order
	brands  []string
	brandAt map[string]uint32 // index in brands
	_       [64]byte
}

type entry struct {
	ref   svc.ProductRef
	off   uint32 // of the product id in shard.ids; the next entry's ends it
	brand uint32 // index in shard.brands
}

// New returns an empty index.
func New() *Index {
	return &Index{seed: maphash.MakeSeed()}
}

func (x *Index) hash(brandID, productID string) uint64 {
	return maphash.String(x.seed, brandID)*0x9e3779b97f4a7c15 ^ maphash.String(x.seed, productID)
}

// Ref returns the reference of a brand's product.
func (x *Index) Ref(brandID, productID string) (svc.ProductRef, bool) {
	h := x.hash(brandID, productID)
	s := &x.shards[h%shards]
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.find(h, brandID, productID)
	if !ok {
		return 0, false
	}
	return s.entries[i].ref, true
}

// Put records a product's reference, or its new one.
func (x *Index) Put(brandID, productID string, ref svc.ProductRef) {
	if len(brandID) > maxLen || len(productID) > maxLen {
		return // longer than any valid id: never asked for
	}
	h := x.hash(brandID, productID)
	s := &x.shards[h%shards]
	s.mu.RLock()
	i, ok := s.find(h, brandID, productID)
	same := ok && s.entries[i].ref == ref
	s.mu.RUnlock()
	if same {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(h, brandID, productID, ref)
}

// maxLen is longer than any valid id, in bytes: four times svc.MaxIDLen
// characters would do.
const maxLen = 1<<16 - 1

// Len returns how many products the index holds.
func (x *Index) Len() int {
	n := 0
	for i := range x.shards {
		s := &x.shards[i]
		s.mu.RLock()
		n += len(s.entries)
		s.mu.RUnlock()
	}
	return n
}

func (s *shard) put(h uint64, brandID, productID string, ref svc.ProductRef) {
	if i, ok := s.find(h, brandID, productID); ok {
		s.entries[i].ref = ref
		return
	}
	b, ok := s.brandAt[brandID]
	if !ok {
		if s.brandAt == nil {
			s.brandAt = make(map[string]uint32)
		}
		b = uint32(len(s.brands))
		brandID = strings.Clone(brandID) // not the caller's larger string
		s.brands = append(s.brands, brandID)
		s.brandAt[brandID] = b
	}
	i := uint32(len(s.entries))
	s.entries = append(s.entries, entry{ref: ref, off: uint32(len(s.ids)), brand: b})
	s.ids = append(s.ids, productID...)
	if 4*len(s.entries) > 3*len(s.slots) {
		old := s.slots
		s.slots = make([]uint64, max(16, 2*len(old)))
		for _, slot := range old {
			if slot != 0 {
				s.place(slot)
			}
		}
	}
	s.place(h&^0xffffffff | (uint64(i) + 1))
}

// place puts a slot in the first free one from its home.
func (s *shard) place(slot uint64) {
	for j := s.home(slot); ; j = s.next(j) {
		if s.slots[j] == 0 {
			s.slots[j] = slot
			return
		}
	}
}

// home is where the probe for a hash, or a slot, starts: its high 32
// bits, spread over the table by Fibonacci hashing and a multiply.
func (s *shard) home(h uint64) int {
	hi, _ := bits.Mul64((h>>32)*0x9e3779b97f4a7c15, uint64(len(s.slots)))
	return int(hi)
}

func (s *shard) next(j int) int {
	if j++; j == len(s.slots) {
		return 0
	}
	return j
}

func (s *shard) find(h uint64, brandID, productID string) (uint32, bool) {
	if len(s.slots) == 0 {
		return 0, false
	}
	for j := s.home(h); ; j = s.next(j) {
		slot := s.slots[j]
		if slot == 0 {
			return 0, false
		}
		if slot>>32 == h>>32 {
			if i := uint32(slot) - 1; s.is(i, brandID, productID) {
				return i, true
			}
		}
	}
}

// is reports whether entry i has the ids.
func (s *shard) is(i uint32, brandID, productID string) bool {
	end := uint32(len(s.ids))
	if int(i)+1 < len(s.entries) {
		end = s.entries[i+1].off
	}
	off := s.entries[i].off
	return int(end-off) == len(productID) && string(s.ids[off:end]) == productID &&
		s.brands[s.entries[i].brand] == brandID
}
