package tracker_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/postgres"
	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/tracker"
)

// node is a tracker on its own connection to a shared database, as one svc
// process of several.
func node(t *testing.T, url string) *tracker.Tracker {
	t.Helper()
	ctx := context.Background()
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tracker.Open(ctx, s, tracker.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), ChangeFeed: s, Catalog: enrich.NewCatalog()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close(); s.Close() })
	return tr
}

func counts(tr *tracker.Tracker, brand, product string) (svc.Proof, error) {
	p, err := tracker.DefaultProof(tr, brand, product)
	if err != nil {
		return svc.Proof{}, err
	}
	return *p, nil
}

// TestNodesFollowEachOther runs two trackers on one database: what one
// accepts, or registers, the other counts at its next poll of the change
// feed, and neither counts anything twice, including events stored before
// it started. The test polls itself rather than waiting for the trackers'
// own polls.
func TestNodesFollowEachOther(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	send := func(tr *tracker.Tracker, n int, session string) {
		t.Helper()
		for i := 0; i < n; i++ {
			ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"}, Context: svc.ViewContext{SessionID: &session}}
			if err := tracker.CollectView(tr, ev); err != nil {
				t.Fatal(err)
			}
		}
		qty := int64(2)
		order := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: fmt.Sprint(session, "-order"), Items: []svc.PurchaseItem{{ProductID: "p1", Quantity: &qty}}}}
		if err := tracker.CollectPurchase(tr, order); err != nil {
			t.Fatal(err)
		}
	}
	a := node(t, url)
	send(a, 3, "s-a") // before b starts: b's rebuild counts them
	b := node(t, url)
	send(a, 2, "s-a") // its order again: a duplicate
	send(b, 4, "s-b")
	if _, err := b.EnsureProduct(ctx, &svc.Product{BrandID: "br_1", ProductID: "p2"}); err != nil {
		t.Fatal(err)
	}
	check := func() error {
		for name, tr := range map[string]*tracker.Tracker{"a": a, "b": b} {
			tr.PollChanges(ctx)
			p, err := counts(tr, "br_1", "p1")
			if err != nil {
				return fmt.Errorf("%s: p1: %v", name, err)
			}
			if p.Views != 9 || p.Viewers != 2 || p.Purchases != 2 || p.Units != 4 {
				return fmt.Errorf("%s: %d views of %d viewers, %d orders of %d units; want 9 views of 2 viewers, 2 orders of 4 units",
					name, p.Views, p.Viewers, p.Purchases, p.Units)
			}
			if _, err := counts(tr, "br_1", "p2"); err != nil {
				return fmt.Errorf("%s: p2: %v", name, err)
			}
		}
		return nil
	}
	if err := check(); err != nil {
		t.Fatal(err)
	}
	// More polls bring nothing twice.
	if err := check(); err != nil {
		t.Fatalf("after another poll: %v", err)
	}
}
