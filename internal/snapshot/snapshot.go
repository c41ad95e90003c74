// Package snapshot saves the counts to a file and restores them at start,
// or rebuilds them from the store's events when there is no usable file.
package snapshot

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/binenc"
	"github.com/svc-project/svc/internal/window"
)

// The counts are saved to a snapshot file at Close and every
// SnapshotInterval, so that a restart loads them and reads from the store
// only the events committed after them, instead of replaying every event
// in the windows (56 s for 20 million against 9 from the snapshot;
// bench/RESULTS.md).
//
// The store must be an svc.EventLog, whose positions grow in commit order.
// Each shard of the engine is saved with the log position it reflects,
// taken while the commit path is held with every committed batch applied
// (CommitPath): it is held only to read the position and lock and copy
// the shard, so collecting waits about a millisecond per shard, and never
// for an encode or the disk. At start, the snapshot is used if its
// checksums hold, it was written at the store's current erasure version,
// and the rows its positions name are still stored (else positions may
// have been reused); each product then gets the events committed after its
// shard's position. Anything else is a full replay, with the reason logged.
//
// Beside the engine, the snapshot keeps what the caller keeps of the same
// orders (Kept: the recent purchases and the prices paid), cut at one log
// position with the last shard and caught up after it the same way. The
// products are loaded from the store meanwhile.

// File is the snapshot file of one server's counts.
type File struct {
	path string
	log  svc.EventLog
	load Loader
	mu   sync.Mutex // one writer at a time
}

// New returns the snapshot file at path, whose positions are those of log.
// A restore fills what l says.
func New(path string, log svc.EventLog, l Loader) *File {
	return &File{path: path, log: log, load: l}
}

// Path is where the file is.
func (f *File) Path() string { return f.path }

// metaVersion tags what a snapshot's meta holds, for later formats.
const metaVersion = 1

// Kept is what a snapshot keeps beside the counts: what the caller derives
// from the same orders, which a start would otherwise read from every
// order of its window (the recent purchases and the prices paid; 3.6 of a
// restore's 10.7 CPU-seconds, bench/RESULTS.md).
type Kept interface {
	// Cut copies what is kept; it is called while the commit path is
	// held, and what it returns encodes the copy after the path is let go.
	Cut() (encode func(b []byte) ([]byte, error))
	// Restore replaces what is kept with what encode wrote: all of it,
	// or, refused, none.
	Restore(b []byte) error
	// Load reads from the store, for a snapshot that keeps none, what
	// the restore's pass over the orders does not give (the recent
	// purchases: the prices come from Loader.Price).
	Load(ctx context.Context, src svc.EventReader) error
	// Order adds a product of an order committed after the cut (its
	// price comes from Loader.Price).
	Order(r svc.RecentPurchase)
	// Cancel takes out what a cancellation committed after the cut
	// removed from an order before it: from the purchases and the prices.
	Cancel(r svc.CancelRecord, now time.Time)
}

// CommitPath is the group commit that feeds the engine being saved.
type CommitPath interface {
	// Lock holds the commit path before the cut of a shard, once every
	// batch committed before is applied, and returns the engine they were
	// applied to.
	Lock(shard int) *window.Engine
	// Unlock lets commits go on.
	Unlock()
}

// Save writes the counts of e, and what kept keeps if it is not nil, as
// of the store's erasure version, to the file: a temporary file, synced,
// renamed over the last one, and the folder synced, so that the file is
// always a whole snapshot.
func (f *File) Save(ctx context.Context, e *window.Engine, kept Kept, cp CommitPath, erasure int64) (err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	start := time.Now()
	tmp := f.path + ".tmp"
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600) // it holds the session key
	if err != nil {
		return err
	}
	if err := out.Chmod(0o600); err != nil { // whatever the umask, or an older file's mode
		out.Close()
		return err
	}
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(out, 1<<20)
	held, most, err := f.encode(ctx, bw, e, kept, cp, erasure)
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	size, err := replace(out, f.path)
	if err != nil {
		return err
	}
	f.load.Logger.Info("counts saved", "path", f.path, "bytes", size, "took", time.Since(start).Round(time.Millisecond),
		"commit_lock_held", held.Round(time.Microsecond), "commit_lock_longest", most.Round(time.Microsecond))
	return nil
}

// encode writes every shard of e, each cut at the log position it
// reflects, then what kept keeps, cut with the last shard, and returns how
// long the commit path was held in all and at most at once, from taking
// it to letting it go at each cut.
func (f *File) encode(ctx context.Context, w io.Writer, e *window.Engine, kept Kept, cp CommitPath, erasure int64) (held, most time.Duration, err error) {
	meta := binary.AppendUvarint(nil, metaVersion)
	meta = binary.AppendVarint(meta, erasure)
	enc, err := e.NewEncoder(w, f.load.Now(), meta)
	if err != nil {
		return 0, 0, err
	}
	for i := range window.Shards {
		if cp.Lock(i) != e {
			cp.Unlock()
			return held, most, errors.New("a recount replaced the counts meanwhile")
		}
		lock := time.Now()
		pos, err := f.log.LogPosition(ctx)
		if err != nil {
			cp.Unlock()
			return held, most, err
		}
		var encodeKept func([]byte) ([]byte, error)
		if kept != nil && i == window.Shards-1 {
			encodeKept = kept.Cut()
		}
		// The shard is locked before the commit path is let go.
		err = enc.EncodeShard(appendPosition(nil, pos), func() {
			cp.Unlock()
			d := time.Since(lock)
			held += d
			most = max(most, d)
		})
		if err != nil {
			return held, most, err
		}
		if encodeKept != nil {
			b, err := encodeKept(binenc.AppendBytes(nil, appendPosition(nil, pos)))
			if err != nil {
				return held, most, err
			}
			if err := enc.EncodeKept(b); err != nil {
				return held, most, err
			}
		}
	}
	return held, most, nil
}

// replace syncs and closes the temporary file tmp, renames it to path
// and syncs the folder; it returns the file's size.
func replace(tmp *os.File, path string) (int64, error) {
	if err := tmp.Sync(); err != nil {
		return 0, err
	}
	st, err := tmp.Stat()
	if err != nil {
		return 0, err
	}
	if err := tmp.Close(); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return 0, err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return 0, err
	}
	defer d.Close()
	return st.Size(), d.Sync()
}

// Drop removes the file: after a recount, the counts it holds include
// erased events. (Its erasure version would refuse it anyway; removing it
// also frees the disk of a shopper's session hashes.)
func (f *File) Drop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.load.Logger.Warn("remove the snapshot after a recount", "err", err)
	}
}

func appendPosition(b []byte, p svc.LogPosition) []byte {
	b = binary.AppendVarint(b, p.Views)
	b = binary.AppendUvarint(b, uint64(len(p.ViewEvent)))
	b = append(b, p.ViewEvent...)
	b = binary.AppendVarint(b, p.Orders)
	b = binary.AppendUvarint(b, uint64(len(p.OrderEvent)))
	b = append(b, p.OrderEvent...)
	return binary.AppendVarint(b, p.Cancels)
}

func decodePosition(b []byte) (svc.LogPosition, error) {
	var p svc.LogPosition
	bad := errors.New("bad log position")
	str := func() string {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			b = nil
			return ""
		}
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s
	}
	num := func() int64 {
		v, k := binary.Varint(b)
		if k <= 0 {
			b = nil
			return -1
		}
		b = b[k:]
		return v
	}
	p.Views = num()
	p.ViewEvent = str()
	p.Orders = num()
	if b == nil {
		return p, bad
	}
	p.OrderEvent = str()
	if b != nil {
		// A file written before cancellations has none: it is refused,
		// and the counts replayed once.
		p.Cancels = num()
	}
	if b == nil || len(b) > 0 || p.Views < 0 || p.Orders < 0 || p.Cancels < 0 {
		return p, bad
	}
	return p, nil
}

// Restore loads the counts from the file and the events committed after
// it, with the products from src, and returns them; at the store's erasure
// version given. It returns a nil engine when it did not restore, with the
// reason logged, and the caller replays every event; haveProducts then
// says whether the products were loaded all the same. beside, if not nil,
// stands for the loader's Beside: what it fills is new at each load, and
// so is kept, restored from the file or else loaded from src.
func (f *File) Restore(ctx context.Context, src svc.EventReader, erasure int64, beside func(context.Context, svc.EventReader) error, kept Kept) (e *window.Engine, haveProducts bool, err error) {
	l := f.load
	if beside != nil {
		l.Beside = beside
	}
	start, now := time.Now(), f.load.Now()
	log := f.load.Logger
	os.Remove(f.path + ".tmp") // a save that did not finish
	in, err := os.Open(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		log.Info("no snapshot of the counts: replaying every event", "path", f.path)
		return nil, false, nil
	}
	if err != nil {
		log.Warn("snapshot ignored: replaying every event", "path", f.path, "err", err)
		return nil, false, nil
	}
	defer startPacing()()

	// The products and their catalog, most of a start, load meanwhile; a
	// full replay after a refused snapshot does not load them again.
	products := make(chan error, 1)
	var productsTook time.Duration
	go func() {
		err := f.load.loadProducts(ctx, src)
		productsTook = time.Since(start)
		products <- err
	}()

	// What the loader reads beside the counts loads meanwhile too (the
	// store answers several queries at once): started once the decoding
	// was done, it ended 1.6 to 1.8 s after the products, at the same peak
	// of memory now that startPacing bounds it.
	besideErr := make(chan error, 1)
	go func() { besideErr <- l.beside(ctx, src) }()

	snap, marks, err := f.check(ctx, in, erasure)
	in.Close()
	if err != nil || snap == nil {
		perr := <-products
		<-besideErr // read again by the full replay
		return nil, perr == nil, errors.Join(err, perr)
	}
	at, err := f.restoreKept(ctx, snap.Kept, kept, src)
	snap.Kept = nil // decoded: tens of MB the engine need not hold
	if err != nil {
		<-products
		<-besideErr
		return nil, false, err
	}
	decoded := time.Since(start)
	views, lines, err := f.catchUp(ctx, snap.Engine, marks, kept, at, now)
	if err := errors.Join(err, <-products, <-besideErr); err != nil {
		return nil, false, err
	}
	debug.FreeOSMemory() // the decoding's garbage
	log.Info("counts restored from the snapshot", "path", f.path, "written", snap.Written,
		"decoded_in", decoded.Round(time.Millisecond), "products_in", productsTook.Round(time.Millisecond), "views_after", views, "purchase_lines_after", lines,
		"took", time.Since(start).Round(time.Millisecond))
	return snap.Engine, true, nil
}

// check decodes the snapshot and checks that it can continue from the
// store; it returns it with its shards' positions, or nil, with the reason
// logged.
func (f *File) check(ctx context.Context, in io.Reader, erasure int64) (*window.Snapshot, [window.Shards]svc.LogPosition, error) {
	var marks [window.Shards]svc.LogPosition
	snap, err := window.LoadSnapshot(in, svc.MaxViewWindow, svc.MaxPurchaseWindow)
	if err != nil {
		f.load.Logger.Warn("snapshot ignored: replaying every event", "path", f.path, "err", err)
		return nil, marks, nil
	}
	marks, why, err := f.marks(ctx, snap, erasure)
	if err != nil {
		return nil, marks, err
	}
	if why != "" {
		f.load.Logger.Warn("snapshot ignored: replaying every event", "path", f.path, "why", why)
		return nil, marks, nil
	}
	return snap, marks, nil
}

// marks returns the positions of a snapshot's shards, or why the snapshot
// cannot continue from the store.
func (f *File) marks(ctx context.Context, snap *window.Snapshot, erasure int64) ([window.Shards]svc.LogPosition, string, error) {
	var marks [window.Shards]svc.LogPosition
	meta := snap.Meta
	tag, n := binary.Uvarint(meta)
	if n <= 0 || tag != metaVersion {
		return marks, "unknown meta", nil
	}
	written, k := binary.Varint(meta[n:])
	if k <= 0 {
		return marks, "unknown meta", nil
	}
	if written != erasure {
		return marks, fmt.Sprintf("events were erased since it was written (erasure version %d, now %d)", written, erasure), nil
	}
	checked := map[svc.LogPosition]bool{}
	for i, b := range snap.Marks {
		p, err := decodePosition(b)
		if err != nil {
			return marks, fmt.Sprintf("shard %d: %v", i, err), nil
		}
		marks[i] = p
		if checked[p] {
			continue
		}
		ok, err := f.log.Continues(ctx, p)
		if err != nil {
			return marks, "", err
		}
		if !ok {
			return marks, "the newest events it reflects are no longer stored", nil
		}
		checked[p] = true
	}
	return marks, "", nil
}

// keptMark is where a restored Kept stands in the log (the last shard's
// mark); nil when it was loaded from the store, and every price is to be
// handed over again.
type keptMark = *svc.LogPosition

// restoreKept restores kept from the file's section b, and returns its
// mark; or, for a file without it or one that cannot continue from the
// store, loads it from src and returns nil.
func (f *File) restoreKept(ctx context.Context, b []byte, kept Kept, src svc.EventReader) (keptMark, error) {
	if kept == nil {
		return nil, nil
	}
	why := "the snapshot keeps none"
	if b != nil {
		d := binenc.Decoder{B: b}
		p, err := decodePosition(d.Bytes())
		switch {
		case d.Err != nil || err != nil:
			why = "bad log position"
		default:
			ok, err := f.log.Continues(ctx, p)
			if err != nil {
				return nil, err
			}
			if !ok {
				why = "the newest events it reflects are no longer stored"
				break
			}
			if err := kept.Restore(d.B); err != nil {
				why = err.Error()
				break
			}
			return &p, nil
		}
	}
	f.load.Logger.Info("recent purchases and prices: reading them from the store", "why", why)
	return nil, kept.Load(ctx, src)
}

// catchUp adds to e, and to kept, the events committed after each shard's
// mark and kept's. One pass over the orders of the window, in the log's
// order (a scan by row id, cheaper than the replay's by time), counts the
// lines after their shard's mark and hands each line's price over, every
// line's unless kept holds the prices up to its mark; the price history
// keeps prices of products the indexes do not hold yet, so they need not
// wait for the products to load.
func (f *File) catchUp(ctx context.Context, e *window.Engine, marks [window.Shards]svc.LogPosition, kept Kept, at keptMark, now time.Time) (views, lines int, err error) {
	first := marks[0]
	for _, m := range marks {
		first.Views = min(first.Views, m.Views)
	}
	// The pass over the orders starts after the oldest mark, or at the
	// first order when the prices of every line are to be handed over.
	var pricedTo, ordersFrom int64 // the prices of lines up to pricedTo are kept
	if at != nil {
		pricedTo, ordersFrom = at.Orders, at.Orders
		for _, m := range marks {
			ordersFrom = min(ordersFrom, m.Orders)
		}
		err = f.log.RecentPurchasesAfter(ctx, at.Orders, now.Add(-svc.MaxRecentWindow), func(_ int64, r svc.RecentPurchase) error {
			kept.Order(r)
			return nil
		})
		if err != nil {
			return 0, 0, err
		}
	}
	err = f.log.PurchaseLinesAfter(ctx, ordersFrom, now.Add(-svc.MaxPurchaseWindow), func(pos int64, r svc.PurchaseRecord) error {
		if pos > pricedTo {
			f.load.Price(r)
		}
		if pos > marks[window.ShardOf(r.Product)].Orders {
			e.AddPurchase(r.Product, r.Time, r.Units, now)
			lines++
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	// An order after its shard's mark was read as it stands; one before
	// it was counted as it stood then, and loses what was cancelled since.
	first.Cancels = marks[0].Cancels
	for _, m := range marks {
		first.Cancels = min(first.Cancels, m.Cancels)
	}
	if at != nil {
		first.Cancels = min(first.Cancels, at.Cancels)
	}
	err = f.log.CancelsAfter(ctx, first.Cancels, now.Add(-svc.MaxPurchaseWindow), func(pos int64, r svc.CancelRecord) error {
		if m := marks[window.ShardOf(r.Product)]; pos > m.Cancels && r.Order <= m.Orders {
			e.RemovePurchase(r.Product, r.Time, r.Orders, r.Units, now)
		}
		if at != nil && pos > at.Cancels && r.Order <= at.Orders {
			kept.Cancel(r, now)
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	err = f.log.ViewsAfter(ctx, first.Views, now.Add(-svc.MaxViewWindow), func(pos int64, r svc.ViewRecord) error {
		if pos > marks[window.ShardOf(r.Product)].Views {
			e.AddView(r.Product, r.Time, e.SessionHash(r.SessionID), now)
			views++
		}
		return nil
	})
	return views, lines, err
}
