package insights

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
)

// The figures from the rollups are the figures from the events (Load),
// wherever a window's edges fall between the events' hours: here every
// event is at ten past an hour, and now at half past.
func TestFiguresAreTheEventsFigures(t *testing.T) {
	t.Parallel()
	s := openCounted(t)
	ctx := context.Background()
	var batch []*svc.Write
	n := 0
	add := func(w *svc.Write) { batch = append(batch, w) }
	meta := func(hoursAgo int) svc.EventMeta {
		n++
		at := now.Truncate(time.Hour).Add(10*time.Minute - time.Duration(hoursAgo)*time.Hour)
		return svc.EventMeta{EventID: fmt.Sprint("e", n), Time: at, ReceivedAt: at, Keyed: true}
	}
	for h := 0; h < 62*24; h += 5 {
		for i := range 1 + h%4 {
			v := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", (h+i)%7), Title: ptr("T")},
				Context: svc.ViewContext{SessionID: ptr(fmt.Sprint("s", (h*3+i)%40))}}
			v.Meta = meta(h)
			v.Meta.Arm = []string{holdout.ArmShown, holdout.ArmHeldOut}[(h*3+i)%40%2]
			add(&svc.Write{View: v, MayRegister: true})
		}
		if h%3 == 0 {
			c := &svc.CartEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", h%7)}}
			c.Meta = meta(h)
			add(&svc.Write{Cart: c, MayRegister: true})
		}
		if h%4 == 0 {
			o := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: fmt.Sprint("o", h), Currency: ptr("EUR"), TotalValue: ptr(12.0),
				Items: []svc.PurchaseItem{item(fmt.Sprint("p", h%7), int64(1+h%3), 10.5), item("p1", 1, 9.99)}}}
			if h%8 == 0 {
				o.Order.Items = append(o.Order.Items, svc.PurchaseItem{ProductID: "p2", Quantity: ptr[int64](2)}) // total_value then
			}
			o.Context.SessionID = ptr(fmt.Sprint("s", h%40))
			o.Meta = meta(h)
			add(&svc.Write{Purchase: o, MayRegister: true})
		}
	}
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
	d, err := Load(ctx, s, "br_1", now)
	if err != nil {
		t.Fatal(err)
	}
	f, err := loadFigures(ctx, s, "br_1", now)
	if err != nil {
		t.Fatal(err)
	}
	f.days = &dayCache{} // as a Cache's readings have
	same := func(what string, a, b Totals) {
		t.Helper()
		if a.Views != b.Views || a.Viewers != b.Viewers || a.Carts != b.Carts || a.Purchases != b.Purchases || a.Units != b.Units ||
			a.Revenue.Text(2) != b.Revenue.Text(2) {
			t.Errorf("%s: rollups %+v, events %+v", what, a, b)
		}
	}
	if b, err := f.Totals(ctx, Window{End(now).Add(-100 * time.Hour), End(now).Add(-10 * time.Hour)}); err != nil {
		t.Fatal(err)
	} else {
		same("the brand over 90 hours", b, d.Totals("", now.Add(-100*time.Hour), now.Add(-10*time.Hour)))
	}
	// The same window from the rows read with the figures: its counts,
	// and its steps, hourly and daily (the first day cut by the window).
	w90 := Window{End(now).Add(-100 * time.Hour), End(now).Add(-10 * time.Hour)}
	counts := f.Counts(w90)
	events := d.Totals("", now.Add(-100*time.Hour), now.Add(-10*time.Hour))
	if counts.Views != events.Views || counts.Purchases != events.Purchases || counts.Units != events.Units || counts.Carts != events.Carts || counts.Views == 0 {
		t.Errorf("counts of the 90 hours: rows read %+v, events %+v", counts, events)
	}
	hourly, err := f.SeriesIn(ctx, w90, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range d.Series("", w90.To.Add(-time.Nanosecond), time.Hour, 90) {
		if hourly[i].At != p.At || hourly[i].Views != p.Views || hourly[i].Purchases != p.Purchases || hourly[i].Units != p.Units {
			t.Errorf("hour %d of the 90: rows read %+v, events %+v", i, hourly[i], p)
		}
	}
	daily, err := f.SeriesIn(ctx, w90, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var views int64
	for _, p := range daily {
		views += p.Views
	}
	if views != counts.Views {
		t.Errorf("the 90 hours' days add up to %d views, want %d", views, counts.Views)
	}
	periods, err := f.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range periods {
		q := d.Overview(now)[i]
		same(p.Name, p.Current, q.Current)
		same(p.Name+", before", p.Earlier, q.Earlier)
		if p.Current.Views == 0 || p.Earlier.Views == 0 {
			t.Errorf("%s: nothing to compare", p.Name)
		}
	}
	// A second reading takes the whole days' viewers from the cache.
	g, err := loadFigures(ctx, s, "br_1", now)
	if err != nil {
		t.Fatal(err)
	}
	g.days = f.days
	again, err := g.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range again {
		same(p.Name+", days cached", p.Current, periods[i].Current)
		same(p.Name+", before, days cached", p.Earlier, periods[i].Earlier)
	}
	if len(f.days.cur) == 0 {
		t.Error("no day was cached")
	}
	for _, step := range []struct {
		d time.Duration
		n int
	}{{time.Hour, 48}, {24 * time.Hour, 30}} {
		// The brand's charts show views and purchases; the mean price
		// is a product's (the brand's revenue counts total_value).
		a, b := f.Series(step.d, step.n), d.Series("", now, step.d, step.n)
		for i := range a {
			if a[i].At != b[i].At || a[i].Views != b[i].Views || a[i].Purchases != b[i].Purchases || a[i].Units != b[i].Units {
				t.Errorf("series of %s, step %d: rollups %+v, events %+v", step.d, i, a[i], b[i])
			}
		}
	}
	for _, id := range []string{"p1", "p2", "p5"} {
		p, err := f.Product(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		same(id+" over 7 days", p.Week(), d.Totals(id, now.Add(-7*24*time.Hour), now))
		// Any window, as a date range will ask: here the 3 days ending 2 days ago.
		end := End(now).Add(-48 * time.Hour)
		span, err := f.ProductTotals(ctx, id, Window{end.Add(-72 * time.Hour), end})
		if err != nil {
			t.Fatal(err)
		}
		same(id+" over 3 days", span, d.Totals(id, now.Add(-5*24*time.Hour), now.Add(-2*24*time.Hour)))
		a, b := p.Series(24*time.Hour, 30), d.Series(id, now, 24*time.Hour, 30)
		for i := range a {
			if a[i].Views != b[i].Views || a[i].Units != b[i].Units || a[i].Purchases != b[i].Purchases || a[i].HasPrice != b[i].HasPrice ||
				math.Abs(a[i].Price-b[i].Price) > 1e-9 {
				t.Errorf("%s, day %d: rollups %+v, events %+v", id, i, a[i], b[i])
			}
		}
		if p.Title != "T" {
			t.Errorf("%s: title %q", id, p.Title)
		}
	}
	a, err := f.Experiment(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	b := d.Experiment(10)
	if a.Arms != b.Arms || *a.Difference.CI95 != *b.Difference.CI95 || *a.Difference.RevenuePerSessionCI95 != *b.Difference.RevenuePerSessionCI95 ||
		a.Difference.SessionsNeeded != b.Difference.SessionsNeeded || a.Arms.Shown.Converted == 0 {
		t.Errorf("experiment: rollups %+v, events %+v", a, b)
	}
	if f.Currency != d.Currency || !f.LastEvent().Equal(d.LastEvent()) {
		t.Errorf("currency %q, last event %v; events: %q, %v", f.Currency, f.LastEvent(), d.Currency, d.LastEvent())
	}
}
