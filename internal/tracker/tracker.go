// Package tracker counts: it commits valid events through the group
// commit, feeds the window engine, sweeps what ages out, follows erasures
// and other nodes' commits, and answers a product's counts. It knows
// nothing of HTTP, keys or origins: httpapi hands it valid events.
package tracker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/products"
	"github.com/svc-project/svc/internal/snapshot"
	"github.com/svc-project/svc/internal/window"
)

// Config tunes a Tracker; the zero value of a field means its default.
type Config struct {
	Retention     time.Duration    // how long raw events are kept; at least the largest window
	MaxBatch      int              // most lines in one commit (an order weighs its lines, a view one), past its first job
	ErasurePoll   time.Duration    // how often the store's erasure version is read
	SweepInterval time.Duration    // how often aged events leave memory and the store
	Now           func() time.Time // the clock; tests inject one
	Logger        *slog.Logger
	Metrics       *metrics.Metrics // nil records nothing

	// What the store offers beyond svc.EventStore, set by main, which
	// knows the store it opened: the core never asks.

	// ChangeFeed is the store's feed when others write to it too (the
	// nodes of a shared store, or svc import beside the embedded store's
	// server): each counts what the others commit. Nil for a store that
	// this server alone writes.
	ChangeFeed svc.ChangeFeed
	// EventLog is the store's event log, which a snapshot file needs.
	EventLog svc.EventLog
	// Tidy, when set, keeps the store's tables at each sweep and returns
	// those it tidied (postgres.Store.Tidy).
	Tidy func(ctx context.Context) (tables []string, err error)

	// SnapshotPath is the file the counts are saved to at Close and every
	// SnapshotInterval, and loaded from at Open (internal/snapshot); ""
	// saves none. It needs EventLog. With a ChangeFeed too (the embedded
	// store, which other processes may write), the feed's snapshot must
	// also be an EventLog, and its LogPosition that of the feed's last read
	// (feed.go).
	SnapshotPath string
	// SnapshotInterval is how often the counts are saved while running;
	// negative saves them only at Close.
	SnapshotInterval time.Duration

	// Catalog is fed every product and price the core learns (required:
	// internal/enrich's Catalog, which enrichment and the recent
	// purchases' titles read).
	Catalog Catalog

	// NowWindow is how far back the proof's viewers_now looks: whole
	// minutes, at most svc.MaxNowWindow.
	NowWindow time.Duration
}

func (c *Config) setDefaults() error {
	if c.Retention == 0 {
		c.Retention = svc.DefaultRetention
	}
	if c.Retention < svc.MaxPurchaseWindow {
		return fmt.Errorf("retention %s is shorter than the largest window, %s", svc.FormatDuration(c.Retention), svc.FormatDuration(svc.MaxPurchaseWindow))
	}
	if c.Catalog == nil {
		return errors.New("the tracker needs a catalog to feed")
	}
	if c.SnapshotPath != "" && c.EventLog == nil {
		return errors.New("a snapshot file needs the store's event log")
	}
	if c.NowWindow == 0 {
		c.NowWindow = svc.DefaultNowWindow
	}
	if c.NowWindow < time.Minute || c.NowWindow > svc.MaxNowWindow || c.NowWindow%time.Minute != 0 {
		return fmt.Errorf("now window %s is not a whole number of minutes from 1m to %s", svc.FormatDuration(c.NowWindow), svc.FormatDuration(svc.MaxNowWindow))
	}
	if c.MaxBatch == 0 {
		c.MaxBatch = 1024
	}
	if c.ErasurePoll == 0 {
		c.ErasurePoll = 250 * time.Millisecond
	}
	if c.SweepInterval == 0 {
		c.SweepInterval = time.Minute
	}
	if c.SnapshotInterval == 0 {
		c.SnapshotInterval = 5 * time.Minute
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// Tracker is the service core. Create it with Open; it is safe for
// concurrent use.
type Tracker struct {
	cfg      Config
	store    svc.EventStore
	engine   atomic.Pointer[window.Engine] // swapped whole by a recount (erasure.go)
	beside   atomic.Pointer[beside]        // swapped with the engine
	erasure  atomic.Int64                  // the store's erasure version the counts reflect
	batch    *batcher
	products *products.Index              // refs by (brand, product id), for proofs
	cat      Catalog                      // fed what enrichment reads (cfg.Catalog)
	changes  feedState                    // other nodes' commits, on a shared store
	stats    atomic.Pointer[window.Stats] // of the latest sweep
	snaps    *snapshot.File               // nil when the counts are not saved
	// haveProducts: restore loaded the products before it refused the
	// snapshot, and the rebuild at start need not load them again.
	haveProducts bool
	beforeCut    func(shard int) // tests write between the cuts of a save's shards

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// Open restores or rebuilds the counts from the store's events, and starts
// the background work: sweeps, erasures, saves and other nodes' commits.
func Open(ctx context.Context, store svc.EventStore, cfg Config) (*Tracker, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	t := &Tracker{cfg: cfg, store: store, products: products.New(), cat: cfg.Catalog}
	if cfg.SnapshotPath != "" {
		t.snaps = snapshot.New(cfg.SnapshotPath, cfg.EventLog, t.loader())
	}
	if err := t.loadCounts(ctx); err != nil {
		return nil, err
	}
	t.stats.Store(new(window.Stats))
	cfg.Metrics.Gauge("svc_window_products", "Products with events in the window engine.", func() float64 { return float64(t.stats.Load().Products) })
	cfg.Metrics.Gauge("svc_window_buckets", "Per-second buckets held by the window engine.", func() float64 { return float64(t.stats.Load().Buckets) })
	cfg.Metrics.Gauge("svc_window_bytes", "Memory of the window engine's timelines and sessions, roughly.", func() float64 { return float64(t.stats.Load().Bytes) })
	st := t.engine.Load().Sweep(cfg.Now())
	t.stats.Store(&st)
	t.batch = newBatcher(store, cfg.MaxBatch, t.apply, cfg.Metrics)
	cfg.Metrics.Gauge("svc_commits_failing", "Commits that failed in a row; 0 once one succeeds.", func() float64 { return float64(t.batch.failing.Load()) })
	t.startBackground()
	return t, nil
}

// loadCounts restores the counts from the snapshot file, or rebuilds them
// from the store.
func (t *Tracker) loadCounts(ctx context.Context) error {
	v, err := t.store.ErasureVersion(ctx)
	if err != nil {
		return fmt.Errorf("read erasure version: %w", err)
	}
	t.erasure.Store(v)
	if t.snaps != nil {
		restored, err := t.restore(ctx, v)
		if err != nil || restored {
			return err
		}
	}
	if err := t.load(ctx, snapshot.NewEngine(), false); err != nil {
		return fmt.Errorf("rebuild counts: %w", err)
	}
	return nil
}

// startBackground starts the work that runs until Close.
func (t *Tracker) startBackground() {
	bg, stop := context.WithCancel(context.Background())
	t.stop = stop
	t.followChanges(bg) // before a recount may touch the feed's state
	t.every(bg, t.cfg.ErasurePoll, t.followErasures)
	t.every(bg, t.cfg.SweepInterval, t.sweep)
	if t.snaps != nil && t.cfg.SnapshotInterval > 0 {
		t.every(bg, t.cfg.SnapshotInterval, func(ctx context.Context) {
			if err := t.saveSnapshot(ctx); err != nil && ctx.Err() == nil {
				t.cfg.Logger.Warn("save the counts", "err", err)
			}
		})
	}
}

func (t *Tracker) every(ctx context.Context, d time.Duration, fn func(context.Context)) {
	t.wg.Go(func() {
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				fn(ctx)
			}
		}
	})
}

// apply feeds committed writes to the engine and the indexes.
func (t *Tracker) apply(writes []*svc.Write) {
	now, e, side := t.cfg.Now(), t.engine.Load(), t.beside.Load()
	for _, w := range writes {
		r := &w.Result
		if r.Err != nil || r.Replay || r.Status != svc.StatusAccepted {
			continue
		}
		t.learnWrite(w)
		if v := w.View; v != nil {
			session := ""
			if v.Context.SessionID != nil {
				session = *v.Context.SessionID
			}
			e.AddView(r.Lines[0].Product, v.Meta.Time, e.SessionHash(session), now)
			continue
		}
		if c := w.Cart; c != nil {
			side.carts.Add(r.Lines[0].Product, c.Meta.Time, c.Context.SessionID, now)
			continue
		}
		for _, l := range r.Lines {
			e.AddPurchase(l.Product, w.Purchase.Meta.Time, l.Units, now)
		}
		side.purchases.AddOrder(w.Purchase, r.Lines)
	}
}

// sweep frees what aged out of memory, deletes expired rows in small
// batches, so that writers never wait long behind it, then tidies the
// store's tables: a Tidy, which may take minutes, never holds back the
// retention, and its vacuums find the rows the retention just deleted.
func (t *Tracker) sweep(ctx context.Context) {
	now := t.cfg.Now()
	st := t.engine.Load().Sweep(now)
	t.stats.Store(&st)
	t.beside.Load().sweep(now)
	t.cat.Sweep(now)
	t.deleteExpired(ctx, now)
	if t.cfg.Tidy != nil {
		tables, err := t.cfg.Tidy(ctx)
		if len(tables) > 0 {
			t.cfg.Logger.Info("tidied the tables: the server's autovacuum is off", "tables", tables)
		}
		if err != nil && ctx.Err() == nil {
			t.cfg.Logger.Warn("tidy the tables", "err", err)
		}
	}
}

// deleteExpired deletes the events past the retention, a batch at a time.
func (t *Tracker) deleteExpired(ctx context.Context, now time.Time) {
	const batch = 1000
	for ctx.Err() == nil {
		n, err := t.store.DeleteExpired(ctx, now.Add(-t.cfg.Retention), now, batch)
		if err != nil {
			if ctx.Err() == nil {
				t.cfg.Logger.Warn("delete expired events", "err", err)
			}
			return
		}
		if n < batch {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Collect records an event that is authenticated, authorized, valid and
// stamped (its Meta.Time set): it gives it its id, commits it in the group
// commit and counts it. w.Result says what became of it. Returns
// EUNAVAILABLE when closing, or the write's own error (w.Result.Err:
// ENOTFOUND for a product a closed catalog does not know, ECONFLICT for an
// idempotency key reused with another body, EINTERNAL).
func (t *Tracker) Collect(w *svc.Write) error {
	id, err := uuid.NewV7()
	if err != nil {
		return svc.Internal(err)
	}
	_, meta := w.Event()
	meta.EventID = id.String()
	if err := t.batch.submit(w); err != nil {
		return err
	}
	return w.Result.Err
}

// Proof returns the counts of one product of brand b for a valid query.
// Returns ENOTFOUND for a product never seen.
func (t *Tracker) Proof(q svc.ProofQuery, b *svc.Brand) (*svc.Proof, error) {
	ref, ok := t.products.Ref(q.BrandID, q.ProductID)
	if !ok {
		return nil, svc.Errorf(svc.ENOTFOUND, "product %q of brand %q not found", q.ProductID, q.BrandID)
	}
	now := t.cfg.Now()
	c, viewersNow := t.engine.Load().CountsNow(ref, now, q.ViewWindow, q.PurchaseWindow, t.cfg.NowWindow)
	return &svc.Proof{
		BrandID: q.BrandID, ProductID: q.ProductID,
		ViewWindow: q.ViewWindow, PurchaseWindow: q.PurchaseWindow,
		Views: c.Views, Viewers: c.Viewers, Purchases: c.Purchases, Units: c.Units,
		CartWindow: q.CartWindow, Carts: t.beside.Load().carts.In(ref, now, q.CartWindow),
		NowWindow: t.cfg.NowWindow, ViewersNow: viewersNow,
		MinViewers: b.MinViewers, MinPurchases: b.MinPurchases, Holdout: b.Holdout, WidgetVariant: b.WidgetVariant,
		WidgetPosition: b.WidgetPosition, Languages: b.Languages,
		MinCarts: b.Widget.Stored().MinCarts, WidgetFont: b.Widget.Font, WidgetAccent: b.Widget.Accent,
		GeneratedAt: now.UTC(),
	}, nil
}

// KnownProduct reports whether the brand's product is registered, as far
// as this server has seen.
func (t *Tracker) KnownProduct(brandID, productID string) bool {
	_, ok := t.products.Ref(brandID, productID)
	return ok
}

// EnsureProduct registers a product without counting anything, as the
// demo does for its page.
func (t *Tracker) EnsureProduct(ctx context.Context, p *svc.Product) (*svc.Product, error) {
	out, err := t.store.EnsureProduct(ctx, p)
	if err == nil {
		learnt := *out
		learnt.Verified |= learnt.Given() // svc.EnsureProduct sets them as a keyed event
		t.learnProduct(&learnt, false)
	}
	return out, err
}

// Now is the tracker's clock.
func (t *Tracker) Now() time.Time { return t.cfg.Now() }

// Retention is how long raw events are kept: a keyed event older than it
// is refused.
func (t *Tracker) Retention() time.Duration { return t.cfg.Retention }

// Ready reports whether the store answers and, after a commit failed,
// whether it can write again: until a commit or a write check succeeds,
// the node is not ready, so that a load balancer sends writes elsewhere.
// Returns EUNAVAILABLE when not ready.
func (t *Tracker) Ready(ctx context.Context) error {
	if err := t.store.Ping(ctx); err != nil {
		return &svc.Error{Code: svc.EUNAVAILABLE, Message: "the store does not answer", Err: err}
	}
	if n := t.batch.failing.Load(); n > 0 {
		if err := t.store.CheckWrite(ctx); err != nil {
			return &svc.Error{Code: svc.EUNAVAILABLE, Message: "the store cannot write", Err: err}
		}
		t.batch.failing.CompareAndSwap(n, 0) // unless a commit failed meanwhile
	}
	return nil
}

// Close stops the background work, then commits every queued write, then
// saves the counts if it has a snapshot file. Call it after the HTTP
// server has finished its requests. The background work stops first: a
// recount in progress holds the commit path, and gives it up when
// cancelled.
func (t *Tracker) Close() error {
	t.stop()
	t.wg.Wait()
	t.batch.close()
	if t.snaps == nil {
		return nil
	}
	if err := t.saveSnapshot(context.Background()); err != nil {
		t.cfg.Logger.Warn("save the counts: the next start replays every event", "err", err)
		return fmt.Errorf("save the counts: %w", err)
	}
	return nil
}
