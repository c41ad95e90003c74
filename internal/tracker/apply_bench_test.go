package tracker

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/sqlite"
)

// BenchmarkApply feeds committed writes to the counts, the ref index, the
// catalog and what is kept beside them, as every commit does: a keyed
// view, a keyed add-to-cart and a keyed order of two priced lines, of
// 1,000 known products. Its allocations are those of a commit's applier
// (run with -benchmem).
func BenchmarkApply(b *testing.B) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	tr, err := Open(ctx, store, Config{Logger: slog.New(slog.DiscardHandler), Catalog: enrich.NewCatalog()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tr.Close() })
	now := tr.Now()
	eur, price, session, one, two := "EUR", 19.5, "sess-1", int64(1), int64(2)
	title := func(i int) *string { s := fmt.Sprint("Trail Runner ", i); return &s }
	writes := func(i int) []*svc.Write {
		ref, id := svc.ProductRef(1+i%1000), fmt.Sprint("p", i%1000)
		meta := svc.EventMeta{EventID: fmt.Sprint("ev_", i), Time: now, ReceivedAt: now, Keyed: true}
		line := []svc.Line{{Product: ref, ProductID: id, Units: 1}}
		accepted := func(lines []svc.Line) svc.WriteResult {
			return svc.WriteResult{Status: svc.StatusAccepted, Lines: lines}
		}
		other, otherID := svc.ProductRef(1+(i+1)%1000), fmt.Sprint("p", (i+1)%1000)
		return []*svc.Write{
			{MayRegister: true, Result: accepted(line), View: &svc.ViewEvent{BrandID: "br_1",
				Product: svc.ViewProduct{ProductID: id, Title: title(i)}, Context: svc.ViewContext{SessionID: &session}, Meta: meta}},
			{MayRegister: true, Result: accepted(line), Cart: &svc.CartEvent{BrandID: "br_1",
				Product: svc.ViewProduct{ProductID: id}, Context: svc.ViewContext{SessionID: &session}, Meta: meta}},
			{MayRegister: true, Result: accepted(append(line, svc.Line{Product: other, ProductID: otherID, Units: 2})),
				Purchase: &svc.PurchaseEvent{BrandID: "br_1", Meta: meta, Order: svc.Order{OrderID: fmt.Sprint("o", i), Currency: &eur,
					Items: []svc.PurchaseItem{{ProductID: id, Quantity: &one, UnitPrice: &price}, {ProductID: otherID, Quantity: &two, UnitPrice: &price}}}}},
		}
	}
	batches := make([][]*svc.Write, 1000)
	for i := range batches {
		batches[i] = writes(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		tr.apply(batches[i%len(batches)])
	}
}
