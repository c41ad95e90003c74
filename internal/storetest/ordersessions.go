package storetest

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
)

// testOrderSessions checks that an order takes the session of its
// order-received page only with the key its signed webhook gave, whichever
// comes first; that the first session stays, a session the order came
// with stays, and anonymous orders and other brands' are never touched;
// and that a link waits OrderSessionTTL at most.
func testOrderSessions(t *testing.T, s svc.Store) {
	os, ok := s.(svc.OrderSessionStore)
	if !ok {
		t.Fatal("the store keeps no order sessions")
	}
	withBrand(t, s, "br_1")
	withBrand(t, s, "br_2")
	keyed := func(brand, order string, session *string) *svc.Write {
		w := purchase(order, "p1", 1)
		w.Purchase.BrandID, w.Purchase.Context.SessionID, w.Purchase.Meta.Keyed = brand, session, true
		w.Purchase.Meta.EventID += brand
		return w
	}
	anon := purchase("101", "p1", 1)
	anon.Purchase.Meta.EventID += "anon"
	appendAll(t, s, keyed("br_1", "100", nil), anon, keyed("br_1", "102", ptr("from-the-cart")), keyed("br_2", "101", nil))
	sessions := func(brand string) map[string]string {
		t.Helper()
		out := map[string]string{}
		if err := s.ExportEvents(ctx, brand, func(e svc.ExportedEvent) error {
			if p := e.Purchase; p != nil {
				k := p.Order.OrderID
				if !p.Meta.Keyed {
					k += " anonymous"
				}
				out[k] = ""
				if p.Context.SessionID != nil {
					out[k] = *p.Context.SessionID
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	link := func(brand, order, key, session string, at time.Time, want bool) {
		t.Helper()
		if got, err := os.LinkOrderSession(ctx, brand, order, key, session, at); err != nil || got != want {
			t.Fatalf("link %s %s %s %s: %v, %v; want %v", brand, order, key, session, got, err, want)
		}
	}
	orderKey := func(brand, order, key string, at time.Time) {
		t.Helper()
		if err := os.OrderKey(ctx, brand, order, key, at); err != nil {
			t.Fatal(err)
		}
	}

	// The page first: the link waits; the webhook's key gives the order
	// its session.
	link("br_1", "100", "wc_order_a", "s-page", t0, false)
	if got := sessions("br_1")["100"]; got != "" {
		t.Fatalf("a link without the webhook's key gave order 100 the session %q", got)
	}
	orderKey("br_1", "100", "wc_order_a", t0.Add(time.Minute))
	if got := sessions("br_1")["100"]; got != "s-page" {
		t.Fatalf("order 100 has the session %q after its webhook's key, want s-page", got)
	}
	// The first session stays.
	link("br_1", "100", "wc_order_a", "s-later", t0.Add(2*time.Minute), true)
	if got := sessions("br_1")["100"]; got != "s-page" {
		t.Fatalf("a second link moved order 100 to %q", got)
	}

	// The webhook first: a wrong key links nothing, the right one links
	// the brand's keyed order alone.
	orderKey("br_1", "101", "wc_order_b", t0)
	orderKey("br_2", "101", "wc_order_other", t0)
	link("br_1", "101", "wc_order_guess", "s-stranger", t0, false)
	link("br_1", "101", "wc_order_b", "s-buyer", t0, true)
	got1, got2 := sessions("br_1"), sessions("br_2")
	if got1["101"] != "" || got1["101 anonymous"] != "" || got2["101"] != "" {
		t.Fatalf("br_1 has %v, br_2 %v: only br_1's keyed order 101 may take a session", got1, got2)
	}
	if _, ok := got1["101"]; ok {
		t.Fatalf("br_1 has a keyed order 101 it never stored: %v", got1)
	}
	// The keyed order comes after both (an order paid later): its
	// webhook's key gives it the session.
	appendAll(t, s, keyed("br_1", "101", nil))
	orderKey("br_1", "101", "wc_order_b", t0.Add(time.Hour))
	if got := sessions("br_1"); got["101"] != "s-buyer" || got["101 anonymous"] != "" {
		t.Fatalf("br_1's orders %v: want keyed 101 in s-buyer, the anonymous one in none", got)
	}

	// An order that came with a session keeps it.
	orderKey("br_1", "102", "wc_order_c", t0)
	link("br_1", "102", "wc_order_c", "s-page", t0, true)
	if got := sessions("br_1")["102"]; got != "from-the-cart" {
		t.Fatalf("order 102 moved from its own session to %q", got)
	}

	// Forgetting a session forgets its links: the order's webhook later
	// gives it no session.
	appendAll(t, s, keyed("br_1", "104", nil))
	link("br_1", "104", "wc_order_e", "s-forgotten", t0, false)
	if _, err := s.ForgetSession(ctx, "br_1", "s-forgotten"); err != nil {
		t.Fatal(err)
	}
	orderKey("br_1", "104", "wc_order_e", t0.Add(time.Minute))
	if got := sessions("br_1")["104"]; got != "" {
		t.Fatalf("a forgotten session's link gave order 104 the session %q", got)
	}

	// A session an order-received link gave an order, with no view, is in
	// no funnel step (a rebuild would not find it either).
	rs := s.(rollup.Store)
	funnel := func() rollup.Funnel {
		t.Helper()
		f, err := rs.RollupFunnel(ctx, "br_1", time.UnixMilli(0), time.Now().Add(48*time.Hour)) // a link is made at the clock's time
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if f := funnel(); f != (rollup.Funnel{}) {
		t.Fatalf("sessions without views in the funnel: %+v", f)
	}

	// A link waits OrderSessionTTL at most.
	appendAll(t, s, keyed("br_1", "103", nil))
	link("br_1", "103", "wc_order_d", "s-old", t0, false)
	orderKey("br_1", "103", "wc_order_d", t0.Add(svc.OrderSessionTTL+time.Minute))
	if got := sessions("br_1")["103"]; got != "" {
		t.Fatalf("a link older than the TTL gave order 103 the session %q", got)
	}
}
