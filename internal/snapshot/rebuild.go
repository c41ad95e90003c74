package snapshot

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/products"
	"github.com/svc-project/svc/internal/window"
)

// startGCPercent is the collector's pacing while a start builds the
// counts (GOGC for those seconds). The heap then only grows, and is made
// mostly of flat arrays that cost little to mark, while what is garbage
// (rows decoded, tables outgrown) is several times what stays: at the
// default of 100, or at 200 as it was, the heap doubled or tripled past
// what stays before each collection, and the start's peak was 2.4 GiB
// for 1 GiB kept. At 25 it stays within a quarter of it, for about one
// CPU-second more in 40 (bench/RESULTS.md).
const startGCPercent = 25

// NewEngine returns an empty engine holding the largest windows.
func NewEngine() *window.Engine { return window.New(svc.MaxViewWindow, svc.MaxPurchaseWindow) }

// Catalog is what a rebuild loads the stored products into besides their
// refs: internal/enrich's Catalog, or internal/match's Index. Load calls
// fill once, which puts every product.
type Catalog interface {
	Load(fill func(put func(*svc.Product)) error) error
}

// Loader fills what the counts come with: a rebuild or a restore loads the
// products and hands over the prices paid, read in the same pass as the
// orders they count.
type Loader struct {
	Refs    *products.Index          // every stored product's ref goes into it
	Catalog Catalog                  // and the product itself, for enrichment
	Price   func(svc.PurchaseRecord) // called with every purchase line of the window
	Now     func() time.Time
	Logger  *slog.Logger
	// Beside, when set, reads what else the counts come with from the
	// same reader (the tracker's carts and recent purchases). It runs
	// beside the products and the events where the reader answers
	// several queries at once, and within the start's collector pacing,
	// so that its garbage is returned with theirs.
	Beside func(ctx context.Context, src svc.EventReader) error
}

// beside runs l.Beside, if set.
func (l Loader) beside(ctx context.Context, src svc.EventReader) error {
	if l.Beside == nil {
		return nil
	}
	return l.Beside(ctx, src)
}

// Options say how a rebuild may run.
type Options struct {
	// Parallel: src answers several queries at once (the store reads on
	// a pool of connections; a snapshot of a shared store is one
	// transaction, which does not).
	Parallel bool
	// Startup: nothing else runs yet, so the process's GC may be tuned
	// for the replay and its garbage returned at the end.
	Startup bool
	// HaveProducts: the products are loaded already (by a restore that
	// then refused its snapshot).
	HaveProducts bool
}

// Rebuild loads the products and replays the events inside the windows
// from src (the store, or one snapshot of a shared store) into the engine e.
//
// A restart must be quick with tens of millions of events, so the work is
// spread over the cores: the store decodes views on several connections,
// purchases are read meanwhile, and views are counted by a few goroutines
// that each own a share of the products, so that every product still meets
// its events in time order.
func (l Loader) Rebuild(ctx context.Context, src svc.EventReader, e *window.Engine, opts Options) error {
	start, now := time.Now(), l.Now()
	if opts.Startup {
		// Not in a recount, where the old engine is still live beside it
		// and the process serves meanwhile.
		defer startPacing()()
	}
	var lines int
	var productErr, purchaseErr, besideErr error
	var wg sync.WaitGroup
	if opts.Parallel {
		wg.Go(func() { besideErr = l.beside(ctx, src) })
	}
	if !opts.HaveProducts {
		// Loading the products uses a core only in part (their catalog is
		// built on one goroutine): beside the replay, the other core is
		// not left idle, as a restore does.
		if opts.Parallel {
			wg.Go(func() { productErr = l.loadProducts(ctx, src) })
		} else if err := l.loadProducts(ctx, src); err != nil {
			return err
		}
	}
	readPurchases := func() {
		purchaseErr = src.PurchaseLines(ctx, now.Add(-svc.MaxPurchaseWindow), func(r svc.PurchaseRecord) error {
			e.AddPurchase(r.Product, r.Time, r.Units, now)
			l.Price(r)
			lines++
			return nil
		})
	}
	if opts.Parallel {
		wg.Go(readPurchases)
	}
	views, viewErr := replayViews(ctx, src, e, now)
	wg.Wait()
	if !opts.Parallel && viewErr == nil {
		readPurchases()
		if purchaseErr == nil {
			besideErr = l.beside(ctx, src)
		}
	}
	if err := errors.Join(productErr, viewErr, purchaseErr, besideErr); err != nil {
		return err
	}
	e.Trim()
	// The replay's garbage (decoded rows, outgrown tables) is several
	// times what stays: after a large one, hand it back to the system now
	// rather than keep it resident until the heap grows into it.
	if opts.Startup && views+lines > 1_000_000 {
		debug.FreeOSMemory()
	}
	l.Logger.Info("counts rebuilt", "views", views, "purchase_lines", lines, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// loadProducts puts every stored product into the ref index, and into the
// catalog with its verified attributes only (docs/security.md,
// Provenance), parsed on every core.
func (l Loader) loadProducts(ctx context.Context, src svc.EventReader) error {
	return l.Catalog.Load(func(put func(*svc.Product)) error {
		return src.Products(ctx, func(p *svc.Product) error {
			l.Refs.Put(p.BrandID, p.ProductID, p.Ref)
			for _, n := range p.Names { // a proof by any of its names reads it
				l.Refs.Put(p.BrandID, n, p.Ref)
			}
			put(p.VerifiedOnly())
			return nil
		})
	})
}

// replayViews feeds the stored views to the engine from several goroutines,
// each owning the products whose ref falls to it. A store that hands its
// views over as they are counted (svc.ViewCounter) hashes each session of
// a block once, on the reading goroutine, and decodes no string.
func replayViews(ctx context.Context, src svc.EventReader, e *window.Engine, now time.Time) (int, error) {
	const batch = 4096
	workers := max(runtime.GOMAXPROCS(0), 2)
	queues := make([]chan []svc.CountedView, workers)
	pending := make([][]svc.CountedView, workers)
	free := make(chan []svc.CountedView, 4*workers) // batches come back for reuse
	var wg sync.WaitGroup
	for i := range queues {
		queues[i] = make(chan []svc.CountedView, 4)
		wg.Go(func() {
			for b := range queues[i] {
				for _, v := range b {
					e.AddViewUnixMilli(v.Product, v.UnixMilli, v.Session, now)
				}
				select {
				case free <- b[:0]:
				default:
				}
			}
		})
	}
	views := 0
	add := func(v svc.CountedView) {
		w := int(uint64(v.Product) % uint64(workers))
		if pending[w] == nil {
			select {
			case pending[w] = <-free:
			default:
				pending[w] = make([]svc.CountedView, 0, batch)
			}
		}
		pending[w] = append(pending[w], v)
		if len(pending[w]) == batch {
			queues[w] <- pending[w]
			pending[w] = nil
		}
		views++
	}
	since := now.Add(-svc.MaxViewWindow)
	var err error
	if vc, ok := src.(svc.ViewCounter); ok {
		err = vc.CountedViews(ctx, since, e.SessionHashBytes, func(vs []svc.CountedView) error {
			for _, v := range vs {
				add(v)
			}
			return nil
		})
	} else {
		err = src.Views(ctx, since, func(r svc.ViewRecord) error {
			add(svc.CountedView{Product: r.Product, UnixMilli: r.Time.UnixMilli(), Session: e.SessionHash(r.SessionID)})
			return nil
		})
	}
	for w, q := range queues {
		if len(pending[w]) > 0 {
			q <- pending[w]
		}
		close(q)
	}
	wg.Wait()
	return views, err
}
