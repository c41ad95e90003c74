package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/collect"
	"github.com/svc-project/svc/internal/shops"
)

// importBatch is how many orders one transaction of svc import writes:
// large enough that the fsync is amortised, small enough that a server
// writing beside it waits a few milliseconds at most.
const importBatch = 500

// maxListed is how many refused lines the summary names one by one.
const maxListed = 20

// importSummary is what svc import did.
type importSummary struct {
	imported, duplicates, old, skipped, refused int
	refusals                                    []string
}

func importCmd(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("import")
	brandID := fs.String("brand", "", "the brand the orders are imported to (required)")
	file := fs.String("file", "", "the file of past orders (required)")
	format := fs.String("format", "", "jsonl (svc export's) or shopify-csv (Shopify's order export); default: by the file's extension")
	retention := fs.Duration("retention", svc.DefaultRetention, "the servers' --retention: older orders are skipped (env SVC_RETENTION)")
	progress := fs.Bool("progress", isTerminal(env.stderr), "draw a progress bar on standard error (default: when it is a terminal)")
	if v := env.getenv("SVC_RETENTION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return usageError{fmt.Sprintf("SVC_RETENTION %q: want a duration such as 840h", v)}
		}
		*retention = d
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if *brandID == "" || *file == "" {
		return usageError{"--brand and --file are required"}
	}
	switch *format {
	case "":
		*format = shops.FormatJSONL
		if strings.EqualFold(filepath.Ext(*file), ".csv") {
			*format = shops.FormatShopifyCSV
		}
	case shops.FormatJSONL, shops.FormatShopifyCSV:
	default:
		return usageError{fmt.Sprintf("--format %q: want jsonl or shopify-csv", *format)}
	}
	f, err := os.Open(*file)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	brand, err := store.Brand(ctx, *brandID)
	if err != nil {
		return err
	}
	now := time.Now()
	im := &importer{store: store, brandID: *brandID, brand: brand,
		pipeline: &collect.Pipeline{Now: func() time.Time { return now }, Retention: *retention}}
	read := &countingReader{r: f}
	stop := func() {}
	if *progress {
		stop = drawProgress(env.stderr, filepath.Base(*file), st.Size(), read, im)
	}
	start := time.Now()
	err = im.run(ctx, read, *format)
	stop()
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(env.stderr, "\ninterrupted: what is imported stays; run the same command again to go on\n")
	} else if err != nil {
		return err
	}
	s := im.sum
	fmt.Fprintf(env.stdout, "imported %d %s of brand %s from %s in %s\n", s.imported, plural(s.imported, "order", "orders"), *brandID, *file, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(env.stdout, "  already there:            %d\n", s.duplicates)
	fmt.Fprintf(env.stdout, "  older than the retention: %d (skipped)\n", s.old)
	fmt.Fprintf(env.stdout, "  nothing to count:         %d (skipped: not paid, cancelled, refunded, views, no product)\n", s.skipped)
	fmt.Fprintf(env.stdout, "  refused:                  %d\n", s.refused)
	for _, r := range s.refusals {
		fmt.Fprintln(env.stdout, "    "+r)
	}
	if s.refused > len(s.refusals) {
		fmt.Fprintf(env.stdout, "    and %d more\n", s.refused-len(s.refusals))
	}
	switch {
	case err != nil:
		return err
	case s.refused > 0:
		return fmt.Errorf("%d %s refused (listed above); the rest is imported", s.refused, plural(s.refused, "line", "lines"))
	}
	return nil
}

// importer writes a file's orders to the store in batches.
type importer struct {
	store    svc.Store
	brandID  string
	brand    *svc.Brand        // what its events may say (svc.Admit)
	pipeline *collect.Pipeline // the checks of every event; the writes are the importer's

	pending []pendingWrite // the file's orders to write, in the file's order until sorted
	sum     importSummary
	// For the progress bar: orders to write once the file is read, and
	// orders written.
	total, done atomic.Int64
}

// pendingWrite is an order to write and the line it came from.
type pendingWrite struct {
	w    *svc.Write
	line int
}

func (im *importer) run(ctx context.Context, r io.Reader, format string) error {
	each := func(rec shops.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		im.add(rec)
		return nil
	}
	var err error
	if format == shops.FormatShopifyCSV {
		var productOf func(sku, name string) shops.CSVProduct
		if productOf, err = im.products(ctx); err != nil {
			return err
		}
		err = shops.ReadShopifyCSV(r, im.brandID, productOf, each)
	} else {
		err = shops.ReadExport(r, im.brandID, each)
	}
	if err != nil {
		return err
	}
	// Oldest first: the counts take an event at a second before their
	// newest in time proportional to what comes after it, so a file in
	// the platforms' order, newest first, would cost each server time
	// quadratic in its orders. Only orders within the retention are held.
	slices.SortStableFunc(im.pending, func(a, b pendingWrite) int { return a.w.Purchase.Meta.Time.Compare(b.w.Purchase.Meta.Time) })
	im.total.Store(int64(len(im.pending)))
	for i := 0; i < len(im.pending); i += importBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := im.flush(context.WithoutCancel(ctx), im.pending[i:min(i+importBatch, len(im.pending))]); err != nil {
			return err
		}
	}
	return nil
}

// products maps the lines of Shopify's export, which name no product id,
// to the brand's products (docs/integrations.md, Importing history):
// by the line's SKU when it is one of the brand's names (a product's id
// or a name registered for it, svc names.go) or a product's SKU; else by
// the line's name, "Product - Variant", whose product part is a product's
// title; else a new product, with the SKU as its id (the product part
// without one) and the product part as its title, which the file's other
// variants of the same product then join. A line's SKU becomes a name of
// the product it counts under; a product is never given a variant's name.
func (im *importer) products(ctx context.Context) (func(sku, name string) shops.CSVProduct, error) {
	known := map[string]string{} // a brand's names and product ids: the product id
	bySKU := map[string]string{}
	byTitle := map[string]string{}
	err := im.store.Products(ctx, func(p *svc.Product) error {
		if p.BrandID != im.brandID {
			return nil
		}
		known[p.ProductID] = p.ProductID
		for _, n := range p.Names {
			known[n] = p.ProductID
		}
		if p.SKU != nil {
			bySKU[*p.SKU] = p.ProductID
		}
		if p.Title != nil {
			if _, ok := byTitle[*p.Title]; !ok {
				byTitle[*p.Title] = p.ProductID
			}
		}
		return nil
	})
	return func(sku, name string) shops.CSVProduct {
		if id, ok := known[sku]; ok && sku != "" {
			return shops.CSVProduct{ProductID: id}
		}
		var aliases []string
		if sku != "" {
			aliases = []string{sku}
		}
		if id, ok := bySKU[sku]; ok && sku != "" {
			return shops.CSVProduct{ProductID: id, Aliases: aliases}
		}
		base := shops.ShopifyBaseTitle(name)
		for _, t := range []string{name, base} {
			if id, ok := byTitle[t]; ok && t != "" {
				if sku != "" {
					known[sku] = id
				}
				return shops.CSVProduct{ProductID: id, Aliases: aliases}
			}
		}
		id := sku
		if id == "" {
			id = base
		}
		if id == "" {
			return shops.CSVProduct{}
		}
		known[id], byTitle[base] = id, id
		title := base
		return shops.CSVProduct{ProductID: id, Title: &title}
	}, err
}

// add decides a record: a refusal, a skip, or a write to make.
func (im *importer) add(rec shops.Record) {
	refuse := func(msg string) {
		im.sum.refused++
		if len(im.sum.refusals) < maxListed {
			im.sum.refusals = append(im.sum.refusals, fmt.Sprintf("line %d: %s", rec.Line, msg))
		}
	}
	switch {
	case rec.Err != nil:
		refuse(rec.Err.Error())
		return
	case rec.Action.Kind != shops.Purchase:
		im.sum.skipped++
		return
	}
	ev := collect.Event{Write: &svc.Write{Purchase: rec.Action.Order}}
	switch err := im.pipeline.Check(collect.Source{Kind: collect.History, Brand: im.brand}, &ev); {
	case err != nil:
		var e *svc.Error
		switch {
		case errors.As(err, &e) && len(e.Fields) > 0:
			refuse(e.Message + ": " + fieldList(e.Fields))
		case errors.As(err, &e):
			refuse(e.Message)
		default:
			refuse(err.Error())
		}
	case ev.Ignored == collect.IgnoredOld:
		im.sum.old++
	default:
		im.pending = append(im.pending, pendingWrite{ev.Write, rec.Line})
	}
}

func fieldList(fields []svc.FieldError) string {
	var parts []string
	for _, f := range fields {
		parts = append(parts, f.Field+" "+f.Message)
	}
	return strings.Join(parts, "; ")
}

// flush writes a batch in one transaction. Duplicates (orders already
// there) are what makes an import idempotent and resumable. Running
// servers count each batch from their store's change feed, within a poll
// of its commit.
func (im *importer) flush(ctx context.Context, batch []pendingWrite) error {
	writes := make([]*svc.Write, len(batch))
	for i, p := range batch {
		writes[i] = p.w
	}
	if err := im.store.Append(ctx, writes); err != nil {
		return err
	}
	for _, p := range batch {
		switch r := p.w.Result; {
		case r.Err != nil:
			im.sum.refused++
			if len(im.sum.refusals) < maxListed {
				im.sum.refusals = append(im.sum.refusals, fmt.Sprintf("line %d: %s", p.line, errorText(r.Err)))
			}
		case r.Status == svc.StatusDuplicate:
			im.sum.duplicates++
		default:
			im.sum.imported++
		}
	}
	im.done.Add(int64(len(batch)))
	return nil
}

// countingReader counts the bytes read, for the progress bar.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// drawProgress redraws a progress bar on w five times a second until the
// returned function is called.
func drawProgress(w io.Writer, name string, size int64, read *countingReader, im *importer) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	start := time.Now()
	draw := func() {
		// Reading the file, then writing its orders, oldest first.
		what, frac, n := "reading", 1.0, im.done.Load()
		if size > 0 {
			frac = min(float64(read.n.Load())/float64(size), 1)
		}
		if total := im.total.Load(); total > 0 {
			what, frac = "writing", float64(n)/float64(total)
		}
		const width = 30
		bar := strings.Repeat("=", int(frac*width)) + strings.Repeat(" ", width-int(frac*width))
		rate := float64(n) / max(time.Since(start).Seconds(), 0.001)
		fmt.Fprintf(w, "\r%s %s [%s] %3.0f%%  %d orders written  %.0f/s ", name, what, bar, frac*100, n, rate)
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				draw()
				fmt.Fprintln(w)
				return
			case <-t.C:
				draw()
			}
		}
	}()
	return func() { close(done); <-finished }
}
