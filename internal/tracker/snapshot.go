package tracker

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/svc-project/svc"
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
// (lockCommitted, batch.go): it is held only to read the position and lock
// and copy the shard, so collecting waits about a millisecond per shard,
// and never for an encode or the disk. At start, the snapshot is used if
// its checksums hold, it was written at the store's current erasure
// version, and the rows its positions name are still stored (else positions
// may have been reused); each product then gets the events committed after
// its shard's position. Anything else is a full replay, with the reason
// logged.
//
// The snapshot holds only the engine: the products are loaded from the
// store meanwhile, and the prices paid, for enrichment, come from the same
// one pass over the window's orders that counts those after the marks.

// snapshots writes and reads the snapshot file of a tracker.
type snapshots struct {
	path string
	log  svc.EventLog
	mu   sync.Mutex // one writer at a time

	beforeCut func(shard int) // tests write between the cuts of the shards
}

// snapshotMeta tags what a snapshot's meta holds, for later formats.
const snapshotMeta = 1

func newSnapshots(cfg *Config, store svc.Store) *snapshots {
	log, ok := store.(svc.EventLog)
	if _, shared := store.(svc.ChangeFeed); cfg.SnapshotPath == "" || !ok || shared {
		return nil
	}
	return &snapshots{path: cfg.SnapshotPath, log: log}
}

// saveSnapshot writes the counts to the snapshot file: a temporary file,
// synced, renamed over the last one, and the folder synced, so that the
// file is always a whole snapshot.
func (t *Tracker) saveSnapshot(ctx context.Context) (err error) {
	sn := t.snaps
	sn.mu.Lock()
	defer sn.mu.Unlock()
	start := time.Now()
	e := t.engine.Load()
	meta := binary.AppendUvarint(nil, snapshotMeta)
	meta = binary.AppendVarint(meta, t.erasure.Load())

	tmp := sn.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600) // it holds the session key
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	enc, err := e.NewEncoder(bw, t.cfg.Now(), meta)
	if err != nil {
		return err
	}
	var held, most time.Duration // the commit lock, from taking it to letting it go at each cut
	for i := range window.Shards {
		if sn.beforeCut != nil {
			sn.beforeCut(i)
		}
		t.batch.lockCommitted()
		lock := time.Now()
		if t.engine.Load() != e {
			t.batch.unlockCommitted()
			return errors.New("a recount replaced the counts meanwhile")
		}
		pos, err := sn.log.LogPosition(ctx)
		if err != nil {
			t.batch.unlockCommitted()
			return err
		}
		err = enc.EncodeShard(appendPosition(nil, pos), func() {
			t.batch.unlockCommitted()
			d := time.Since(lock)
			held += d
			most = max(most, d)
		})
		if err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, sn.path); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(sn.path)); err != nil {
		return err
	}
	t.cfg.Logger.Info("counts saved", "path", sn.path, "bytes", st.Size(), "took", time.Since(start).Round(time.Millisecond),
		"commit_lock_held", held.Round(time.Microsecond), "commit_lock_longest", most.Round(time.Microsecond))
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// dropSnapshot removes the snapshot file: after a recount, the counts it
// holds include erased events. (Its erasure version would refuse it
// anyway; removing it also frees the disk of a shopper's session hashes.)
func (t *Tracker) dropSnapshot() {
	sn := t.snaps
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if err := os.Remove(sn.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.cfg.Logger.Warn("remove the snapshot after a recount", "err", err)
	}
}

func appendPosition(b []byte, p svc.LogPosition) []byte {
	b = binary.AppendVarint(b, p.Views)
	b = binary.AppendUvarint(b, uint64(len(p.ViewEvent)))
	b = append(b, p.ViewEvent...)
	b = binary.AppendVarint(b, p.Orders)
	b = binary.AppendUvarint(b, uint64(len(p.OrderEvent)))
	return append(b, p.OrderEvent...)
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
	if b == nil || len(b) > 0 || p.Views < 0 || p.Orders < 0 {
		return p, bad
	}
	return p, nil
}

// restore loads the counts from the snapshot file and the events committed
// after it, and reports whether it did; when it did not, the reason is
// logged and the caller replays every event.
func (t *Tracker) restore(ctx context.Context) (bool, error) {
	sn := t.snaps
	if sn == nil {
		return false, nil
	}
	start, now := time.Now(), t.cfg.Now()
	log := t.cfg.Logger
	os.Remove(sn.path + ".tmp") // a save that did not finish
	f, err := os.Open(sn.path)
	if errors.Is(err, fs.ErrNotExist) {
		log.Info("no snapshot of the counts: replaying every event", "path", sn.path)
		return false, nil
	}
	if err != nil {
		log.Warn("snapshot ignored: replaying every event", "path", sn.path, "err", err)
		return false, nil
	}
	defer debug.SetGCPercent(debug.SetGCPercent(200)) // as in rebuild: the heap only grows

	// The products and their catalog, most of a start, load meanwhile; a
	// full replay after a refused snapshot does not load them again.
	var productsErr error
	var productsTook time.Duration
	productsDone := make(chan struct{})
	go func() {
		defer close(productsDone)
		productsErr = t.loadProducts(ctx, t.store)
		productsTook = time.Since(start)
	}()
	waitProducts := func() error {
		<-productsDone
		t.haveProducts = productsErr == nil
		return productsErr
	}

	snap, err := window.LoadSnapshot(f, svc.MaxViewWindow, svc.MaxPurchaseWindow)
	f.Close()
	if err != nil {
		log.Warn("snapshot ignored: replaying every event", "path", sn.path, "err", err)
		return false, waitProducts()
	}
	marks, why, err := t.snapshotMarks(ctx, snap)
	if err == nil && why != "" {
		log.Warn("snapshot ignored: replaying every event", "path", sn.path, "why", why)
	}
	if err != nil || why != "" {
		return false, errors.Join(err, waitProducts())
	}
	decoded := time.Since(start)

	// One pass over the orders of the window, in the log's order (a scan by
	// row id, cheaper than the replay's by time): every line's price, kept
	// until the catalog has the products they are of, and the counts of
	// the lines after their shard's mark.
	first := marks[0]
	for _, m := range marks {
		first.Views = min(first.Views, m.Views)
	}
	e := snap.Engine
	var prices []svc.PurchaseRecord
	var views, lines int
	err = sn.log.PurchaseLinesAfter(ctx, 0, now.Add(-svc.MaxPurchaseWindow), func(pos int64, r svc.PurchaseRecord) error {
		if r.UnitPrice != nil && r.Currency != "" {
			prices = append(prices, r)
		}
		if pos > marks[window.ShardOf(r.Product)].Orders {
			e.AddPurchase(r.Product, r.Time, r.Units, now)
			lines++
		}
		return nil
	})
	if err == nil {
		err = sn.log.ViewsAfter(ctx, first.Views, now.Add(-svc.MaxViewWindow), func(pos int64, r svc.ViewRecord) error {
			if pos > marks[window.ShardOf(r.Product)].Views {
				e.AddView(r.Product, r.Time, e.SessionHash(r.SessionID), now)
				views++
			}
			return nil
		})
	}
	if err := errors.Join(err, waitProducts()); err != nil {
		return false, err
	}
	for _, r := range prices {
		t.learnPurchaseLine(r)
	}
	t.engine.Store(e)
	debug.FreeOSMemory() // the decoding's garbage
	log.Info("counts restored from the snapshot", "path", sn.path, "written", snap.Written,
		"decoded_in", decoded.Round(time.Millisecond), "products_in", productsTook.Round(time.Millisecond), "views_after", views, "purchase_lines_after", lines,
		"took", time.Since(start).Round(time.Millisecond))
	return true, nil
}

// snapshotMarks checks that a snapshot can continue from the store, and
// returns its shards' positions, or why it cannot.
func (t *Tracker) snapshotMarks(ctx context.Context, snap *window.Snapshot) ([window.Shards]svc.LogPosition, string, error) {
	var marks [window.Shards]svc.LogPosition
	meta := snap.Meta
	tag, n := binary.Uvarint(meta)
	if n <= 0 || tag != snapshotMeta {
		return marks, "unknown meta", nil
	}
	erasure, k := binary.Varint(meta[n:])
	if k <= 0 {
		return marks, "unknown meta", nil
	}
	if erasure != t.erasure.Load() {
		return marks, fmt.Sprintf("events were erased since it was written (erasure version %d, now %d)", erasure, t.erasure.Load()), nil
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
		ok, err := t.snaps.log.Continues(ctx, p)
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
