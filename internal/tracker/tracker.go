// Package tracker is the service core: it checks who sends an event,
// validates and stamps it, writes it through the group commit, feeds the
// window engine, and answers product proof from it.
package tracker

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/prices"
	"github.com/svc-project/svc/internal/products"
	"github.com/svc-project/svc/internal/window"
)

// Config tunes a Tracker; the zero value of a field means its default.
type Config struct {
	Retention     time.Duration    // how long raw events are kept; at least the largest window
	MaxBatch      int              // most events in one commit
	ConfigPoll    time.Duration    // how often brands and keys are reloaded when changed
	SweepInterval time.Duration    // how often aged events leave memory and the store
	Now           func() time.Time // the clock; tests inject one
	Logger        *slog.Logger
	// IsBot tells known bots by User-Agent; their anonymous events are
	// answered but not counted. Nil counts everything.
	IsBot   func(userAgent string) bool
	Metrics *metrics.Metrics // nil records nothing
	// SnapshotPath is the file the counts are saved to at Close and every
	// SnapshotInterval, and loaded from at Open (snapshot.go); "" saves
	// none. Only a store that is an svc.EventLog and not shared has them.
	SnapshotPath string
	// SnapshotInterval is how often the counts are saved while running;
	// negative saves them only at Close.
	SnapshotInterval time.Duration
}

func (c *Config) setDefaults() error {
	if c.Retention == 0 {
		c.Retention = svc.DefaultRetention
	}
	if c.Retention < svc.MaxPurchaseWindow {
		return fmt.Errorf("retention %s is shorter than the largest window, %s", c.Retention, svc.MaxPurchaseWindow)
	}
	if c.MaxBatch == 0 {
		c.MaxBatch = 1024
	}
	if c.ConfigPoll == 0 {
		c.ConfigPoll = 250 * time.Millisecond
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
	store    svc.Store
	auth     authCache
	engine   atomic.Pointer[window.Engine] // swapped whole by a recount (erasure.go)
	erasure  atomic.Int64                  // the store's erasure version the counts reflect
	batch    *batcher
	products *products.Index              // refs by (brand, product id), for proofs
	search   *match.Index                 // titles, pages and SKUs, for enrichment
	prices   *prices.History              // unit prices paid lately, for enrichment
	changes  feedState                    // other nodes' commits, on a shared store
	stats    atomic.Pointer[window.Stats] // of the latest sweep
	snaps    *snapshots                   // nil when the counts are not saved
	// haveProducts: restore loaded the products before it refused the
	// snapshot, and the rebuild at start need not load them again.
	haveProducts bool

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// Open loads brands and keys, rebuilds the counts from the store's events,
// and starts the background work: config polling, sweeps and retention.
func Open(ctx context.Context, store svc.Store, cfg Config) (*Tracker, error) {
	err := cfg.setDefaults()
	if err != nil {
		return nil, err
	}
	t := &Tracker{
		cfg:      cfg,
		store:    store,
		auth:     authCache{store: store},
		products: products.New(),
		search:   match.New(),
		prices:   prices.New(),
		snaps:    newSnapshots(&cfg, store),
	}
	if err := t.auth.refresh(ctx); err != nil {
		return nil, fmt.Errorf("load brands and keys: %w", err)
	}
	v, err := store.ErasureVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("read erasure version: %w", err)
	}
	t.erasure.Store(v)
	restored, err := t.restore(ctx)
	if err != nil {
		return nil, fmt.Errorf("restore counts: %w", err)
	}
	if !restored {
		if err := t.load(ctx, newEngine(), false); err != nil {
			return nil, fmt.Errorf("rebuild counts: %w", err)
		}
	}
	t.stats.Store(new(window.Stats))
	cfg.Metrics.Gauge("svc_window_products", "Products with events in the window engine.", func() float64 { return float64(t.stats.Load().Products) })
	cfg.Metrics.Gauge("svc_window_buckets", "Per-second buckets held by the window engine.", func() float64 { return float64(t.stats.Load().Buckets) })
	cfg.Metrics.Gauge("svc_window_bytes", "Memory of the window engine's timelines and sessions, roughly.", func() float64 { return float64(t.stats.Load().Bytes) })
	st := t.engine.Load().Sweep(cfg.Now())
	t.stats.Store(&st)
	t.batch = newBatcher(store, cfg.MaxBatch, t.apply, cfg.Metrics)
	bg, stop := context.WithCancel(context.Background())
	t.stop = stop
	t.every(bg, cfg.ConfigPoll, func(ctx context.Context) {
		if err := t.auth.refresh(ctx); err != nil && ctx.Err() == nil {
			cfg.Logger.Warn("reload brands and keys", "err", err)
		}
	})
	t.followChanges(bg) // before a recount may touch the feed's state
	t.every(bg, cfg.ConfigPoll, t.followErasures)
	t.every(bg, cfg.SweepInterval, t.sweep)
	if t.snaps != nil && cfg.SnapshotInterval > 0 {
		t.every(bg, cfg.SnapshotInterval, func(ctx context.Context) {
			if err := t.saveSnapshot(ctx); err != nil && ctx.Err() == nil {
				cfg.Logger.Warn("save the counts", "err", err)
			}
		})
	}
	return t, nil
}

func (t *Tracker) every(ctx context.Context, d time.Duration, fn func(context.Context)) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
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
	}()
}

// apply feeds committed writes to the engine and the indexes.
func (t *Tracker) apply(writes []*svc.Write) {
	now, e := t.cfg.Now(), t.engine.Load()
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
		for _, l := range r.Lines {
			e.AddPurchase(l.Product, w.Purchase.Meta.Time, l.Units, now)
		}
	}
}

// sweep frees what aged out of memory and deletes expired rows in small
// batches, so that writers never wait long behind it.
func (t *Tracker) sweep(ctx context.Context) {
	now := t.cfg.Now()
	st := t.engine.Load().Sweep(now)
	t.stats.Store(&st)
	t.prices.Sweep(now.Add(-PriceWindow))
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

// Ack is the answer to an accepted event.
type Ack struct {
	Status  string // svc.StatusAccepted or svc.StatusDuplicate
	EventID string
	Replay  bool   // an Idempotency-Key seen before: this is the first answer again
	Ignored string // why the event was accepted but not counted ("bot"); empty when counted
}

// Request is what a collect call says besides its event.
type Request struct {
	Credentials
	IdempotencyKey string
	BodyHash       [32]byte // of the request body, to tell a replay from a reuse of its key
	// DecodeErrors are fields whose JSON type was wrong; the decoder left
	// them empty, so checks of their values are not reported on top.
	DecodeErrors []svc.FieldError
}

// CollectView records a view. Returns EUNAUTHORIZED, EINVALID, ENOTFOUND
// (brand, or product in a closed catalog), or EUNAVAILABLE when closing.
func (t *Tracker) CollectView(ctx context.Context, ev *svc.ViewEvent, req Request) (Ack, error) {
	return t.collect(ev.BrandID, ev.Validate, ev.Context.Timestamp, &ev.Meta, &svc.Write{View: ev}, req)
}

// CollectPurchase records an order; an order id seen before for the brand
// answers StatusDuplicate with the first event's id. Errors as CollectView.
func (t *Tracker) CollectPurchase(ctx context.Context, ev *svc.PurchaseEvent, req Request) (Ack, error) {
	return t.collect(ev.BrandID, ev.Validate, ev.Context.Timestamp, &ev.Meta, &svc.Write{Purchase: ev}, req)
}

func (t *Tracker) collect(brandID string, validate func() []svc.FieldError, ts *string, meta *svc.EventMeta, w *svc.Write, req Request) (Ack, error) {
	key, err := t.auth.key(req.Credentials)
	if err != nil {
		return Ack{}, err
	}
	fields := svc.MergeFieldErrors(req.DecodeErrors, validate())
	if idempotencyKey := req.IdempotencyKey; idempotencyKey != "" && !validIdempotencyKey(idempotencyKey) {
		fields = append(fields, svc.FieldError{Field: "Idempotency-Key", Message: "must be 1 to 255 printable ASCII characters"})
	}
	fields = append(fields, svc.Stamp(meta, ts, key != nil, t.cfg.Now(), t.cfg.Retention)...)
	if len(fields) > 0 {
		return Ack{}, svc.Invalid(fields)
	}
	brand, err := t.auth.brand(brandID, key, req.Origin)
	if err != nil {
		return Ack{}, err
	}
	if key == nil && t.cfg.IsBot != nil && t.cfg.IsBot(req.UserAgent) {
		// Answered like any event, so a crawler learns nothing; never stored.
		return Ack{Status: svc.StatusAccepted, Ignored: "bot"}, nil
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Ack{}, svc.Internal(err)
	}
	meta.EventID = id.String()
	w.IdempotencyKey, w.BodyHash = req.IdempotencyKey, req.BodyHash
	w.MayRegister = key != nil || !brand.ClosedCatalog
	if err := t.batch.submit(w); err != nil {
		return Ack{}, err
	}
	if w.Result.Err != nil {
		return Ack{}, w.Result.Err
	}
	return Ack{Status: w.Result.Status, EventID: w.Result.EventID, Replay: w.Result.Replay}, nil
}

func validIdempotencyKey(k string) bool {
	if len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// Proof returns the counts of one product. Returns EUNAUTHORIZED, EINVALID
// for bad windows, or ENOTFOUND for an unknown brand or a product never seen.
func (t *Tracker) Proof(ctx context.Context, get func(string) string, cred Credentials) (*svc.Proof, error) {
	key, err := t.auth.key(cred)
	if err != nil {
		return nil, err
	}
	q, fields := svc.ParseProofQuery(get)
	if len(fields) > 0 {
		return nil, svc.Invalid(fields)
	}
	brand, err := t.auth.brand(q.BrandID, key, cred.Origin)
	if err != nil {
		return nil, err
	}
	ref, ok := t.products.Ref(q.BrandID, q.ProductID)
	if !ok {
		return nil, svc.Errorf(svc.ENOTFOUND, "product %q of brand %q not found", q.ProductID, q.BrandID)
	}
	now := t.cfg.Now()
	c := t.engine.Load().Counts(ref, now, q.ViewWindow, q.PurchaseWindow)
	return &svc.Proof{
		BrandID: q.BrandID, ProductID: q.ProductID,
		ViewWindow: q.ViewWindow, PurchaseWindow: q.PurchaseWindow,
		Views: c.Views, Viewers: c.Viewers, Purchases: c.Purchases, Units: c.Units,
		MinViewers: brand.MinViewers, MinPurchases: brand.MinPurchases,
		GeneratedAt: now.UTC(),
	}, nil
}

// EnsureProduct registers a product without counting anything, as the
// demo does for its page.
func (t *Tracker) EnsureProduct(ctx context.Context, p *svc.Product) (*svc.Product, error) {
	out, err := t.store.EnsureProduct(ctx, p)
	if err == nil {
		t.learnProduct(out)
	}
	return out, err
}

// RefreshAuth reloads brands and keys now rather than at the next poll.
func (t *Tracker) RefreshAuth(ctx context.Context) error { return t.auth.refresh(ctx) }

// Ready reports whether the store answers.
func (t *Tracker) Ready(ctx context.Context) error {
	if err := t.store.Ping(ctx); err != nil {
		return &svc.Error{Code: svc.EUNAVAILABLE, Message: "the store does not answer", Err: err}
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
