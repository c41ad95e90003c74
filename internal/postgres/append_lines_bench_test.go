package postgres_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres/pgtest"
)

// BenchmarkAppendOrderLines appends the largest batch a request may send,
// 10 orders of 500 lines (5,000 lines), of 500 known products
// (bench/RESULTS.md, One brand's batch beside another's writes):
//
//	go test -run '^$' -bench AppendOrderLines -benchtime 20x ./internal/postgres
func BenchmarkAppendOrderLines(b *testing.B) {
	s := open(b, pgtest.URL(b))
	brandID := svc.NewBrandID()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: brandID, Name: "Lines", CreatedAt: time.Now()}, nil); err != nil {
		b.Fatal(err)
	}
	n := 0
	batch := func() []*svc.Write {
		ws := make([]*svc.Write, 10)
		for o := range ws {
			items := make([]svc.PurchaseItem, 500)
			for l := range items {
				q := int64(1)
				items[l] = svc.PurchaseItem{ProductID: fmt.Sprint("p", l), Quantity: &q}
			}
			e := &svc.PurchaseEvent{BrandID: brandID, Order: svc.Order{OrderID: fmt.Sprint("o", n), Items: items}}
			e.Meta = svc.EventMeta{EventID: fmt.Sprint("ev-", n), Time: time.Now(), ReceivedAt: time.Now(), Keyed: true}
			ws[o] = &svc.Write{Purchase: e, MayRegister: true}
			n++
		}
		return ws
	}
	if err := s.Append(ctx, batch()); err != nil { // the products known
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		ws := batch()
		b.StartTimer()
		if err := s.Append(ctx, ws); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*5000), "µs/line")
}
