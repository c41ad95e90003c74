package insights

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/rollup"
	"github.com/svc-project/svc/internal/window"
)

// events is an Exporter over a fixed list.
type events []svc.ExportedEvent

func (e events) ExportEvents(_ context.Context, _ string, fn func(svc.ExportedEvent) error) error {
	for _, ev := range e {
		if err := fn(ev); err != nil {
			return err
		}
	}
	return nil
}

var now = time.Date(2026, 11, 21, 10, 30, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func money(v float64) Money {
	var m Money
	m.Add(v)
	return m
}

func viewAt(ago time.Duration, product, session, arm string) svc.ExportedEvent {
	v := &svc.ViewEvent{Product: svc.ViewProduct{ProductID: product, Title: ptr("Title " + product)}}
	if session != "" {
		v.Context.SessionID = ptr(session)
	}
	v.Meta.Time, v.Meta.Arm = now.Add(-ago), arm
	return svc.ExportedEvent{View: v}
}

func orderAt(ago time.Duration, session string, total *float64, lines ...svc.PurchaseItem) svc.ExportedEvent {
	p := &svc.PurchaseEvent{Order: svc.Order{Currency: ptr("EUR"), TotalValue: total, Items: lines}}
	if session != "" {
		p.Context.SessionID = ptr(session)
	}
	p.Meta.Time = now.Add(-ago)
	return svc.ExportedEvent{Purchase: p}
}

func item(product string, qty int64, price float64) svc.PurchaseItem {
	return svc.PurchaseItem{ProductID: product, Quantity: &qty, UnitPrice: &price}
}

func load(t *testing.T, e events) *Data {
	t.Helper()
	d, err := Load(context.Background(), e, "br_1", now)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestTotalsAndOverview(t *testing.T) {
	h := time.Hour
	d := load(t, events{
		viewAt(20*time.Minute, "p1", "a", holdout.ArmShown),
		viewAt(30*time.Minute, "p1", "a", holdout.ArmShown),
		viewAt(40*time.Minute, "p2", "b", holdout.ArmHeldOut),
		viewAt(50*time.Minute, "p2", "", ""),
		viewAt(25*h, "p1", "c", holdout.ArmShown),    // yesterday, before this hour of the day
		viewAt(3*24*h, "p1", "d", holdout.ArmShown),  // in the last 7 days
		viewAt(10*24*h, "p1", "e", holdout.ArmShown), // the 7 days before
		orderAt(10*time.Minute, "a", nil, item("p1", 2, 10), item("p2", 1, 5)),
		{Cart: &svc.CartEvent{Product: svc.ViewProduct{ProductID: "p1"}, Meta: svc.EventMeta{Time: now.Add(-time.Minute)}}},
		orderAt(2*24*h, "x", ptr(99.0), item("p2", 1, 80)), // priced lines win over total_value
		orderAt(3*24*h, "y", ptr(44.0), svc.PurchaseItem{ProductID: "p2"}),
	})
	today := d.Totals("", now.Truncate(24*h), now)
	if today != (Totals{Views: 4, Viewers: 2, Carts: 1, Purchases: 1, Units: 3, Revenue: money(25)}) {
		t.Errorf("today %+v", today)
	}
	if p1 := d.Totals("p1", now.Add(-7*24*h), now); p1 != (Totals{Views: 4, Viewers: 3, Carts: 1, Purchases: 1, Units: 2, Revenue: money(20)}) {
		t.Errorf("p1 over 7 days %+v", p1)
	}
	o := d.Overview(now)
	if len(o) != 3 || o[0].Name != "Today" || o[1].Current.Purchases != 3 || o[1].Current.Revenue != money(25+80+44) || o[1].Earlier.Views != 1 || o[0].Earlier.Views != 1 {
		t.Errorf("overview %+v", o)
	}
	if d.Currency != "EUR" || d.Titles["p2"] != "Title p2" {
		t.Errorf("currency %q, titles %v", d.Currency, d.Titles)
	}
}

func TestSeries(t *testing.T) {
	d := load(t, events{
		viewAt(10*time.Minute, "p1", "a", ""),
		viewAt(70*time.Minute, "p1", "a", ""),
		viewAt(80*time.Minute, "p2", "a", ""),
		orderAt(5*time.Minute, "a", nil, item("p1", 1, 10), item("p1", 3, 20)),
		orderAt(49*time.Hour, "a", nil, item("p1", 1, 10)), // before the 48 hours
	})
	s := d.Series("", now, time.Hour, 48)
	last, prev := s[47], s[46]
	if len(s) != 48 || !last.At.Equal(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)) || last.Views != 1 || last.Purchases != 1 || prev.Views != 2 {
		t.Errorf("hourly: last %+v, before %+v", last, prev)
	}
	p := d.Series("p1", now, 24*time.Hour, 30)
	if l := p[29]; l.Views != 2 || l.Units != 4 || !l.HasPrice || l.Price != 17.5 {
		t.Errorf("daily p1, today: %+v", l)
	}
	if p[27].Purchases != 1 || p[0].HasPrice {
		t.Errorf("daily p1: %+v, %+v", p[27], p[0])
	}
}

func TestProductsAndWithheld(t *testing.T) {
	var e events
	for i := range 3 {
		e = append(e, viewAt(time.Duration(i+1)*time.Minute, "hot", string(rune('a'+i)), ""))
	}
	e = append(e, viewAt(2*time.Hour, "cold", "z", ""), viewAt(3*24*time.Hour, "cold", "y", ""))
	d := load(t, e)
	rows := d.Products(now)
	if len(rows) != 2 || rows[0].ProductID != "cold" || rows[1].ProductID != "hot" {
		t.Fatalf("rows %+v", rows)
	}
	b := &svc.Brand{MinViewers: 3, MinPurchases: 1}
	if rows[1].LiveViewers != 3 || rows[1].Withheld(b) || !rows[0].Withheld(b) {
		t.Errorf("withheld: %+v", rows)
	}
	if rows[1].Trend != 4 || rows[0].Week.Views != 2 {
		t.Errorf("trend %v, week %+v", rows[1].Trend, rows[0].Week)
	}
}

func TestArms(t *testing.T) {
	d := load(t, events{
		viewAt(3*time.Hour, "p1", "a", holdout.ArmShown),
		viewAt(2*time.Hour, "p1", "a", holdout.ArmHeldOut), // the first view's arm holds
		viewAt(3*time.Hour, "p1", "b", holdout.ArmHeldOut),
		viewAt(3*time.Hour, "p1", "c", holdout.ArmHeldOut),
		viewAt(3*time.Hour, "p1", "", ""),
		orderAt(time.Hour, "a", ptr(30.0), item("p1", 1, 30)),
		orderAt(time.Hour, "a", ptr(10.0), item("p1", 1, 10)),
		orderAt(time.Hour, "b", ptr(8.0), item("p1", 1, 8)),
		orderAt(time.Hour, "nobody", ptr(500.0), item("p1", 1, 500)),
	})
	shown, held := d.Arms()
	if shown.Sessions != 1 || len(shown.Revenues) != 1 || shown.Revenues[0] != (holdout.Revenue{Value: 40, Sessions: 1}) || held.Sessions != 2 || held.Converted() != 1 || held.RevenuePerSession() != 4 {
		t.Errorf("shown %+v, held out %+v", shown, held)
	}
	e := d.Experiment(10)
	if e.Arms.Shown.Conversion != 1 || e.Arms.HeldOut.Conversion != 0.5 || e.Difference.CI95 == nil || e.Holdout != 10 {
		t.Errorf("experiment %+v", e)
	}
}

// A step counted apart from the one before can outnumber it: sessions buy
// without a cart svc saw. Its share of the step before is left out rather
// than shown over 100%; its share of the first step stays.
func TestFunnelStepOverTheOneBefore(t *testing.T) {
	f := funnelSteps(rollup.Funnel{Sessions: 200, Carted: 1, Bought: 29})
	got := func(i int) (int64, float64, float64) {
		return f.Steps[i].Sessions, f.Steps[i].FromPrevious, f.Steps[i].FromFirst
	}
	if n, prev, first := got(0); n != 200 || prev != 1 || first != 1 {
		t.Errorf("viewed: %d %v %v", n, prev, first)
	}
	if n, prev, first := got(1); n != 1 || prev != 0.005 || first != 0.005 {
		t.Errorf("carted: %d %v %v", n, prev, first)
	}
	if n, prev, first := got(2); n != 29 || !math.IsNaN(prev) || first != 0.145 {
		t.Errorf("bought: %d %v %v, want 29 NaN 0.145", n, prev, first)
	}
	if f := funnelSteps(rollup.Funnel{Sessions: 10, Carted: 4, Bought: 2}); f.Steps[2].FromPrevious != 0.5 {
		t.Errorf("bought after carts: %v, want 0.5", f.Steps[2].FromPrevious)
	}
}

// The products' order, as the CSV takes all of them and a page its first
// few: purchases, then views over 7 days, ties in the rows' order.
func TestTopOrdersByPurchasesThenViews(t *testing.T) {
	t.Parallel()
	f := &Figures{BrandID: "br_1", src: openCounted(t)}
	p := &f.products
	p.refs, p.ids, p.done = []int64{1, 2, 3, 4, 5}, []string{"a", "b", "c", "d", "e"}, true
	for i, c := range [][2]int64{{1, 5}, {3, 1}, {1, 5}, {1, 9}, {0, 0}} {
		packed, _ := pack(productCounts{at: int32(i), weekPurchases: c[0], weekViews: c[1], dayViews: c[1]})
		p.rows = append(p.rows, packed)
	}
	// A giant's counts do not fit in 32 bits: kept whole.
	p.wide = map[int]productCounts{1: {at: 1, weekPurchases: 3, weekViews: 1, dayViews: 1, weekUnits: 1 << 40}}
	p.rows[1] = packedCounts{at: 1, wide: true}
	ids := func(rs []ProductRow) string {
		var s string
		for _, r := range rs {
			s += r.ProductID
		}
		return s
	}
	var all []ProductRow
	if err := f.EachTop(context.Background(), nil, func(r *ProductRow) bool { all = append(all, *r); return true }); err != nil {
		t.Fatal(err)
	}
	if got := ids(all); got != "bdace" {
		t.Errorf("all: %s, want bdace", got)
	}
	top, _, err := f.Ranking(context.Background(), nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(top); got != "bda" {
		t.Errorf("first 3: %s, want bda", got)
	}
	var order []ProductRow
	if err := f.EachProduct(context.Background(), nil, func(r ProductRow) bool { order = append(order, r); return true }); err != nil {
		t.Fatal(err)
	}
	if got := ids(order); got != "abcde" {
		t.Errorf("the rows were reordered: %s", got)
	}
	if order[3].Week.Purchases != 1 || order[3].Week.Views != 9 || order[3].Ref != 4 {
		t.Errorf("d's row: %+v", order[3])
	}
	if order[1].Week.Units != 1<<40 || order[1].Week.Purchases != 3 {
		t.Errorf("b's row, wide: %+v", order[1])
	}
	if c := (productCounts{at: 7, weekUnits: 1 << 32}); func() bool { _, ok := pack(c); return ok }() {
		t.Error("2^32 units packed in 32 bits")
	}
}

// liveByID is a window engine's counts, by product id: CountsOf fills
// productWindows' five (the 7 days, the live windows, the day, and the
// real-time panel's two) with the same counts.
type liveByID struct {
	ids    map[int64]string
	counts map[string]window.Counts
}

func (l liveByID) CountsOf(ref svc.ProductRef, _ time.Time, ws []window.Windows, out []window.Counts) {
	for i := range ws {
		out[i] = l.counts[l.ids[int64(ref)]]
	}
}

// The products of a reading, through their counts: the rows of products
// without counts are left out, so that a row's place is not its
// product's; a giant's counts are kept whole; each row keeps its own
// ref, id and title.
func TestProductsThroughTheirCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openCounted(t)
	var batch []*svc.Write
	for i := range 7 {
		v := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", i), Title: ptr(fmt.Sprint("T", i))}}
		v.Meta = svc.EventMeta{EventID: fmt.Sprint("e", i), Time: now, ReceivedAt: now, Keyed: true}
		batch = append(batch, &svc.Write{View: v, MayRegister: true})
	}
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	live := liveByID{ids: map[int64]string{}, counts: map[string]window.Counts{
		"p1": {Views: 5, Purchases: 1}, "p3": {Views: 1, Purchases: 3},
		"p4": {Views: 9, Purchases: 1, Units: 1 << 40}, "p6": {Views: 5, Purchases: 1, Viewers: 2}}}
	refs := map[string]int64{}
	if err := s.BrandProductIDs(ctx, "br_1", 0, func(ref int64, id string) { live.ids[ref], refs[id] = id, ref }); err != nil {
		t.Fatal(err)
	}
	f, err := loadFigures(ctx, s, "br_1", now)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, rows []ProductRow, want string) {
		t.Helper()
		var got string
		for _, r := range rows {
			got += r.ProductID + " "
			if r.Ref != refs[r.ProductID] || r.Title != "" && r.Title != "T"+r.ProductID[1:] {
				t.Errorf("%s: %s has ref %d and title %q, want %d and T%s", what, r.ProductID, r.Ref, r.Title, refs[r.ProductID], r.ProductID[1:])
			}
		}
		if got != want {
			t.Errorf("%s: %s, want %s", what, got, want)
		}
	}
	var top, all []ProductRow
	if err := f.EachTop(ctx, live, func(r *ProductRow) bool { top = append(top, *r); return true }); err != nil {
		t.Fatal(err)
	}
	check("by purchases then views", top, "p3 p4 p1 p6 ")
	for _, r := range top {
		if r.Title == "" {
			t.Errorf("%s has no title", r.ProductID)
		}
	}
	if err := f.EachProduct(ctx, live, func(r ProductRow) bool { all = append(all, r); return true }); err != nil {
		t.Fatal(err)
	}
	check("in the order of ids", all, "p1 p3 p4 p6 ")
	if all[2].Week.Units != 1<<40 || all[2].Week.Views != 9 || all[2].LiveViewers != 0 {
		t.Errorf("p4, the giant: %+v", all[2])
	}
	first, _, err := f.Ranking(ctx, live, 2)
	if err != nil {
		t.Fatal(err)
	}
	check("the first 2", first, "p3 p4 ")
	var lived []string
	if err := f.EachLive(ctx, live, f.At, func(id string, c LiveCounts) {
		if id == "p6" && (c.Viewers5 != 2 || c.Views30 != 5 || c.Purchases30 != 1) {
			t.Errorf("%s's live counts: %+v", id, c)
		}
		lived = append(lived, id)
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(lived) != "[p1 p3 p4 p6]" {
		t.Errorf("live: %v", lived)
	}
}
