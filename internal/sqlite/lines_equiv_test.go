package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

type rec struct {
	order    int64
	product  svc.ProductRef
	ts       int64
	units    int64
	currency string
	price    string
}

func fmtRec(order int64, r svc.PurchaseRecord) rec {
	p := "nil"
	if r.UnitPrice != nil {
		p = fmt.Sprintf("%.12g", *r.UnitPrice)
	}
	return rec{order, r.Product, r.Time.UnixMilli(), r.Units, r.Currency, p}
}

// The replay's lines, summed in Go (lines.go), must be the records the SQL
// GROUP BY they replaced gave: random orders with repeated products apart,
// missing prices and currencies, and many orders sharing one second.
func TestLinesEquivalentToGroupBy(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, migratedDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", Domains: []string{"shop.example"}, CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var batch []*svc.Write
	for i := range 2000 {
		var items []svc.PurchaseItem
		for range 1 + rng.IntN(6) {
			q := int64(1 + rng.IntN(5))
			it := svc.PurchaseItem{ProductID: fmt.Sprint("p", rng.IntN(4)), Quantity: &q}
			if rng.IntN(5) > 0 {
				pr := float64(rng.IntN(10000)) / 100
				it.UnitPrice = &pr
			}
			items = append(items, it)
		}
		var cur *string
		if rng.IntN(3) > 0 {
			c := "EUR"
			cur = &c
		}
		at := t0.Add(-time.Duration(rng.IntN(50)) * time.Minute)
		e := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: fmt.Sprint("o", i), Currency: cur, Items: items}}
		e.Meta = svc.EventMeta{EventID: fmt.Sprint("ev", i), Time: at, ReceivedAt: t0}
		batch = append(batch, &svc.Write{Purchase: e, MayRegister: true})
	}
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	since := t0.Add(-40 * time.Minute)
	var old []rec
	rows, err := s.r.QueryContext(ctx, `SELECT e.id, i.product, e.ts, sum(i.quantity), coalesce(e.currency, ''),
			CASE WHEN count(i.unit_price) = count(*) THEN sum(i.quantity * i.unit_price) / sum(i.quantity) END
		FROM purchase_events e JOIN purchase_items i ON i.purchase = e.id
		WHERE e.id >= ? AND e.ts >= ? GROUP BY e.id, i.product ORDER BY e.id`, 0, millis(since))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, ts int64
		var r svc.PurchaseRecord
		var p sql.NullFloat64
		if err := rows.Scan(&id, &r.Product, &ts, &r.Units, &r.Currency, &p); err != nil {
			t.Fatal(err)
		}
		r.Time = fromMillis(ts)
		if p.Valid {
			r.UnitPrice = &p.Float64
		}
		old = append(old, fmtRec(id, r))
	}
	rows.Close()
	var after []rec
	if err := s.PurchaseLinesAfter(ctx, 0, since, func(id int64, r svc.PurchaseRecord) error { after = append(after, fmtRec(id, r)); return nil }); err != nil {
		t.Fatal(err)
	}
	var byTime []rec
	if err := s.PurchaseLines(ctx, since, func(r svc.PurchaseRecord) error { byTime = append(byTime, fmtRec(0, r)); return nil }); err != nil {
		t.Fatal(err)
	}
	cmpRec := func(a, b rec) int {
		if a.order != b.order {
			return int(a.order - b.order)
		}
		if a.product != b.product {
			return int(a.product - b.product)
		}
		return 0
	}
	slices.SortStableFunc(old, cmpRec)
	slices.SortStableFunc(after, cmpRec)
	if !slices.Equal(old, after) {
		t.Fatalf("after: %d vs %d records differ", len(after), len(old))
	}
	for i := range old {
		old[i].order = 0
	}
	less := func(a, b rec) int { return cmpStr(fmt.Sprint(a), fmt.Sprint(b)) }
	slices.SortFunc(old, less)
	slices.SortFunc(byTime, less)
	if !slices.Equal(old, byTime) {
		t.Fatalf("by time: %d vs %d records differ", len(byTime), len(old))
	}
	t.Logf("%d records equal", len(old))
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
