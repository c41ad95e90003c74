package svc_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

func ptr[T any](v T) *T { return &v }

var now = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func viewWrite(keyed bool, key string) *svc.Write {
	v := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1", Title: ptr("T")}}
	v.Meta = svc.EventMeta{EventID: "ev1", Time: now, ReceivedAt: now, Keyed: keyed}
	return &svc.Write{View: v, IdempotencyKey: key, MayRegister: true}
}

func orderWrite(keyed bool, key string, items ...svc.PurchaseItem) *svc.Write {
	e := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: "o1", Items: items}}
	e.Meta = svc.EventMeta{EventID: "ev1", Time: now, ReceivedAt: now, Keyed: keyed}
	return &svc.Write{Purchase: e, IdempotencyKey: key, MayRegister: true}
}

func item(product string, qty int64, price *float64) svc.PurchaseItem {
	return svc.PurchaseItem{ProductID: product, Quantity: &qty, UnitPrice: price}
}

func TestKeyScope(t *testing.T) {
	tests := []struct {
		name string
		w    *svc.Write
		want string
	}{
		{"anonymous view", viewWrite(false, "k"), "view:anonymous"},
		{"keyed view", viewWrite(true, "k"), "view:keyed"},
		{"anonymous purchase", orderWrite(false, "k"), "purchase:anonymous"},
		{"keyed purchase", orderWrite(true, "k"), "purchase:keyed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := svc.IdempotencyKey{BrandID: "br_1", Scope: tt.want, Key: "k"}
			if got := tt.w.Key(); got != want {
				t.Fatalf("Key() = %+v, want %+v", got, want)
			}
		})
	}
}

// lookup is a store of one batch in memory: what Decide asks, and what it
// registers and updates.
type lookup struct {
	answers  map[svc.IdempotencyKey]svc.Answer
	orders   map[string]string // "keyed:" or "anonymous:", then the order id
	products map[string]svc.Product
	names    map[string]string // name to product id
	asked    []string          // the products looked up, in order
	writes   []string          // what was registered or updated
}

func (l *lookup) Answer(_ context.Context, k svc.IdempotencyKey, since time.Time) (svc.Answer, bool, error) {
	if !since.Equal(now.Add(-svc.IdempotencyTTL)) {
		return svc.Answer{}, false, fmt.Errorf("since %s", since)
	}
	a, ok := l.answers[k]
	return a, ok, nil
}

func (l *lookup) Order(_ context.Context, _, orderID string, keyed bool) (string, bool, error) {
	sender := "anonymous:"
	if keyed {
		sender = "keyed:"
	}
	id, ok := l.orders[sender+orderID]
	return id, ok, nil
}

func (l *lookup) PendingCancels(context.Context, string, string) ([]svc.CancelItem, error) {
	return nil, nil
}

func (l *lookup) Product(_ context.Context, _, productID string) (svc.Product, bool, error) {
	l.asked = append(l.asked, productID)
	p, ok := l.products[productID]
	return p, ok, nil
}

func (l *lookup) ProductOf(_ context.Context, _, name string) (string, bool, error) {
	if _, ok := l.products[name]; ok {
		return name, true, nil
	}
	owner, ok := l.names[name]
	return owner, ok, nil
}

func (l *lookup) RegisterName(_ context.Context, n svc.Name, _ time.Time) error {
	if l.names == nil {
		l.names = map[string]string{}
	}
	l.writes = append(l.writes, "name "+n.Name+" "+n.ProductID)
	l.names[n.Name] = n.ProductID
	return nil
}

func (l *lookup) RegisterProduct(_ context.Context, p svc.Product, _ time.Time) error {
	l.writes = append(l.writes, "register "+p.ProductID)
	p.Ref = svc.ProductRef(len(l.products) + 1)
	l.products[p.ProductID] = p
	return nil
}

func (l *lookup) UpdateProduct(_ context.Context, p, set svc.Product, _ time.Time) error {
	l.writes = append(l.writes, fmt.Sprintf("update %s title=%v", p.ProductID, deref(set.Title)))
	l.products[p.ProductID] = p
	return nil
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestDecide(t *testing.T) {
	hash := [32]byte{1}
	stored := func(keyed bool) map[svc.IdempotencyKey]svc.Answer {
		k := orderWrite(keyed, "k").Key()
		return map[svc.IdempotencyKey]svc.Answer{k: {Status: svc.StatusAccepted, EventID: "ev0", BodyHash: hash[:]}}
	}
	known := func() map[string]svc.Product {
		return map[string]svc.Product{"p1": {Ref: 7, BrandID: "br_1", ProductID: "p1", Title: ptr("T")}}
	}
	tests := []struct {
		name       string
		w          *svc.Write
		closed     bool // MayRegister false
		answers    map[svc.IdempotencyKey]svc.Answer
		orders     map[string]string
		products   map[string]svc.Product
		wantAccept bool
		wantResult svc.WriteResult
		wantCode   string
		wantWrites []string
		wantAsked  []string // the products looked up, in order; nil: not checked
	}{
		{name: "new view registers its product", w: viewWrite(false, ""), products: map[string]svc.Product{},
			wantAccept: true, wantResult: svc.WriteResult{Status: svc.StatusAccepted, EventID: "ev1"}, wantWrites: []string{"register p1"}},
		{name: "view of a known product, unchanged", w: viewWrite(false, ""), products: known(),
			wantAccept: true, wantResult: svc.WriteResult{Status: svc.StatusAccepted, EventID: "ev1"}},
		{name: "replay with the same body", w: orderWrite(true, "k", item("p1", 1, nil)), answers: stored(true), products: known(),
			wantResult: svc.WriteResult{Status: svc.StatusAccepted, EventID: "ev0", Replay: true}, wantAsked: []string{}},
		{name: "same key, another body", w: orderWrite(true, "k", item("p1", 1, nil)), answers: stored(true), products: known(),
			wantCode: svc.ECONFLICT},
		{name: "same key of another kind of sender", w: orderWrite(false, "k", item("p1", 1, nil)), answers: stored(true), products: known(),
			orders: map[string]string{}, wantAccept: true, wantResult: svc.WriteResult{Status: svc.StatusAccepted, EventID: "ev1"}},
		{name: "duplicate order", w: orderWrite(true, "", item("p1", 1, nil)), orders: map[string]string{"keyed:o1": "ev0"}, products: known(),
			wantResult: svc.WriteResult{Status: svc.StatusDuplicate, EventID: "ev0"}, wantAsked: []string{}},
		{name: "duplicate anonymous order", w: orderWrite(false, "", item("p1", 1, nil)), orders: map[string]string{"anonymous:o1": "ev0"}, products: known(),
			wantResult: svc.WriteResult{Status: svc.StatusDuplicate, EventID: "ev0"}, wantAsked: []string{}},
		{name: "an anonymous order repeating a keyed one is a duplicate", w: orderWrite(false, "", item("p1", 1, nil)), orders: map[string]string{"keyed:o1": "ev0"}, products: known(),
			wantResult: svc.WriteResult{Status: svc.StatusDuplicate, EventID: "ev0"}, wantAsked: []string{}},
		// An outside probe found that an anonymous purchase squatted a real order id.
		{name: "a keyed order is never a duplicate of an anonymous one", w: orderWrite(true, "", item("p1", 1, nil)), orders: map[string]string{"anonymous:o1": "ev0"}, products: known(),
			wantAccept: true, wantResult: svc.WriteResult{Status: svc.StatusAccepted, EventID: "ev1"}},
		{name: "closed catalog, unknown product", w: viewWrite(false, ""), closed: true, products: map[string]svc.Product{},
			wantCode: svc.ENOTFOUND},
		{name: "closed catalog, one unknown line writes nothing", w: orderWrite(false, "", item("p1", 1, nil), item("p2", 1, nil)),
			closed: true, products: known(), wantCode: svc.ENOTFOUND, wantAsked: []string{"p1", "p2"}},
		{name: "closed catalog, known product, new title changes nothing", w: orderWrite(false, "", svc.PurchaseItem{ProductID: "p1", Quantity: ptr(int64(1)), Title: ptr("New")}),
			closed: true, products: known(), wantAccept: true, wantResult: svc.WriteResult{Status: svc.StatusAccepted, EventID: "ev1"}},
		{name: "new title updates the product", w: orderWrite(false, "", svc.PurchaseItem{ProductID: "p1", Quantity: ptr(int64(1)), Title: ptr("New")}),
			products: known(), wantAccept: true, wantResult: svc.WriteResult{Status: svc.StatusAccepted, EventID: "ev1"},
			wantWrites: []string{"update p1 title=New"}},
		{name: "a product twice in one order is registered once", w: orderWrite(false, "", item("p2", 1, nil), item("p2", 2, nil)),
			products: known(), wantAccept: true, wantResult: svc.WriteResult{Status: svc.StatusAccepted, EventID: "ev1"},
			wantWrites: []string{"register p2"}, wantAsked: []string{"p2", "p2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w
			w.MayRegister = !tt.closed
			if tt.wantCode != svc.ECONFLICT {
				w.BodyHash = hash
			}
			l := &lookup{answers: tt.answers, orders: tt.orders, products: tt.products}
			accept, err := svc.Decide(context.Background(), w, l)
			if err != nil {
				t.Fatal(err)
			}
			if accept != tt.wantAccept {
				t.Errorf("accept = %v, want %v", accept, tt.wantAccept)
			}
			if code := svc.ErrorCode(w.Result.Err); code != tt.wantCode {
				t.Errorf("error %v, want code %q", w.Result.Err, tt.wantCode)
			}
			if tt.wantCode == "" && fmt.Sprint(w.Result) != fmt.Sprint(tt.wantResult) {
				t.Errorf("result %+v, want %+v", w.Result, tt.wantResult)
			}
			if tt.wantAsked != nil && !slices.Equal(l.asked, tt.wantAsked) {
				t.Errorf("products looked up %q, want %q", l.asked, tt.wantAsked)
			}
			if !slices.Equal(l.writes, tt.wantWrites) {
				t.Errorf("store writes %q, want %q", l.writes, tt.wantWrites)
			}
			if remembers := w.IdempotencyKey != "" && tt.wantCode == "" && !tt.wantResult.Replay; w.Remembers() != remembers {
				t.Errorf("Remembers() = %v, want %v", w.Remembers(), remembers)
			}
		})
	}
}

func TestProductUpdate(t *testing.T) {
	verified := func(p svc.Product, a svc.Attrs) svc.Product { p.Verified = a; return p }
	tests := []struct {
		name         string
		stored       svc.Product
		named        svc.Product
		keyed        bool
		wantChanged  bool
		wantTitle    string
		wantSKU      string
		wantSet      string // the attributes to write
		wantVerified svc.Attrs
	}{
		{"nothing given", svc.Product{SKU: ptr("A"), Title: ptr("T")}, svc.Product{}, false, false, "T", "A", "<nil> <nil>", 0},
		{"same values given", svc.Product{SKU: ptr("A"), Title: ptr("T")}, svc.Product{SKU: ptr("A"), Title: ptr("T")}, false, false, "T", "A", "<nil> <nil>", 0},
		{"a new title", svc.Product{SKU: ptr("A"), Title: ptr("T")}, svc.Product{Title: ptr("U")}, false, true, "U", "A", "<nil> U", 0},
		{"a first sku", svc.Product{Title: ptr("T")}, svc.Product{SKU: ptr("B")}, false, true, "T", "B", "B <nil>", 0},
		// Provenance (docs/security.md): an anonymous event never changes
		// what a keyed one set, and a keyed one verifies what it gives.
		{"anonymous on verified", verified(svc.Product{SKU: ptr("A"), Title: ptr("T")}, svc.AttrSKU|svc.AttrTitle), svc.Product{SKU: ptr("X"), Title: ptr("Hijacked")}, false, false, "T", "A", "<nil> <nil>", svc.AttrSKU | svc.AttrTitle},
		{"anonymous on half verified", verified(svc.Product{SKU: ptr("A"), Title: ptr("T")}, svc.AttrSKU), svc.Product{SKU: ptr("X"), Title: ptr("U")}, false, true, "U", "A", "<nil> U", svc.AttrSKU},
		{"keyed verifies a provisional value", svc.Product{SKU: ptr("A"), Title: ptr("T")}, svc.Product{Title: ptr("T")}, true, true, "T", "A", "<nil> T", svc.AttrTitle},
		{"keyed changes a verified value", verified(svc.Product{Title: ptr("T")}, svc.AttrTitle), svc.Product{Title: ptr("U"), SKU: ptr("B")}, true, true, "U", "B", "B U", svc.AttrTitle | svc.AttrSKU},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.stored
			set, changed := p.Update(tt.named, tt.keyed)
			if changed != tt.wantChanged || deref(p.Title) != tt.wantTitle || deref(p.SKU) != tt.wantSKU {
				t.Fatalf("changed %v, sku %s, title %s; want %v, %s, %s", changed, deref(p.SKU), deref(p.Title), tt.wantChanged, tt.wantSKU, tt.wantTitle)
			}
			if got := deref(set.SKU) + " " + deref(set.Title); got != tt.wantSet {
				t.Fatalf("set %q, want %q", got, tt.wantSet)
			}
			if p.Verified != tt.wantVerified || set.Verified != tt.wantVerified&^tt.stored.Verified {
				t.Fatalf("verified %b, set %b; want %b", p.Verified, set.Verified, tt.wantVerified)
			}
		})
	}
}

func TestLines(t *testing.T) {
	w := orderWrite(true, "", item("p1", 2, nil), item("p2", 1, nil), item("p1", 3, nil))
	got := w.Lines([]svc.ProductRef{1, 2, 1})
	want := []svc.Line{{Product: 1, ProductID: "p1", Units: 5}, {Product: 2, ProductID: "p2", Units: 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("order lines %+v, want %+v", got, want)
	}
	if got := viewWrite(true, "").Lines([]svc.ProductRef{4}); !slices.Equal(got, []svc.Line{{Product: 4, ProductID: "p1", Units: 1}}) {
		t.Fatalf("view lines %+v", got)
	}
}

// The price record of an order's product is the same whether it comes from
// an event (MeanUnitPrice) or from stored lines (PurchaseRecords).
func TestPriceRecords(t *testing.T) {
	tests := []struct {
		name  string
		items []svc.PurchaseItem
		want  string // of p1
	}{
		{"one priced line", []svc.PurchaseItem{item("p1", 2, ptr(10.0))}, "10"},
		{"weighted by quantity", []svc.PurchaseItem{item("p1", 1, ptr(10.0)), item("p2", 5, ptr(1.0)), item("p1", 3, ptr(20.0))}, "17.5"},
		{"a line without a price", []svc.PurchaseItem{item("p1", 1, ptr(10.0)), item("p1", 1, nil)}, "<nil>"},
		{"no price", []svc.PurchaseItem{item("p1", 1, nil)}, "<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := orderWrite(true, "", tt.items...).Purchase
			if got := fmtPrice(svc.MeanUnitPrice(e, "p1")); got != tt.want {
				t.Errorf("MeanUnitPrice = %s, want %s", got, tt.want)
			}
			var got []svc.PurchaseRecord
			records := svc.PurchaseRecords{Emit: func(order int64, r svc.PurchaseRecord) error {
				if order != 9 {
					t.Errorf("order %d", order)
				}
				got = append(got, r)
				return nil
			}}
			for _, it := range tt.items {
				l := svc.OrderLine{Order: 9, Product: svc.ProductRef(it.ProductID[1] - '0'), Time: now, Quantity: *it.Quantity, Currency: "EUR"}
				if it.UnitPrice != nil {
					l.UnitPrice, l.Priced = *it.UnitPrice, true
				}
				if err := records.Add(l); err != nil {
					t.Fatal(err)
				}
			}
			if err := records.Flush(); err != nil {
				t.Fatal(err)
			}
			p1 := got[0]
			var units int64
			for _, it := range tt.items {
				if it.ProductID == "p1" {
					units += *it.Quantity
				}
			}
			if p1.Product != 1 || p1.Units != units || fmtPrice(p1.UnitPrice) != tt.want || p1.Currency != "EUR" || !p1.Time.Equal(now) {
				t.Errorf("record %+v (price %s), want p1 with %d units at %s", p1, fmtPrice(p1.UnitPrice), units, tt.want)
			}
		})
	}
}

// PurchaseRecords emits one record per product of each order, order by
// order, and stops at Emit's error.
func TestPurchaseRecordsPerOrder(t *testing.T) {
	var got []string
	records := svc.PurchaseRecords{Emit: func(order int64, r svc.PurchaseRecord) error {
		got = append(got, fmt.Sprintf("%d:%d:%d", order, r.Product, r.Units))
		return nil
	}}
	for _, l := range []svc.OrderLine{{Order: 1, Product: 1, Quantity: 1}, {Order: 1, Product: 2, Quantity: 1}, {Order: 1, Product: 1, Quantity: 2},
		{Order: 2, Product: 1, Quantity: 4}} {
		if err := records.Add(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := records.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"1:1:3", "1:2:1", "2:1:4"}; !slices.Equal(got, want) {
		t.Fatalf("records %q, want %q", got, want)
	}
}

func fmtPrice(p *float64) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprint(*p)
}
