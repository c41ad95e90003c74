package sqlite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// A batch that names many products reads them in one query (prefetch):
// products stored before, which a new writer does not hold in its memo,
// keep their refs and take the batch's attributes; new ones are
// registered once, also when the batch names them twice.
func TestAppendPrefetchesProducts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := sqlitetest.Dir(t)
	now := time.Now()
	order := func(id, title string, ids ...string) *svc.Write {
		var items []svc.PurchaseItem
		for _, p := range ids {
			q := int64(1)
			items = append(items, svc.PurchaseItem{ProductID: p, Quantity: &q, Title: &title})
		}
		e := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: id, Items: items}}
		e.Meta = svc.EventMeta{EventID: "e-" + id, Time: now, ReceivedAt: now, Keyed: true}
		return &svc.Write{Purchase: e, MayRegister: true}
	}
	var old, fresh []string
	for i := range 40 {
		old, fresh = append(old, fmt.Sprint("old-", i)), append(fresh, fmt.Sprint("new-", i))
	}
	s, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, []*svc.Write{order("o1", "before", old...)}); err != nil {
		t.Fatal(err)
	}
	refs := products(t, s)
	s.Close()

	s, err = sqlite.Open(ctx, dir) // a writer with nothing in its memo
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws := []*svc.Write{order("o2", "after", append(append([]string{}, old...), fresh...)...), order("o3", "after", fresh...)}
	if err := s.Append(ctx, ws); err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.Result.Status != svc.StatusAccepted || len(w.Result.Lines) == 0 {
			t.Fatalf("%+v", w.Result)
		}
	}
	after := products(t, s)
	if len(after) != 80 {
		t.Errorf("%d products, want 80", len(after))
	}
	for id, ref := range refs {
		if after[id] != ref {
			t.Errorf("%s: ref %d, was %d", id, after[id], ref)
		}
	}
	titles := 0
	if err := s.Products(ctx, func(p *svc.Product) error {
		if p.Title != nil && *p.Title == "after" {
			titles++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if titles != 80 {
		t.Errorf("%d products have the batch's title, want 80", titles)
	}
}

func products(t *testing.T, s *sqlite.Store) map[string]svc.ProductRef {
	t.Helper()
	out := map[string]svc.ProductRef{}
	if err := s.Products(context.Background(), func(p *svc.Product) error {
		out[p.ProductID] = p.Ref
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
