// Package products finds a product's store reference by its brand and its
// own id, as every proof does before it reads the counts.
package products

import (
	"hash/maphash"
	"strings"
	"sync"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/hashtable"
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
// slots (internal/hashtable) maps a hash to a position, so the collector
// has nothing to scan.
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
	// slots: an entry's hash to its index; entries whose hashes share
	// their high 32 bits are told apart by their ids.
	slots   hashtable.Table
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
	s.slots.Add(h, i)
}

func (s *shard) find(h uint64, brandID, productID string) (uint32, bool) {
	for p := s.slots.Probe(h); ; {
		i, ok := p.Next()
		if !ok || s.is(i, brandID, productID) {
			return i, ok
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
