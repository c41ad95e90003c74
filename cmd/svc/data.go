package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/wire"
)

// A brand's data, for operators: backups, exports and erasure.

// backuper is a store that can copy itself while a server uses it: the
// embedded SQLite store. PostgreSQL has pg_dump.
type backuper interface {
	Backup(ctx context.Context, path string) error
}

func backup(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("backup")
	to := fs.String("to", "", "the file to write the copy to; it must not exist (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *to == "" {
		return usageError{"--to is required"}
	}
	if sf.store != "" && !strings.HasPrefix(sf.store, "sqlite") {
		return usageError{"svc backup copies the embedded store (--data); back up PostgreSQL with pg_dump (see docs/operations.md)"}
	}
	// SQLite would say only "unable to open database file".
	if dir := filepath.Dir(*to); !isDir(dir) {
		return usageError{fmt.Sprintf("--to %s: the folder %s does not exist", *to, dir)}
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	b, ok := store.(backuper)
	if !ok {
		return usageError{"this store cannot be copied by svc backup; use its own tools (pg_dump for PostgreSQL)"}
	}
	start := time.Now()
	if err := b.Backup(ctx, *to); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "backed up to %s in %s\n", *to, time.Since(start).Round(time.Millisecond))
	return nil
}

// isDir reports whether path is a folder.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// exportLine is one event of svc export: the event's body as the API takes
// it (docs/spec.md, Events), with what the server added. context.timestamp is the
// time the event counts at; given_timestamp the client's, when it was
// replaced by the receive time.
type exportLine struct {
	Type           string            `json:"type"` // one of exportTypes
	EventID        string            `json:"event_id"`
	BrandID        string            `json:"brand_id"`
	Product        *wire.ViewProduct `json:"product,omitempty"`  // a view's or a cart's
	Order          *wire.Order       `json:"order,omitempty"`    // a purchase's
	Quantity       *int64            `json:"quantity,omitempty"` // a cart's
	Context        any               `json:"context"`            // wire.ViewContext or wire.PurchaseContext
	ReceivedAt     time.Time         `json:"received_at"`
	Keyed          bool              `json:"keyed"`
	GivenTimestamp *time.Time        `json:"given_timestamp,omitempty"`
}

// The types of export lines. docs/operations.md names them, and a test
// checks that it names exactly these, and that an export has each.
const (
	exportView     = "view"
	exportPurchase = "purchase"
	exportCart     = "cart"
)

var exportTypes = []string{exportView, exportPurchase, exportCart}

func export(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("export")
	brandID := fs.String("brand", "", "the brand's id (required)")
	out := fs.String("out", "", "the file to write, replaced if it exists (default: standard output)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *brandID == "" {
		return usageError{"--brand is required"}
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	w, f := env.stdout, (*os.File)(nil)
	if *out != "" {
		// The events name shoppers' sessions: private, whatever the umask.
		if f, err = os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err != nil {
			return err
		}
		defer f.Close()
		if err := f.Chmod(0o600); err != nil {
			return err
		}
		w = f
	}
	n, err := writeExport(ctx, store, *brandID, w)
	if err != nil {
		return err
	}
	if f != nil {
		if err := f.Sync(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(env.stderr, "exported %d %s of brand %s to %s\n", n, plural(n, "event", "events"), *brandID, *out)
	}
	return nil
}

// writeExport writes the brand's events as JSON Lines and returns how many.
func writeExport(ctx context.Context, store svc.EventStore, brandID string, w io.Writer) (int, error) {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	n := 0
	err := store.ExportEvents(ctx, brandID, func(e svc.ExportedEvent) error {
		var line exportLine
		var m *svc.EventMeta
		if v := e.View; v != nil {
			p := wire.ViewProduct(v.Product)
			line.Type, line.BrandID, line.Product, line.Context, m = exportView, v.BrandID, &p, wire.ViewContext(v.Context), &v.Meta
		} else if c := e.Cart; c != nil {
			p := wire.ViewProduct(c.Product)
			line.Type, line.BrandID, line.Product, line.Context, m = exportCart, c.BrandID, &p, wire.ViewContext(c.Context), &c.Meta
			line.Quantity = c.Quantity
		} else {
			p := e.Purchase
			o := wire.FromOrder(&p.Order)
			line.Type, line.BrandID, line.Order, line.Context, m = exportPurchase, p.BrandID, &o, wire.PurchaseContext(p.Context), &p.Meta
		}
		line.EventID, line.ReceivedAt, line.Keyed, line.GivenTimestamp = m.EventID, m.ReceivedAt, m.Keyed, m.GivenTime
		n++
		return enc.Encode(line)
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

func forget(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("forget")
	brandID := fs.String("brand", "", "the brand's id (required)")
	session := fs.String("session", "", "the shopper's session_id whose events are erased (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *brandID == "" || *session == "" {
		return usageError{"--brand and --session are required"}
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	n, err := store.ForgetSession(ctx, *brandID, *session)
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(env.stdout, "brand %s has no events of session %q: nothing erased\n", *brandID, *session)
		return nil
	}
	fmt.Fprintf(env.stdout, "erased %d %s of session %q of brand %s; running servers recount within a second\n", n, plural(int(n), "event", "events"), *session, *brandID)
	return nil
}
