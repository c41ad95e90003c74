package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres"
	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/storetest"
	"github.com/svc-project/svc/internal/viewblock"
)

var ctx = context.Background()

func open(t testing.TB, url string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestConformance runs the suite every store passes.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) svc.Store { return open(t, pgtest.URL(t)) })
}

// TestChangeFeedConformance runs the feed's cases with two Store values on one
// database, as two nodes have.
func TestChangeFeedConformance(t *testing.T) {
	storetest.RunChangeFeed(t, func(t *testing.T) (a, b storetest.FeedStore) {
		url := pgtest.URL(t)
		return open(t, url), open(t, url)
	})
}

// TestNodesMigrateTogether opens several stores on one new database at
// once: the migrations run once, under the lock, and every node starts.
func TestNodesMigrateTogether(t *testing.T) {
	url := pgtest.URL(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := postgres.Open(ctx, url)
			if err == nil {
				err = s.CreateBrand(ctx, &svc.Brand{ID: svc.NewBrandID(), Name: "x", CreatedAt: time.Now()}, nil)
				s.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenErrorNamesTheDatabase(t *testing.T) {
	_, err := postgres.Open(ctx, "postgres://nobody:secret@127.0.0.1:1/svc?connect_timeout=2")
	if err == nil || !strings.Contains(err.Error(), `database "svc" on 127.0.0.1:1`) || strings.Contains(err.Error(), "secret") {
		t.Fatalf("error %v: want the database named, without the password", err)
	}
}

func brand(t *testing.T, s *postgres.Store) string {
	t.Helper()
	id := svc.NewBrandID()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: id, Name: "Race", CreatedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	return id
}

func view(brandID, product, idem string) *svc.Write {
	e := &svc.ViewEvent{BrandID: brandID, Product: svc.ViewProduct{ProductID: product}}
	e.Meta = svc.EventMeta{EventID: fmt.Sprintf("ev-%p", e), Time: time.Now(), ReceivedAt: time.Now()}
	return &svc.Write{View: e, MayRegister: true, IdempotencyKey: idem}
}

func order(brandID, id, product string) *svc.Write {
	one := int64(1)
	e := &svc.PurchaseEvent{BrandID: brandID, Order: svc.Order{OrderID: id, Items: []svc.PurchaseItem{{ProductID: product, Quantity: &one}}}}
	e.Meta = svc.EventMeta{EventID: fmt.Sprintf("ev-%p", e), Time: time.Now(), ReceivedAt: time.Now()}
	return &svc.Write{Purchase: e, MayRegister: true}
}

// TestNodesRaceOnOneOrderAndOneKey has two stores (two nodes) append the
// same orders, idempotency keys and new products at the same moment: each
// counts once, and the loser waits and answers duplicate or replay.
func TestNodesRaceOnOneOrderAndOneKey(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url), open(t, url)
	br := brand(t, a)
	const rounds = 40
	for i := 0; i < rounds; i++ {
		var batches [2][]*svc.Write
		for n := range batches {
			batches[n] = []*svc.Write{
				order(br, fmt.Sprint("o", i), fmt.Sprint("p", i)),
				view(br, fmt.Sprint("q", i), fmt.Sprint("k", i)),
				view(br, "shared", ""), // counts on both
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for n, s := range []*postgres.Store{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[n] = s.Append(ctx, batches[n])
			}()
		}
		close(start)
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("round %d: %v / %v", i, errs[0], errs[1])
		}
		o0, o1 := batches[0][0].Result, batches[1][0].Result
		if (o0.Status == svc.StatusAccepted) == (o1.Status == svc.StatusAccepted) || o0.EventID != o1.EventID {
			t.Fatalf("round %d: one order sent to two nodes: %+v / %+v", i, o0, o1)
		}
		k0, k1 := batches[0][1].Result, batches[1][1].Result
		if k0.Replay == k1.Replay || k0.EventID != k1.EventID || k0.Status != svc.StatusAccepted || k1.Status != svc.StatusAccepted {
			t.Fatalf("round %d: one key sent to two nodes: %+v / %+v", i, k0, k1)
		}
		if batches[0][1].Result.Err != nil || batches[0][2].Result.Status != svc.StatusAccepted || batches[1][2].Result.Status != svc.StatusAccepted {
			t.Fatalf("round %d: %+v / %+v", i, batches[0][2].Result, batches[1][2].Result)
		}
	}
	var views, lines, products int
	_ = a.Views(ctx, time.Now().Add(-time.Hour), func(svc.ViewRecord) error { views++; return nil })
	_ = a.PurchaseLines(ctx, time.Now().Add(-time.Hour), func(svc.PurchaseRecord) error { lines++; return nil })
	_ = a.Products(ctx, func(*svc.Product) error { products++; return nil })
	if views != 3*rounds || lines != rounds || products != 2*rounds+1 {
		t.Fatalf("%d views, %d orders, %d products; want %d, %d, %d", views, lines, products, 3*rounds, rounds, 2*rounds+1)
	}
}

// TestChangeFeed checks that a node's feed hands it every product and
// event another node commits, once, and none of its own, including a
// transaction that commits after a later one.
func TestChangeFeed(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url), open(t, url)
	br := brand(t, a)
	before := view(br, "p0", "")
	if err := b.Append(ctx, []*svc.Write{before}); err != nil {
		t.Fatal(err)
	}
	var rebuilt int
	cur, err := a.ReadSnapshot(ctx, func(r svc.EventReader) error {
		return r.Views(ctx, time.Now().Add(-time.Hour), func(svc.ViewRecord) error { rebuilt++; return nil })
	})
	if err != nil || rebuilt != 1 {
		t.Fatalf("snapshot: %d views, %v", rebuilt, err)
	}
	seen := map[string]int{}
	poll := func() *svc.Changes {
		t.Helper()
		ch, err := a.Changes(ctx, cur)
		if err != nil {
			t.Fatal(err)
		}
		cur = ch.Cursor
		for _, w := range ch.Writes {
			seen[w.Result.EventID]++
		}
		return ch
	}
	if ch := poll(); len(ch.Writes) != 0 || len(ch.Products) != 0 {
		t.Fatalf("changes before any: %+v", ch)
	}

	// A transaction that holds a row while later ones commit.
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	late, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Its block takes its id before the others', and commits after them.
	lateView := viewblock.View{EventID: "late", Brand: br, TS: time.Now().UnixMilli(), ReceivedAt: time.Now().UnixMilli()}
	if err := late.QueryRow(ctx, "SELECT id, nextval('view_events_id_seq') FROM products WHERE product_id = 'p0'").Scan(&lateView.Product, &lateView.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := late.Exec(ctx, "INSERT INTO view_blocks (id, last, min_ts, max_ts, n, data) VALUES ($1, $1, $2, $2, 1, $3)",
		lateView.ID, lateView.TS, viewblock.Append(nil, []viewblock.View{lateView})); err != nil {
		t.Fatal(err)
	}
	// And a row, as a node of the version before writes during an upgrade.
	if _, err := late.Exec(ctx, `INSERT INTO view_events (event_id, product, ts, received_at, keyed)
		SELECT 'late-row', id, $1, $1, false FROM products WHERE product_id = 'p0'`, time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}

	own := view(br, "p1", "")
	if err := a.Append(ctx, []*svc.Write{own}); err != nil {
		t.Fatal(err)
	}
	theirs := []*svc.Write{view(br, "p2", ""), order(br, "o1", "p1"), view(br, "p1", "")}
	if err := b.Append(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	if _, err := b.EnsureProduct(ctx, &svc.Product{BrandID: br, ProductID: "p3"}); err != nil {
		t.Fatal(err)
	}
	ch := poll()
	products := map[string]bool{}
	for _, p := range ch.Products {
		products[p.ProductID] = true
	}
	if !products["p1"] || !products["p2"] || !products["p3"] || products["p0"] {
		t.Fatalf("products in the changes: %v", products)
	}
	if seen[own.Result.EventID] != 0 || seen["late"] != 0 || seen["late-row"] != 0 || len(ch.Writes) != 3 {
		t.Fatalf("changes %+v", ch.Writes)
	}
	for _, w := range ch.Writes {
		if w.Purchase != nil && (w.Purchase.Order.OrderID != "o1" || len(w.Result.Lines) != 1 || w.Result.Lines[0].Product != own.Result.Lines[0].Product) {
			t.Fatalf("the order %+v", w.Result)
		}
		if w.View != nil && (w.View.BrandID != br || len(w.Result.Lines) != 1 || w.Result.Lines[0].ProductID != w.View.Product.ProductID) {
			t.Fatalf("a view %+v", w.Result)
		}
	}
	if err := late.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	poll()
	poll()
	for _, w := range theirs {
		if seen[w.Result.EventID] != 1 {
			t.Fatalf("event %s seen %d times", w.Result.EventID, seen[w.Result.EventID])
		}
	}
	if seen["late"] != 1 || seen["late-row"] != 1 || seen[before.Result.EventID] != 0 {
		t.Fatalf("the late transaction's views seen %d and %d times, the one before the snapshot %d", seen["late"], seen["late-row"], seen[before.Result.EventID])
	}
}
