// Package window counts events per product in sliding windows, exactly to
// the second, from memory. It does no I/O: the caller feeds it the events a
// store accepted, and rebuilds it from the store at start.
package window

import (
	"crypto/rand"
	"encoding/binary"
	"math"
	"sync"
	"time"
	"unsafe"

	"github.com/dchest/siphash"

	"github.com/svc-project/svc"
)

const numShards = 256 // a power of two; enough that readers rarely meet

// Engine holds the recent events of every product as timelines of per-second
// counts. Reads cost O(log n) in the product's distinct seconds, whatever
// the history; a product whose events have all aged out is dropped by Sweep.
// It is safe for concurrent use.
type Engine struct {
	viewHorizon     uint32 // seconds of view history kept: the largest view window
	purchaseHorizon uint32
	key             [2]uint64 // of SessionHash: secret, and kept in snapshots
	shards          [numShards]shard
}

type shard struct {
	mu       sync.Mutex
	products map[svc.ProductRef]*product
}

// product is the counts of one product. A million of them are held at
// once, so what most products lack is behind one pointer.
type product struct {
	views   timeline[uint32]
	viewers timeline[uint32] // one count per session, at the session's latest view
	latest  sessions         // session hash -> second of its latest view
	more    *more            // allocated on the first purchase or future event
}

// more is what few products have: purchases and events not yet due.
type more struct {
	orders  timeline[uint32] // empty when no purchase is in the window
	units   timeline[uint64]
	pending []pending // events dated after now when they came
}

func (p *product) extra() *more {
	if p.more == nil {
		p.more = new(more)
	}
	return p.more
}

// pending is an event with a future timestamp (a keyed event may be up to
// svc.ClockSkew ahead). It joins the timelines when its second comes, so
// that a window (now-w, now] never counts it early and a session's latest
// view is always one that counts.
type pending struct {
	sec     uint32
	session uint64
	units   uint32 // 0 for a view
}

// New returns an engine that can answer windows up to viewHorizon and
// purchaseHorizon.
func New(viewHorizon, purchaseHorizon time.Duration) *Engine {
	var key [16]byte
	rand.Read(key[:]) // never fails (crypto/rand)
	return newKeyed(uint32(viewHorizon/time.Second), uint32(purchaseHorizon/time.Second),
		[2]uint64{binary.LittleEndian.Uint64(key[:8]), binary.LittleEndian.Uint64(key[8:])})
}

func newKeyed(viewHorizon, purchaseHorizon uint32, key [2]uint64) *Engine {
	e := &Engine{viewHorizon: viewHorizon, purchaseHorizon: purchaseHorizon, key: key}
	for i := range e.shards {
		e.shards[i].products = make(map[svc.ProductRef]*product)
	}
	return e
}

// Counts are the counts of one product in its windows.
type Counts struct {
	Views     int64
	Viewers   int64
	Purchases int64
	Units     int64
}

// sec converts a time to the engine's unit, whole seconds since 1970.
func sec(t time.Time) uint32 {
	s := t.Unix()
	if s < 0 {
		return 0
	}
	if s > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(s)
}

func (e *Engine) shard(ref svc.ProductRef) *shard {
	return &e.shards[uint64(ref)&(numShards-1)]
}

// SessionHash maps a session id to the 64-bit key the engine keeps; the
// empty id (no session) maps to 0, which no viewer count includes. Two
// sessions of one product collide with odds of about n²/2⁶⁵.
//
// It is SipHash-2-4 under the engine's random key: a keyed hash made
// against hash flooding, so clients cannot pick ids that pile up in one
// product's session table, and one whose key a snapshot can carry over a
// restart (maphash's seed cannot be saved).
func (e *Engine) SessionHash(sessionID string) uint64 {
	// Hash only reads its input: the string's bytes need no copy.
	return e.SessionHashBytes(unsafe.Slice(unsafe.StringData(sessionID), len(sessionID)))
}

// SessionHashBytes is SessionHash of the session id whose bytes are b,
// without a string: a replay hashes sessions as a stored block holds them.
func (e *Engine) SessionHashBytes(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	if h := siphash.Hash(e.key[0], e.key[1], b); h != 0 {
		return h
	}
	return 1
}

// AddViewUnixMilli is AddView of a view at unixMilli, milliseconds since
// 1970, as a store keeps its time: a replay's views need no time.Time.
func (e *Engine) AddViewUnixMilli(ref svc.ProductRef, unixMilli int64, session uint64, now time.Time) {
	e.add(ref, pending{sec: secOfMilli(unixMilli), session: session}, sec(now))
}

// secOfMilli is sec of time.UnixMilli(ms).
func secOfMilli(ms int64) uint32 {
	s := ms / 1000
	if ms%1000 < 0 {
		s-- // toward the past, as time.Time's Unix
	}
	if s < 0 {
		return 0
	}
	if s > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(s)
}

// AddView counts a view of the product at time at, by the session with hash
// session (0 for none), as seen at now.
func (e *Engine) AddView(ref svc.ProductRef, at time.Time, session uint64, now time.Time) {
	e.add(ref, pending{sec: sec(at), session: session}, sec(now))
}

// AddPurchase counts an order of units of the product at time at.
func (e *Engine) AddPurchase(ref svc.ProductRef, at time.Time, units int64, now time.Time) {
	u := uint32(min(max(units, 1), math.MaxUint32))
	e.add(ref, pending{sec: sec(at), units: u}, sec(now))
}

func (e *Engine) add(ref svc.ProductRef, ev pending, now uint32) {
	s := e.shard(ref)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.product(ref).add(ev, now)
}

// product returns the product's counts, new ones if it has none; s.mu is
// held.
func (s *shard) product(ref svc.ProductRef) *product {
	p := s.products[ref]
	if p == nil {
		p = &product{}
		s.products[ref] = p
	}
	return p
}

// add counts the event, or keeps it until its second comes.
func (p *product) add(ev pending, now uint32) {
	if ev.sec > now {
		m := p.extra()
		m.pending = append(m.pending, ev)
		return
	}
	p.apply(ev)
}

func (p *product) apply(ev pending) {
	if ev.units > 0 {
		m := p.extra()
		m.orders.add(ev.sec, 1)
		m.units.add(ev.sec, uint64(ev.units))
		return
	}
	p.views.add(ev.sec, 1)
	if ev.session == 0 {
		return
	}
	last, seen := p.latest.get(ev.session)
	switch {
	case !seen:
		p.viewers.add(ev.sec, 1)
	case ev.sec > last:
		p.viewers.add(last, ^uint32(0)) // -1: the session moves to its newer view
		p.viewers.add(ev.sec, 1)
	default:
		return // an older view of a session already counted later
	}
	p.latest.set(ev.session, ev.sec)
}

// flush applies the pending events whose second has come.
func (p *product) flush(now uint32) {
	m := p.more
	if m == nil || len(m.pending) == 0 {
		return
	}
	kept := m.pending[:0]
	for _, ev := range m.pending {
		if ev.sec <= now {
			p.apply(ev)
		} else {
			kept = append(kept, ev)
		}
	}
	clear(m.pending[len(kept):])
	m.pending = kept
	if len(kept) == 0 {
		m.pending = nil
	}
}

// Counts returns the product's views and viewers in (now-viewWindow, now]
// and its orders and units in (now-purchaseWindow, now], to the second.
// Windows longer than the engine's horizons are cut to them.
func (e *Engine) Counts(ref svc.ProductRef, now time.Time, viewWindow, purchaseWindow time.Duration) Counts {
	var c [1]Counts
	e.CountsOf(ref, now, []Windows{{viewWindow, purchaseWindow}}, c[:])
	return c[0]
}

// Windows are a view window and a purchase window, as Counts takes them.
type Windows struct{ Views, Purchases time.Duration }

// CountsOf sets out[i] to the product's Counts in ws[i], under one look-up
// of the product: what a list of every product of a brand reads.
func (e *Engine) CountsOf(ref svc.ProductRef, now time.Time, ws []Windows, out []Counts) {
	n := sec(now)
	s := e.shard(ref)
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.products[ref]
	if p == nil {
		clear(out[:len(ws)])
		return
	}
	p.flush(n)
	// Every window ends at n: each timeline's sum up to n is read once.
	views, viewers := p.views.upTo(n), p.viewers.upTo(n)
	var orders uint32
	var units uint64
	m := p.more
	if m != nil {
		orders, units = m.orders.upTo(n), m.units.upTo(n)
	}
	for i, w := range ws {
		vw := min(uint32(w.Views/time.Second), e.viewHorizon, n)
		pw := min(uint32(w.Purchases/time.Second), e.purchaseHorizon, n)
		c := Counts{
			Views:   int64(views - p.views.upTo(n-vw)),
			Viewers: int64(viewers - p.viewers.upTo(n-vw)),
		}
		if m != nil {
			c.Purchases = int64(orders - m.orders.upTo(n-pw))
			c.Units = int64(units - m.units.upTo(n-pw))
		}
		out[i] = c
	}
}

// Stats describe what the engine holds.
type Stats struct {
	Products int // products with events inside the horizons
	Buckets  int // distinct (product, second) entries over all timelines
	Bytes    int // memory of the timelines and session maps, roughly
}

// Sweep drops what has aged out of the horizons at now: old seconds, the
// sessions whose latest view is gone, and products left with nothing. Call
// it every minute or so; reads stay exact without it, it frees memory.
func (e *Engine) Sweep(now time.Time) Stats {
	n := sec(now)
	viewCut := n - min(e.viewHorizon, n)
	purchaseCut := n - min(e.purchaseHorizon, n)
	var st Stats
	for i := range e.shards {
		s := &e.shards[i]
		s.mu.Lock()
		for ref, p := range s.products {
			p.flush(n)
			p.views.prune(viewCut)
			if p.viewers.prune(viewCut) {
				p.pruneSessions(viewCut)
			}
			if m := p.more; m != nil {
				m.orders.prune(purchaseCut)
				m.units.prune(purchaseCut)
				if m.orders.empty() && len(m.pending) == 0 {
					p.more = nil
				}
			}
			if p.views.empty() && p.viewers.empty() && p.more == nil {
				delete(s.products, ref)
				continue
			}
			st.Products++
			st.Buckets += p.views.len() + p.viewers.len()
			st.Bytes += p.views.bytes() + p.viewers.bytes() + p.latest.bytes()
			if m := p.more; m != nil {
				st.Buckets += m.orders.len() + m.units.len()
				st.Bytes += m.orders.bytes() + m.units.bytes() + 12*cap(m.pending)
			}
		}
		s.mu.Unlock()
	}
	return st
}

// Trim gives back the room that growth left in the timelines and session
// tables, after a replay: the tables come out at most 9/10 full rather than
// 16/25 to 4/5 (fittedSessions), and the new arrays fill the holes that the replay's
// outgrown ones left in the heap. Later events make some room again.
func (e *Engine) Trim() {
	for i := range e.shards {
		s := &e.shards[i]
		s.mu.Lock()
		for _, p := range s.products {
			p.latest.fit()
			p.views.clip()
			p.viewers.clip()
			if m := p.more; m != nil {
				m.orders.clip()
				m.units.clip()
			}
		}
		s.mu.Unlock()
	}
}

// pruneSessions forgets the sessions whose latest view is at or before cut,
// into a new table sized for what is kept.
func (p *product) pruneSessions(cut uint32) {
	n := 0
	p.latest.each(func(_ uint64, last uint32) {
		if last > cut {
			n++
		}
	})
	kept := sizedSessions(n)
	p.latest.each(func(h uint64, last uint32) {
		if last > cut {
			kept.set(h, last)
		}
	})
	p.latest = kept
}

// RemovePurchase takes back units of the product, and orders (0 or 1)
// of it, from an order counted at time at: a cancellation or a refund.
// An order older than the purchase horizon is in no window any more, and
// nothing is taken back.
func (e *Engine) RemovePurchase(ref svc.ProductRef, at time.Time, orders, units int64, now time.Time) {
	s, n := sec(at), sec(now)
	if s <= n-min(e.purchaseHorizon, n) || orders == 0 && units == 0 {
		return
	}
	sh := e.shard(ref)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	p := sh.products[ref]
	if p == nil || p.more == nil {
		return
	}
	m := p.more
	if s > n {
		m.removePending(s, orders, units)
		return
	}
	if orders != 0 {
		m.orders.add(s, uint32(-orders))
	}
	m.units.add(s, uint64(-units))
}

// removePending takes units, and the order when orders is 1, out of an
// order not yet due at second s: the order's own entry where one matches.
func (m *more) removePending(s uint32, orders, units int64) {
	best := -1
	for i, ev := range m.pending {
		if ev.sec != s || ev.units == 0 || int64(ev.units) < units {
			continue
		}
		if best < 0 || (orders == 1) == (int64(ev.units) == units) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	if orders == 1 {
		m.pending = append(m.pending[:best], m.pending[best+1:]...)
		return
	}
	m.pending[best].units -= uint32(units)
}
