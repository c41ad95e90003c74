// Package products finds a product's store reference by its brand and its
// own id, as every proof does before it reads the counts.
package products

import (
	"hash/maphash"
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
// It holds a million products without a heap object each: the ids live in
// one byte array per shard, and the tables map a 64-bit hash to a position,
// so the collector has nothing to scan.
type Index struct {
	seed   maphash.Seed
	shards [shards]shard
}

type shard struct {
	mu      sync.RWMutex
	first   map[uint64]uint32   // hash → the entry with it
	more    map[uint64][]uint32 // hash → the other entries with it: almost never any
	entries []entry
	ids     []byte // each entry's brand id, then its product id
	_       [64]byte
}

type entry struct {
	ref            svc.ProductRef
	off            uint32 // of the ids in shard.ids
	brand, product uint16 // lengths of the ids
}

// New returns an empty index.
func New() *Index {
	x := &Index{seed: maphash.MakeSeed()}
	for i := range x.shards {
		x.shards[i].first = make(map[uint64]uint32)
	}
	return x
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

// maxLen is the longest id an entry can hold, in bytes: four times
// svc.MaxIDLen characters would do.
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
	i := uint32(len(s.entries))
	s.entries = append(s.entries, entry{ref: ref, off: uint32(len(s.ids)), brand: uint16(len(brandID)), product: uint16(len(productID))})
	s.ids = append(append(s.ids, brandID...), productID...)
	if _, taken := s.first[h]; !taken {
		s.first[h] = i
		return
	}
	if s.more == nil {
		s.more = make(map[uint64][]uint32)
	}
	s.more[h] = append(s.more[h], i)
}

func (s *shard) find(h uint64, brandID, productID string) (uint32, bool) {
	i, ok := s.first[h]
	if !ok {
		return 0, false
	}
	if s.is(i, brandID, productID) {
		return i, true
	}
	for _, i := range s.more[h] {
		if s.is(i, brandID, productID) {
			return i, true
		}
	}
	return 0, false
}

// is reports whether entry i has the ids.
func (s *shard) is(i uint32, brandID, productID string) bool {
	e := &s.entries[i]
	if int(e.brand) != len(brandID) || int(e.product) != len(productID) {
		return false
	}
	ids := s.ids[e.off : e.off+uint32(e.brand)+uint32(e.product)]
	return string(ids[:e.brand]) == brandID && string(ids[e.brand:]) == productID
}
