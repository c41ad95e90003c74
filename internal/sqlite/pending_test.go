package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/rollup"
)

// pendingViews writes n views of the session to p1, a batch of views
// alone, whose rollups wait.
func pendingViews(t *testing.T, s *Store, session string, at time.Time, n int) {
	t.Helper()
	var ws []*svc.Write
	for i := range n {
		ws = append(ws, &svc.Write{MayRegister: true, View: &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: "p1"},
			Context: svc.ViewContext{SessionID: &session}, Meta: svc.EventMeta{EventID: fmt.Sprint(session, "-", at.UnixMilli(), "-", i),
				Time: at, ReceivedAt: at, Arm: holdout.ArmShown}}})
	}
	if err := s.Append(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.Result.Err != nil || w.Result.Status != svc.StatusAccepted {
			t.Fatalf("%+v", w.Result)
		}
	}
}

// stopMaintenance stops the store's maintenance loop, which applies
// waiting views within checkpointEvery.
func stopMaintenance(s *Store) {
	s.stopOnce.Do(func() { close(s.stopCheckpoints) })
	<-s.checkpoints
}

// pendingOrder writes an order of one p1 at 10 EUR, whose rollups wait.
func pendingOrder(t *testing.T, s *Store, id, session string, at time.Time) {
	t.Helper()
	qty, price := int64(1), 10.0
	o := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: id, Currency: new("EUR"),
		Items: []svc.PurchaseItem{{ProductID: "p1", Quantity: &qty, UnitPrice: &price}}}}
	o.Context.SessionID = &session
	o.Meta = svc.EventMeta{EventID: "ev-" + id, Time: at, ReceivedAt: at}
	w := &svc.Write{Purchase: o, MayRegister: true}
	if err := s.Append(context.Background(), []*svc.Write{w}); err != nil || w.Result.Err != nil {
		t.Fatal(err, w.Result.Err)
	}
}

// through is the last view id the rollups count, and the newest stored.
func through(t *testing.T, s *Store) (counted, newest int64) {
	t.Helper()
	if err := s.r.QueryRow("SELECT views FROM rollup_through").Scan(&counted); err != nil {
		t.Fatal(err)
	}
	if err := s.r.QueryRow(qLastViewID).Scan(&newest); err != nil {
		t.Fatal(err)
	}
	return counted, newest
}

// brandViews is the brand's views of the hour as the dashboard reads them.
func brandViews(t *testing.T, s *Store, hour time.Time) int64 {
	t.Helper()
	return brandHour(t, s, hour).Views
}

// brandHour is the brand's row of the hour as the dashboard reads it.
func brandHour(t *testing.T, s *Store, hour time.Time) (sum rollup.Row) {
	t.Helper()
	err := s.RollupHours(context.Background(), "br_1", "", hour, hour.Add(time.Hour), func(r rollup.Row) error {
		sum.Views += r.Views
		sum.Purchases += r.Purchases
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// A group commit leaves its rollups waiting; a read of the rollups and a
// report of the session's widget find them applied, and an order finds
// its session's row, which the session's first view makes.
func TestViewsRollupsWaitForTheNextWrite(t *testing.T) {
	ctx := context.Background()
	s := storeWithBrand(t)
	stopMaintenance(s)
	hour := time.Now().UTC().Truncate(time.Hour)
	pendingViews(t, s, "s1", hour.Add(time.Minute), 3)
	if counted, newest := through(t, s); counted >= newest {
		t.Fatalf("the rollups count views up to %d of %d: a batch of views applied them at its commit", counted, newest)
	}
	// A report of the widget needs the session's row, which its views make.
	counted, err := s.RecordWidget(ctx, rollup.WidgetReport{Brand: "br_1", Session: "s1", Kind: rollup.WidgetSeen, At: hour.Add(2 * time.Minute).UnixMilli()})
	if err != nil || !counted {
		t.Fatalf("the widget's report of a session whose views wait: counted %v, %v", counted, err)
	}
	// An order needs the session's arm, which its first view gives.
	pendingViews(t, s, "s2", hour.Add(time.Minute), 2)
	pendingOrder(t, s, "o1", "s2", hour.Add(3*time.Minute))
	bought := map[string]float64{}
	err = s.RollupArms(ctx, "br_1", func(string, int64) {}, func(arm, session string, value float64, _ bool) error {
		bought[arm+" "+session] = value
		return nil
	})
	if err != nil || !reflect.DeepEqual(bought, map[string]float64{holdout.ArmShown + " s2": 10}) {
		t.Fatalf("orders of sessions with an arm %v, %v; want s2's in its views' arm", bought, err)
	}
	pendingViews(t, s, "s3", hour.Add(time.Minute), 4)
	if got := brandViews(t, s, hour); got != 9 {
		t.Fatalf("the dashboard reads %d views of the hour, want 9", got)
	}
}

// An erasure and an expiry take out events whose rollups waited: they
// are applied first, and nothing is taken out that was never added. An
// id the rollups counted and an erasure freed is counted again when it
// is given again.
func TestErasureAndExpiryOfWaitingViews(t *testing.T) {
	ctx := context.Background()
	s := storeWithBrand(t)
	now := time.Now().UTC()
	hour := now.Truncate(time.Hour)
	pendingViews(t, s, "s1", hour.Add(time.Minute), 2)
	pendingViews(t, s, "s2", hour.Add(time.Minute), 3)
	pendingOrder(t, s, "o1", "s1", hour.Add(2*time.Minute)) // the newest order
	if _, err := s.ForgetSession(ctx, "br_1", "s1"); err != nil {
		t.Fatal(err)
	}
	if got := brandHour(t, s, hour); got.Views != 3 || got.Purchases != 0 {
		t.Fatalf("%d views and %d orders of the hour after erasing s1's 2 of 5 and its order, want 3 and 0", got.Views, got.Purchases)
	}
	// The next order may take the erased one's id: it is counted.
	pendingOrder(t, s, "o2", "s2", hour.Add(2*time.Minute))
	if got := brandHour(t, s, hour); got.Purchases != 1 {
		t.Fatalf("%d orders of the hour after a new one, want 1", got.Purchases)
	}
	old := hour.Add(-20 * 24 * time.Hour)
	pendingViews(t, s, "s4", old, 2) // the newest block
	_, before := through(t, s)
	if _, err := s.DeleteExpired(ctx, now.Add(-10*24*time.Hour), now, 100); err != nil {
		t.Fatal(err)
	}
	if got := brandViews(t, s, old.Truncate(time.Hour)); got != 0 {
		t.Fatalf("%d expired views still counted", got)
	}
	pendingViews(t, s, "s5", hour.Add(2*time.Minute), 1)
	if _, newest := through(t, s); newest <= before {
		t.Fatalf("a view after the expiry of the newest block got id %d, not after %d", newest, before)
	}
	if got := brandViews(t, s, hour); got != 4 {
		t.Fatalf("%d views of the hour, want 4", got)
	}
}

// Views whose rollups a crash left waiting (through behind the blocks)
// are applied when the store opens: the rows are those of a build.
func TestWaitingViewsAppliedAtOpen(t *testing.T) {
	ctx := context.Background()
	s := storeWithBrand(t)
	hour := time.Now().UTC().Truncate(time.Hour)
	for i := range 5 {
		pendingViews(t, s, fmt.Sprint("s", i%3), hour.Add(time.Duration(i)*time.Minute), i+1)
	}
	rows := func(db *sql.DB) (out []string) {
		err := eachRowOf(ctx, db, func(r *sql.Rows) error {
			var k string
			var views int64
			var viewers []byte
			out = append(out, "")
			err := r.Scan(&k, &views, &viewers)
			out[len(out)-1] = fmt.Sprint(k, views, viewers)
			return err
		}, "SELECT brand_id || product || '@' || hour, views, viewers FROM rollup_hours ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if err := s.applyPending(ctx); err != nil {
		t.Fatal(err)
	}
	want := rows(s.r)
	if len(want) != 2 {
		t.Fatalf("hour rows %v, want the brand's and p1's", want)
	}
	dir := filepath.Dir(s.Path())
	s.Close()
	// What a crash after the commits leaves: the blocks, and rollups
	// without their views.
	db, err := sql.Open("sqlite", filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"DELETE FROM rollup_hours", "DELETE FROM rollup_countries", "UPDATE rollup_through SET views = 0, carts = 0, orders = 0"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if counted, newest := through(t, s); counted != newest || newest != 15 {
		t.Fatalf("after the open the rollups count views up to %d of %d, want 15", counted, newest)
	}
	if got := rows(s.r); !reflect.DeepEqual(got, want) {
		t.Fatalf("hour rows after the open\n%v\nbefore the crash\n%v", got, want)
	}
}

// Applied a few at a time, as the maintenance loop does, waiting views,
// carts and orders leave the rows a build makes, and each order is in its
// session's arm.
func TestWaitingEventsAppliedInSteps(t *testing.T) {
	ctx := context.Background()
	s := storeWithBrand(t)
	stopMaintenance(s)
	hour := time.Now().UTC().Truncate(time.Hour)
	for i := range 6 {
		session := fmt.Sprint("s", i%4)
		pendingViews(t, s, session, hour.Add(time.Duration(i)*time.Minute), 1+i%3)
		if i%2 == 1 {
			pendingOrder(t, s, fmt.Sprint("o", i), session, hour.Add(time.Duration(i)*time.Minute+time.Second))
		}
	}
	steps := 0
	for none := false; !none; steps++ {
		err := s.inTx(inSteps(ctx), func(tx *sql.Tx) error {
			p := s.prepared(tx)
			var err error
			none, err = s.applyWaiting(ctx, p, rollupTx{p}, 2)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if steps < 4 {
		t.Fatalf("%d steps of 2 for 12 views and 3 orders", steps)
	}
	read := func() (rows []string) {
		err := eachRowOf(ctx, s.r, func(r *sql.Rows) error {
			var k string
			var viewers []byte
			rows = append(rows, "")
			err := r.Scan(&k, &viewers)
			rows[len(rows)-1] = k + fmt.Sprint(viewers)
			return err
		}, `SELECT brand_id || ' ' || product || ' ' || hour || ' ' || views || ' ' || purchases || ' ' || units || ' ' || revenue, viewers
			FROM rollup_hours ORDER BY brand_id, product, hour`)
		if err != nil {
			t.Fatal(err)
		}
		var arms []string
		err = s.RollupArms(ctx, "br_1", func(arm string, n int64) { arms = append(arms, fmt.Sprint(arm, n)) },
			func(arm, session string, value float64, _ bool) error { arms = append(arms, arm+session); return nil })
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(arms)
		return append(rows, arms...)
	}
	stepped := read()
	if err := s.RebuildRollups(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	if built := read(); !reflect.DeepEqual(stepped, built) {
		t.Fatalf("applied in steps:\n%v\nbuilt:\n%v", stepped, built)
	}
	if !slices.Contains(stepped, holdout.ArmShown+"s1") || !slices.Contains(stepped, holdout.ArmShown+"s3") {
		t.Fatalf("the orders of s1 and s3 are not in their sessions' arm: %v", stepped)
	}
}
