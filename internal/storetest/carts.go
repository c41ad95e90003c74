package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

func cartWrite(product, idem string, qty *int64) *svc.Write {
	e := &svc.CartEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: product}, Quantity: qty}
	e.Meta = svc.EventMeta{EventID: fmt.Sprintf("ev-cart-%s-%p", idem, e), Time: t0, ReceivedAt: t0}
	return &svc.Write{Cart: e, MayRegister: true, IdempotencyKey: idem}
}

func allCarts(t *testing.T, s svc.EventReader, since time.Time) []svc.CartRecord {
	t.Helper()
	var out []svc.CartRecord
	if err := s.Carts(ctx, since, func(r svc.CartRecord) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// testCarts covers add-to-carts: stored beside views in one batch,
// registering their product, read back oldest first with their session,
// their idempotency keys apart from a view's, and refused for an unknown
// product of a closed catalog.
func testCarts(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	title, url := "Shoe", "https://shop.example/p1"
	c1 := cartWrite("p1", "k1", ptr[int64](3))
	c1.Cart.Product.Title, c1.Cart.Product.URL = &title, &url
	c1.Cart.Context.SessionID = ptr("s1")
	old := cartWrite("p1", "", nil)
	old.Cart.Meta.Time = t0.Add(-2 * time.Hour)
	v := view("p1", "k1") // the same key on another endpoint: apart
	c2 := cartWrite("p2", "", nil)
	c2.Cart.Meta.Time = t0.Add(time.Second)
	c2.Cart.Context.SessionID = ptr("s2")
	appendAll(t, s, c1, old, v, c2)
	for _, w := range []*svc.Write{c1, old, v, c2} {
		if r := w.Result; r.Err != nil || r.Status != svc.StatusAccepted || r.Replay {
			t.Fatalf("write %+v: %+v", w, r)
		}
	}
	if l := c1.Result.Lines; len(l) != 1 || l[0].ProductID != "p1" || l[0].Units != 3 || l[0].Product != v.Result.Lines[0].Product {
		t.Fatalf("cart lines %+v (the view's %+v)", l, v.Result.Lines)
	}
	if l := old.Result.Lines; len(l) != 1 || l[0].Units != 1 {
		t.Fatalf("a cart without quantity is 1 unit: %+v", l)
	}
	got := allCarts(t, s, t0.Add(-time.Hour))
	if len(got) != 2 || got[0].SessionID != "s1" || !got[0].Time.Equal(t0) || got[0].Product != c1.Result.Lines[0].Product ||
		got[1].SessionID != "s2" || got[1].Product != c2.Result.Lines[0].Product {
		t.Fatalf("carts since an hour ago %+v", got)
	}
	if got := allCarts(t, s, t0.Add(-24*time.Hour)); len(got) != 3 || got[0].SessionID != "" || !got[0].Time.Equal(t0.Add(-2*time.Hour)) {
		t.Fatalf("carts oldest first %+v", got)
	}
	var p1 *svc.Product
	for _, p := range allProducts(t, s) {
		if p.ProductID == "p1" {
			p1 = p
		}
	}
	if p1 == nil || p1.Title == nil || *p1.Title != title || p1.URL == nil || *p1.URL != url {
		t.Fatalf("the cart's product %+v", p1)
	}

	again := cartWrite("p1", "k1", ptr[int64](3))
	again.BodyHash = c1.BodyHash
	again.Cart.Meta.ReceivedAt = t0.Add(time.Minute)
	other := cartWrite("p1", "k1", ptr[int64](4))
	other.BodyHash[0] = 1
	other.Cart.Meta.ReceivedAt = t0.Add(time.Minute)
	appendAll(t, s, again)
	appendAll(t, s, other)
	if r := again.Result; !r.Replay || r.EventID != c1.Result.EventID {
		t.Fatalf("the key again: %+v", r)
	}
	if r := other.Result; svc.ErrorCode(r.Err) != svc.ECONFLICT {
		t.Fatalf("the key with another body: %+v", r)
	}
	closed := cartWrite("p-new", "", nil)
	closed.MayRegister = false
	appendAll(t, s, closed)
	if svc.ErrorCode(closed.Result.Err) != svc.ENOTFOUND {
		t.Fatalf("unknown product, closed catalog: %+v", closed.Result)
	}
	if n := len(allCarts(t, s, t0.Add(-24*time.Hour))); n != 3 {
		t.Fatalf("%d carts after a replay, a conflict and a refusal, want 3", n)
	}

	// Carts expire with the other events.
	if _, err := s.DeleteExpired(ctx, t0.Add(-time.Hour), t0, 100); err != nil {
		t.Fatal(err)
	}
	if got := allCarts(t, s, t0.Add(-24*time.Hour)); len(got) != 2 {
		t.Fatalf("after expiry %+v", got)
	}
}

// testCartsExportedAndForgotten covers a brand's export and a session's
// erasure of add-to-carts.
func testCartsExportedAndForgotten(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	withBrand(t, s, "br_2")
	c := cartWrite("p1", "", ptr[int64](2))
	c.Cart.Context = svc.ViewContext{SessionID: ptr("s1"), Country: ptr("DE"), Locale: ptr("de-DE")}
	c.Cart.Meta.Keyed = true
	plain := cartWrite("p1", "", nil)
	plain.Cart.Meta.Time = t0.Add(time.Minute)
	theirs := cartWrite("p1", "", nil)
	theirs.Cart.BrandID, theirs.Cart.Context.SessionID = "br_2", ptr("s1")
	appendAll(t, s, view("p1", ""), c, plain, theirs)

	var got []svc.ExportedEvent
	if err := s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].View == nil || got[1].Cart == nil || got[2].Cart == nil {
		t.Fatalf("export %+v: want the view, then both carts", got)
	}
	ec := got[1].Cart
	if ec.Meta.EventID != c.Cart.Meta.EventID || ec.BrandID != "br_1" || ec.Product.ProductID != "p1" || ec.Quantity == nil || *ec.Quantity != 2 ||
		*ec.Context.SessionID != "s1" || *ec.Context.Country != "DE" || *ec.Context.Locale != "de-DE" || !ec.Meta.Keyed || !ec.Meta.Time.Equal(t0) {
		t.Fatalf("exported cart %+v", ec)
	}
	if q := got[2].Cart.Quantity; q == nil || *q != 1 {
		t.Fatalf("a cart sent without quantity is exported with 1: %v", q)
	}

	v0, _ := s.ErasureVersion(ctx)
	if n, err := s.ForgetSession(ctx, "br_1", "s1"); err != nil || n != 1 {
		t.Fatalf("forget: %d, %v; want the one cart", n, err)
	}
	if v, _ := s.ErasureVersion(ctx); v == v0 {
		t.Fatal("erasure version unchanged after erasing a cart")
	}
	if got := allCarts(t, s, t0.Add(-24*time.Hour)); len(got) != 2 {
		t.Fatalf("carts left %+v: want the session-less one and the other brand's", got)
	}
}
