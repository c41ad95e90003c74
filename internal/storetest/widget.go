package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/rollup"
)

// testWidgetReports checks the widget's reports: counted only for a
// session that sent a view of the brand and is not held out, up to the
// cap; per hour and per session; told apart in the experiment's orders;
// erased with the session and expired with the events.
func testWidgetReports(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	withBrand(t, s, "br_2")
	w := s.(rollup.WidgetStore)
	view := func(brand, session, arm string, d time.Duration) *svc.Write {
		v := &svc.ViewEvent{BrandID: brand, Product: svc.ViewProduct{ProductID: "p1"}}
		v.Context.SessionID = ptr(session)
		v.Meta = svc.EventMeta{EventID: fmt.Sprint("ev-", brand, session, d), Time: t0.Add(d), ReceivedAt: t0, Arm: arm}
		return &svc.Write{View: v, MayRegister: true}
	}
	qty, price := int64(1), 10.0
	order := func(id, session string) *svc.Write {
		e := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: id, Currency: ptr("EUR"),
			Items: []svc.PurchaseItem{{ProductID: "p1", Quantity: &qty, UnitPrice: &price}}}}
		e.Context.SessionID = ptr(session)
		e.Meta = svc.EventMeta{EventID: "ev-" + id, Time: t0.Add(-time.Minute), ReceivedAt: t0, Keyed: true}
		return &svc.Write{Purchase: e, MayRegister: true}
	}
	appendAll(t, s, view("br_1", "a", holdout.ArmShown, -10*time.Minute), view("br_1", "b", holdout.ArmHeldOut, -9*time.Minute),
		view("br_1", "c", holdout.ArmShown, -8*time.Minute), view("br_1", "d", holdout.ArmShown, -7*time.Minute), view("br_2", "z", holdout.ArmShown, -7*time.Minute))
	at := t0.UnixMilli()
	record := func(brand, session, kind string, want bool) {
		t.Helper()
		got, err := w.RecordWidget(ctx, rollup.WidgetReport{Brand: brand, Session: session, Kind: kind, At: at})
		if err != nil || got != want {
			t.Errorf("%s %s %s: counted %v (%v), want %v", brand, session, kind, got, err, want)
		}
	}
	record("br_1", "a", rollup.WidgetSeen, true)
	record("br_1", "a", rollup.WidgetClick, true)
	record("br_1", "a", rollup.ToastClick, true)
	record("br_1", "b", rollup.WidgetSeen, false) // held out: it sees nothing
	record("br_1", "stranger", rollup.WidgetSeen, false)
	record("br_1", "z", rollup.WidgetSeen, false) // br_2's session
	for i := range rollup.WidgetCap + 5 {
		record("br_1", "c", rollup.WidgetSeen, i < rollup.WidgetCap)
	}
	hours, err := w.WidgetHours(ctx, "br_1", t0.Add(-time.Hour), t0.Add(time.Hour))
	if want := (rollup.WidgetHour{Hour: rollup.Floor(at, rollup.Hour), Impressions: 1 + rollup.WidgetCap, WidgetClicks: 1, ToastClicks: 1}); err != nil || len(hours) != 1 || hours[0] != want {
		t.Errorf("hours: %+v %v, want %+v", hours, err, want)
	}
	seen := func(brand string, want int64) {
		t.Helper()
		if n, err := w.WidgetSeen(ctx, brand); err != nil || n != want {
			t.Errorf("%s: %d sessions saw the widget (%v), want %d", brand, n, err, want)
		}
	}
	seen("br_1", 2)
	seen("br_2", 0)
	appendAll(t, s, order("o1", "a"), order("o2", "d"))
	saw := map[string]bool{}
	if err := s.(rollup.Store).RollupArms(ctx, "br_1", func(string, int64) {}, func(_, session string, _ float64, seen bool) error {
		saw[session] = seen
		return nil
	}); err != nil || len(saw) != 2 || !saw["a"] || saw["d"] {
		t.Errorf("the orders' sessions that saw the widget: %v %v, want a only", saw, err)
	}
	// The same sessions, a row per distinct revenue.
	bySaw := map[bool]int64{}
	if err := s.(rollup.Store).RollupArmRevenues(ctx, "br_1", func(string, int64) {}, func(_ string, _ float64, n, saw int64) error {
		bySaw[true] += saw
		bySaw[false] += n - saw
		return nil
	}); err != nil || bySaw[true] != 1 || bySaw[false] != 1 {
		t.Errorf("the orders' sessions by revenue: %v %v, want one that saw the widget, one not", bySaw, err)
	}
	if _, err := s.ForgetSession(ctx, "br_1", "a"); err != nil {
		t.Fatal(err)
	}
	seen("br_1", 1)
	if _, err := s.DeleteExpired(ctx, t0.Add(2*time.Hour), t0.Add(2*time.Hour), 1000); err != nil {
		t.Fatal(err)
	}
	seen("br_1", 0)
	if hours, err := w.WidgetHours(ctx, "br_1", t0.Add(-time.Hour), t0.Add(time.Hour)); err != nil || len(hours) != 0 {
		t.Errorf("hours after the retention: %+v %v", hours, err)
	}
}
