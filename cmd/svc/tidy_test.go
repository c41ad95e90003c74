package main

import (
	"context"
	"log/slog"
	"testing"

	"github.com/svc-project/svc/internal/postgres/pgtest"
)

// TestPostgresNodeTidies: a node on PostgreSQL hands its store's Tidy to
// the tracker's sweep; the embedded store has none to hand.
func TestPostgresNodeTidies(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	pg, err := (&storeFlags{store: pgtest.URL(t)}).openStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	tc := (&serveConfig{}).trackerConfig(pg, "", log, nil)
	if tc.Tidy == nil {
		t.Fatal("a node on PostgreSQL: no Tidy in the tracker's config")
	}
	if _, err := tc.Tidy(ctx); err != nil {
		t.Fatal(err)
	}
	embedded, err := (&storeFlags{data: t.TempDir(), create: true}).openStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer embedded.Close()
	if tc := (&serveConfig{}).trackerConfig(embedded, "", log, nil); tc.Tidy != nil {
		t.Error("the embedded store: a Tidy in the tracker's config")
	}
}
