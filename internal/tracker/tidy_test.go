package tracker

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// TestSweepTidies: each sweep calls Config.Tidy, the store's upkeep that
// the server's autovacuum may not do (postgres.Store.Tidy).
func TestSweepTidies(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, sqlitetest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	tidied := make(chan struct{}, 8)
	tr, err := Open(ctx, store, Config{Logger: slog.New(slog.DiscardHandler), Catalog: enrich.NewCatalog(),
		SweepInterval: 10 * time.Millisecond, Tidy: func(context.Context) ([]string, error) {
			select {
			case tidied <- struct{}{}:
			default:
			}
			return []string{"products"}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for range 2 {
		select {
		case <-tidied:
		case <-time.After(10 * time.Second):
			t.Fatal("no sweep called Tidy in 10 s")
		}
	}
}
