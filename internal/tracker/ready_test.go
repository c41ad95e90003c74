package tracker

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/testdisk"
	"github.com/svc-project/svc/internal/testwait"
)

// An outside probe found that on a full disk every write failed and the node
// stayed ready. A failed commit answers EUNAVAILABLE, Ready says so until
// the store can write again, and then recovers by itself, with no write
// sent to it meanwhile.
func TestReadyFollowsFailingCommits(t *testing.T) {
	dir := testdisk.Small(t, "8m")
	ctx := context.Background()
	store, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Now().UTC().Truncate(time.Second)
	if err := store.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	tr, err := Open(ctx, store, Config{Now: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler), Catalog: enrich.NewCatalog()})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Ready(ctx); err != nil {
		t.Fatalf("ready before: %v", err)
	}
	filler := filepath.Join(dir, "filler")
	testdisk.Fill(t, filler)
	title := strings.Repeat("t", 500)
	for i := 0; ; i++ {
		if i == 5000 {
			t.Fatal("5,000 views on a full disk were all stored")
		}
		ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", i), Title: &title}}
		err := CollectView(tr, ev)
		if err == nil {
			continue
		}
		if svc.ErrorCode(err) != svc.EUNAVAILABLE {
			t.Fatalf("a write on a full disk: %v, want %s", err, svc.EUNAVAILABLE)
		}
		break
	}
	if err := tr.Ready(ctx); svc.ErrorCode(err) != svc.EUNAVAILABLE {
		t.Fatalf("ready on a full disk: %v, want %s", err, svc.EUNAVAILABLE)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, func() error { return tr.Ready(ctx) })
}
