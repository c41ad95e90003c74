package storetest

import (
	"fmt"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/rollup"
)

// recount is what the rollups must hold, counted again from every
// exported event, the way a reader who never saw the rollups would.
type recount struct {
	hours     map[string]map[int64]*hourCount // product id ("" the brand) to hour
	countries map[[2]int64]map[string]rollup.CountryCounts
	cities    map[rollup.CityKey]int64 // orders with a city; Brand is ""
	sessions  map[string]*sessionCount
}

// sessionCount is a session as the funnel counts it: its first view,
// carts and orders.
type sessionCount struct {
	first, carts, orders int64
	viewed               bool
}

func (r *recount) session(id string) *sessionCount {
	c := r.sessions[id]
	if c == nil {
		c = &sessionCount{}
		r.sessions[id] = c
	}
	return c
}

// funnel returns the recount's funnel per UTC day of the first view:
// sessions with a view, and of those the ones with a cart and an order.
func (r *recount) funnel() map[int64]rollup.Funnel {
	out := map[int64]rollup.Funnel{}
	for _, c := range r.sessions {
		if !c.viewed {
			continue
		}
		day := rollup.Floor(c.first, rollup.Day)
		f := out[day]
		f.Sessions++
		if c.carts > 0 {
			f.Carted++
		}
		if c.orders > 0 {
			f.Bought++
		}
		out[day] = f
	}
	return out
}

type hourCount struct {
	views, carts, purchases, units, priced int64
	revenue                                big.Int // micros
	sessions                               map[string]bool
}

func (r *recount) hour(product string, at time.Time) *hourCount {
	h := rollup.Floor(at.UnixMilli(), rollup.Hour)
	if r.hours[product] == nil {
		r.hours[product] = map[int64]*hourCount{}
	}
	c := r.hours[product][h]
	if c == nil {
		c = &hourCount{sessions: map[string]bool{}}
		r.hours[product][h] = c
	}
	return c
}

func (r *recount) country(country *string, at time.Time, views, purchases int64) {
	k := [2]int64{rollup.Floor(at.UnixMilli(), rollup.Day)}
	if r.countries[k] == nil {
		r.countries[k] = map[string]rollup.CountryCounts{}
	}
	c := r.countries[k][orEmpty(country)]
	c.Views += views
	c.Purchases += purchases
	r.countries[k][orEmpty(country)] = c
}

// orEmpty is a pointer's string, "" for nil.
func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func micros(p float64) int64 { return int64(math.Round(p * rollup.Micros)) }

func recountOf(t *testing.T, s svc.Store, brand string) *recount {
	t.Helper()
	r := &recount{hours: map[string]map[int64]*hourCount{}, countries: map[[2]int64]map[string]rollup.CountryCounts{},
		cities: map[rollup.CityKey]int64{}, sessions: map[string]*sessionCount{}}
	err := s.ExportEvents(ctx, brand, func(e svc.ExportedEvent) error {
		switch {
		case e.View != nil:
			v := e.View
			for _, p := range []string{"", v.Product.ProductID} {
				c := r.hour(p, v.Meta.Time)
				c.views++
				if v.Context.SessionID != nil && *v.Context.SessionID != "" {
					c.sessions[*v.Context.SessionID] = true
				}
			}
			r.country(v.Context.Country, v.Meta.Time, 1, 0)
			if id := orEmpty(v.Context.SessionID); id != "" {
				c := r.session(id)
				if at := v.Meta.Time.UnixMilli(); !c.viewed || at < c.first {
					c.first = at
				}
				c.viewed = true
			}
		case e.Cart != nil:
			if id := orEmpty(e.Cart.Context.SessionID); id != "" {
				r.session(id).carts++
			}
			for _, p := range []string{"", e.Cart.Product.ProductID} {
				r.hour(p, e.Cart.Meta.Time).carts++
			}
		case e.Purchase != nil:
			p := e.Purchase
			b := r.hour("", p.Meta.Time)
			b.purchases++
			var value big.Int
			priced := true
			seen := map[string]bool{}
			for _, it := range p.Order.Items {
				c := r.hour(it.ProductID, p.Meta.Time)
				if !seen[it.ProductID] {
					c.purchases++
					seen[it.ProductID] = true
				}
				c.units += *it.Quantity
				b.units += *it.Quantity
				if it.UnitPrice == nil {
					priced = false
					continue
				}
				c.priced += *it.Quantity
				v := new(big.Int).Mul(big.NewInt(micros(*it.UnitPrice)), big.NewInt(*it.Quantity))
				c.revenue.Add(&c.revenue, v)
				value.Add(&value, v)
			}
			if !priced && p.Order.TotalValue != nil {
				value.SetInt64(micros(*p.Order.TotalValue))
			}
			b.revenue.Add(&b.revenue, &value)
			r.country(p.Context.Country, p.Meta.Time, 0, 1)
			if city := orEmpty(p.Context.City); city != "" {
				r.cities[rollup.CityKey{Country: orEmpty(p.Context.Country), City: city, Day: rollup.Floor(p.Meta.Time.UnixMilli(), rollup.Day)}]++
			}
			if id := orEmpty(p.Context.SessionID); id != "" {
				r.session(id).orders++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkRollups compares the store's rollups of the brand with a recount.
func checkRollups(t *testing.T, s svc.Store, brand string, products []string, step string) {
	t.Helper()
	rs := s.(rollup.Store)
	want := recountOf(t, s, brand)
	from, to := t0.Add(-60*24*time.Hour), t0.Add(60*24*time.Hour)
	for _, p := range append([]string{""}, products...) {
		got := map[int64]rollup.Row{}
		if err := rs.RollupHours(ctx, brand, p, from, to, func(r rollup.Row) error { got[r.Hour] = r; return nil }); err != nil {
			t.Fatal(err)
		}
		// Every path that writes a sketch writes its digest beside it.
		sums := map[int64]rollup.Row{}
		if err := rs.RollupHourSums(ctx, brand, p, from, to, func(r rollup.Row) error { sums[r.Hour] = r; return nil }); err != nil {
			t.Fatal(err)
		}
		for h, g := range got {
			if s := sums[h]; s.ViewersSum != rollup.ViewersSum(g.Viewers) || s.Viewers != nil || s.Views != g.Views {
				t.Errorf("%s: %s product %q, hour %s: digest %d, viewers %d bytes, views %d; want %d, none, %d", step, brand, p,
					time.UnixMilli(h).UTC().Format(time.RFC3339), s.ViewersSum, len(s.Viewers), s.Views, rollup.ViewersSum(g.Viewers), g.Views)
			}
		}
		for h, w := range want.hours[p] {
			g, ok := got[h]
			delete(got, h)
			name := fmt.Sprintf("%s: %s product %q, hour %s", step, brand, p, time.UnixMilli(h).UTC().Format(time.RFC3339))
			if !ok {
				if w.views+w.carts+w.purchases != 0 {
					t.Errorf("%s: no rollup, want %+v", name, w)
				}
				continue
			}
			if g.Views != w.views || g.Carts != w.carts || g.Purchases != w.purchases || g.Units != w.units ||
				(p != "" && (g.PricedUnits != w.priced)) || g.Revenue.Cmp(&w.revenue) != 0 {
				t.Errorf("%s: rollup views %d carts %d purchases %d units %d priced %d revenue %s; recount %d %d %d %d %d %s",
					name, g.Views, g.Carts, g.Purchases, g.Units, g.PricedUnits, g.Revenue, w.views, w.carts, w.purchases, w.units, w.priced, &w.revenue)
			}
			sk, err := rollup.Sketch(g.Viewers)
			if err != nil {
				t.Fatal(err)
			}
			if n := sk.Estimate(); n != uint64(len(w.sessions)) {
				t.Errorf("%s: %d viewers in the sketch, want %d", name, n, len(w.sessions))
			}
		}
		for h, g := range got {
			t.Errorf("%s: %s product %q has a rollup at %s the events do not: %+v", step, brand, p, time.UnixMilli(h).UTC(), g)
		}
	}
	countries, err := rs.RollupCountries(ctx, brand, from, to)
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]int64]map[string]rollup.CountryCounts{}
	for _, c := range countries {
		k := [2]int64{c.Day}
		if got[k] == nil {
			got[k] = map[string]rollup.CountryCounts{}
		}
		got[k][c.Country] = c.CountryCounts
	}
	if fmt.Sprint(got) != fmt.Sprint(want.countries) {
		t.Errorf("%s: %s countries %v, recount %v", step, brand, got, want.countries)
	}
	cities, err := rs.RollupCities(ctx, brand, from, to)
	if err != nil {
		t.Fatal(err)
	}
	gotCities := map[rollup.CityKey]int64{}
	for _, c := range cities {
		c.Brand = ""
		gotCities[c.CityKey] = c.Purchases
	}
	if fmt.Sprint(gotCities) != fmt.Sprint(want.cities) {
		t.Errorf("%s: %s cities %v, recount %v", step, brand, gotCities, want.cities)
	}
	// The funnel of each day, and of them all.
	var wantAll rollup.Funnel
	for day, w := range want.funnel() {
		g, err := rs.RollupFunnel(ctx, brand, time.UnixMilli(day), time.UnixMilli(day+rollup.Day))
		if err != nil {
			t.Fatal(err)
		}
		if g != w {
			t.Errorf("%s: %s funnel of %s %+v, recount %+v", step, brand, time.UnixMilli(day).UTC().Format(time.DateOnly), g, w)
		}
		wantAll.Sessions, wantAll.Carted, wantAll.Bought = wantAll.Sessions+w.Sessions, wantAll.Carted+w.Carted, wantAll.Bought+w.Bought
	}
	if all, err := rs.RollupFunnel(ctx, brand, from, to); err != nil || all != wantAll {
		t.Errorf("%s: %s funnel %+v (%v), recount %+v", step, brand, all, err, wantAll)
	}
}

// armsOf returns the rollups' sessions per arm and the arms' orders.
func armsOf(t *testing.T, s svc.Store, brand string) (map[string]int64, map[string]int) {
	t.Helper()
	sessions, orders := map[string]int64{}, map[string]int{}
	err := s.(rollup.Store).RollupArms(ctx, brand, func(arm string, n int64) { sessions[arm] = n },
		func(arm, _ string, _ float64, _ bool) error { orders[arm]++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return sessions, orders
}

// testRollups checks the rollups against a full recount after views,
// carts, purchases, partial and whole cancellations, an erasure, the
// retention and a rebuild.
func testRollups(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	withBrand(t, s, "br_2")
	products := []string{"p1", "p2", "p3"}
	check := func(step string) {
		t.Helper()
		checkRollups(t, s, "br_1", products, step)
		checkRollups(t, s, "br_2", []string{"q1"}, step)
	}
	at := func(d time.Duration) svc.EventMeta {
		return svc.EventMeta{EventID: fmt.Sprintf("ev-%d-%d", d, time.Now().UnixNano()), Time: t0.Add(d), ReceivedAt: t0}
	}
	viewOf := func(brand, product, session, country, arm string, d time.Duration) *svc.Write {
		v := &svc.ViewEvent{BrandID: brand, Product: svc.ViewProduct{ProductID: product}}
		if session != "" {
			v.Context.SessionID = ptr(session)
		}
		if country != "" {
			v.Context.Country = ptr(country)
		}
		v.Meta = at(d)
		v.Meta.Arm = arm
		return &svc.Write{View: v, MayRegister: true}
	}
	// Orders that give a city: o2 is cancelled whole, o3 expires.
	cities := map[string]string{"br_1/o1": "Berlin", "br_1/o2": "Lyon", "br_1/o3": "Paris", "br_1/o4": "Berlin", "br_2/o1": "Denver"}
	orderOf := func(brand, id, session, country string, total *float64, d time.Duration, items ...svc.PurchaseItem) *svc.Write {
		e := &svc.PurchaseEvent{BrandID: brand, Order: svc.Order{OrderID: id, Currency: ptr("EUR"), TotalValue: total, Items: items}}
		if session != "" {
			e.Context.SessionID = ptr(session)
		}
		if country != "" {
			e.Context.Country = ptr(country)
		}
		if city := cities[brand+"/"+id]; city != "" {
			e.Context.City = ptr(city)
		}
		e.Meta = at(d)
		e.Meta.Keyed = true
		return &svc.Write{Purchase: e, MayRegister: true}
	}
	line := func(product string, qty int64, price *float64) svc.PurchaseItem {
		return svc.PurchaseItem{ProductID: product, Quantity: &qty, UnitPrice: price}
	}
	cartOf := func(product, session string, d time.Duration) *svc.Write {
		c := &svc.CartEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: product}, Context: svc.ViewContext{SessionID: ptr(session)}}
		c.Meta = at(d)
		return &svc.Write{Cart: c, MayRegister: true}
	}
	// An anonymous order with a city, which svc.Admit drops on arrival:
	// the store refuses to keep it (OldAnonymousCities), and the other
	// writes of the batch stand.
	anonymousWithCity := orderOf("br_1", "o5", "", "DE", nil, 45*time.Minute, line("p2", 1, ptr(2.0)))
	anonymousWithCity.Purchase.Meta.Keyed, anonymousWithCity.Purchase.Context.City = false, ptr("Visit evil.example")
	h := time.Hour
	appendAll(t, s,
		viewOf("br_1", "p1", "a", "DE", holdout.ArmShown, 10*time.Minute),
		viewOf("br_1", "p1", "a", "DE", holdout.ArmShown, 20*time.Minute),
		viewOf("br_1", "p1", "b", "FR", holdout.ArmHeldOut, 30*time.Minute),
		viewOf("br_1", "p2", "", "", "", 40*time.Minute),
		viewOf("br_1", "p2", "c", "DE", holdout.ArmShown, -3*h),
		viewOf("br_1", "p3", "d", "", holdout.ArmShown, -50*h-30*time.Minute),
		viewOf("br_1", "p3", "e", "", holdout.ArmShown, -50*h-10*time.Minute),
		viewOf("br_2", "q1", "a", "US", holdout.ArmShown, 5*time.Minute),
		viewOf("br_2", "q1", "f", "US", holdout.ArmShown, 40*time.Minute),
		cartOf("p1", "a", 15*time.Minute),
		cartOf("p3", "d", -50*h-20*time.Minute),
		cartOf("p2", "c", -3*h+5*time.Minute), // carted, never bought
	)
	check("views")
	appendAll(t, s,
		orderOf("br_1", "o1", "a", "DE", nil, 25*time.Minute, line("p1", 2, ptr(10.5)), line("p2", 1, ptr(5.25)), line("p1", 1, ptr(9.99))),
		orderOf("br_1", "o2", "b", "FR", ptr(44.0), 35*time.Minute, line("p2", 3, nil), line("p3", 1, ptr(1.0))), // total_value: a line has no price
		orderOf("br_1", "o3", "d", "", ptr(12.0), -50*h-5*time.Minute, line("p3", 2, ptr(6.0))),
		orderOf("br_1", "o4", "zz", "IT", nil, 50*time.Minute, line("p1", 1, ptr(1e12))), // the largest price, exactly
		orderOf("br_2", "o1", "a", "US", nil, 6*time.Minute, line("q1", 1000000, ptr(1e12))),
		anonymousWithCity,
	)
	if anonymousWithCity.Result.Err == nil {
		t.Errorf("an anonymous order with a city: %+v, want it refused", anonymousWithCity.Result)
	}
	check("purchases")
	// A view older than the session's first comes late: the session takes
	// its arm (the holdout changed meanwhile).
	appendAll(t, s, viewOf("br_2", "q1", "f", "US", holdout.ArmHeldOut, time.Minute))
	check("a late first view")
	if err := s.(rollup.Store).RebuildRollups(ctx, true, nil); err != nil {
		t.Fatal(err)
	}
	check("first build")

	// A partial cancellation, then one that leaves none of an order.
	if r := cancel(t, s, cancelOf("o1", item("p1", 2))); r.Err != nil {
		t.Fatal(r.Err)
	}
	check("partial cancel")
	if r := cancel(t, s, cancelOf("o2")); r.Err != nil {
		t.Fatal(r.Err)
	}
	check("whole cancel")

	sessions, orders := armsOf(t, s, "br_1")
	if sessions[holdout.ArmShown] != 4 || sessions[holdout.ArmHeldOut] != 1 || orders[holdout.ArmShown] != 2 || orders[holdout.ArmHeldOut] != 0 {
		t.Errorf("arms: sessions %v, orders %v; want 4 shown (a, c, d, e) and 1 held out, orders o1 and o3 in shown", sessions, orders)
	}

	// Erasure takes the session's views, cart and orders out.
	if _, err := s.ForgetSession(ctx, "br_1", "a"); err != nil {
		t.Fatal(err)
	}
	check("erasure")
	if sessions, _ := armsOf(t, s, "br_1"); sessions[holdout.ArmShown] != 3 {
		t.Errorf("after the erasure of a: %v shown sessions, want 3", sessions)
	}
	if sessions, _ := armsOf(t, s, "br_2"); sessions[holdout.ArmShown] != 1 || sessions[holdout.ArmHeldOut] != 1 {
		t.Errorf("br_2's sessions: %v, want a shown and f held out (its first view's arm)", sessions)
	}

	// The retention cuts in the middle of an hour: what is left of it
	// stays, with its own sessions.
	if _, err := s.DeleteExpired(ctx, t0.Add(-50*h-15*time.Minute), t0, 1000); err != nil {
		t.Fatal(err)
	}
	check("retention")

	if err := s.(rollup.Store).RebuildRollups(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	check("rebuild")
	n := 0
	if err := s.(rollup.Store).RollupHours(ctx, "br_1", "nope", t0.Add(-60*24*h), t0.Add(24*h), func(rollup.Row) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("a product the brand lacks: %d rows, %v", n, err)
	}
	if sessions, orders := armsOf(t, s, "br_1"); sessions[holdout.ArmShown] != 2 || orders[holdout.ArmShown] != 0 {
		t.Errorf("after the retention and a rebuild: sessions %v orders %v, want c and e shown, o3 expired", sessions, orders)
	}
}

// testRollupsRebuildBesideRetention checks that the retention leaves no
// session without views: over passes of limited size, and between two days of
// a rollups build, as a server does beside `svc rollups rebuild`: the
// build gathered a session whose only view then expires, and must not
// write it at its end, since no later retention looks that session up.
func testRollupsRebuildBesideRetention(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	now := time.Now().UTC()
	view := func(session string, at time.Time) *svc.Write {
		v := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"}, Context: svc.ViewContext{SessionID: ptr(session)}}
		v.Meta = svc.EventMeta{EventID: fmt.Sprint("ev-", session, at.UnixNano()), Time: at, ReceivedAt: at, Arm: holdout.ArmShown}
		return &svc.Write{View: v, MayRegister: true}
	}
	// Sessions enough for several of the retention's look-ups, expiring
	// over passes limited to 1,000 views; s0000's last view is past the
	// first pass's limit.
	old := now.Add(-10 * 24 * time.Hour)
	var batch []*svc.Write
	for i := range 1300 {
		batch = append(batch, view(fmt.Sprintf("s%04d", i), old.Add(time.Duration(i)*time.Second)))
	}
	batch = append(batch, view("s0000", old.Add(time.Hour)))
	appendAll(t, s, batch...)
	for range 2 {
		if _, err := s.DeleteExpired(ctx, now.Add(-5*24*time.Hour), now, 1000); err != nil {
			t.Fatal(err)
		}
	}
	if sessions, _ := armsOf(t, s, "br_1"); sessions[holdout.ArmShown] != 0 {
		t.Fatalf("after the retention: %v sessions shown, want none", sessions)
	}

	appendAll(t, s, view("old", old), view("new", now))
	before, swept := now.Add(-5*24*time.Hour), false
	err := s.(rollup.Store).RebuildRollups(ctx, false, func(time.Time, int, int) {
		if !swept { // after the build's first day, which holds the old view
			swept = true
			if _, err := s.DeleteExpired(ctx, before, now, 1000); err != nil {
				t.Error(err)
			}
		}
	})
	if err != nil || !swept {
		t.Fatalf("rebuild: %v, swept %v", err, swept)
	}
	if sessions, _ := armsOf(t, s, "br_1"); sessions[holdout.ArmShown] != 1 {
		t.Errorf("after the build: %v sessions shown, want 1 (new): old's only view expired during the build", sessions)
	}
}
