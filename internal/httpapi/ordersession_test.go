package httpapi_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/svc-project/svc"
)

// sessionOf returns the session of the brand's stored order, "" for none.
func (f *fixture) sessionOf(brand, order string) string {
	f.t.Helper()
	got := "missing"
	if err := f.store.ExportEvents(context.Background(), brand, func(e svc.ExportedEvent) error {
		if p := e.Purchase; p != nil && p.Order.OrderID == order && p.Meta.Keyed {
			got = ""
			if p.Context.SessionID != nil {
				got = *p.Context.SessionID
			}
		}
		return nil
	}); err != nil {
		f.t.Fatal(err)
	}
	return got
}

// A Shopify order's _svc_session note attribute is its session; a
// malformed one is no session, never a refused webhook.
func TestShopifyOrderSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	withSecrets(t, f)
	body := fixtureFile(t, "shopify-order.json")
	withNotes := func(notes string) []byte {
		return append(bytes.TrimSuffix(bytes.TrimSpace(body), []byte("}")), []byte(`,"note_attributes":`+notes+`}`)...)
	}
	r := f.shopify("br_open", "orders/create", "w-1", withNotes(`[{"name":"gift","value":"yes"},{"name":"_svc_session","value":"s-cart"}]`), shopifySecret)
	wantStatus(t, r, 200, svc.StatusAccepted)
	if got := f.sessionOf("br_open", "820982911946154508"); got != "s-cart" {
		t.Fatalf("the order's session is %q, want s-cart", got)
	}
	for i, notes := range []string{`[{"name":"_svc_session","value":42}]`, `{"_svc_session":"x"}`, `[{"name":"_svc_session","value":"a\nb"}]`} {
		b := bytes.Replace(withNotes(notes), []byte(`"id": 820982911946154508`), []byte(`"id": 82098291194615450`+string(rune('0'+i))), 1)
		wantStatus(t, f.shopify("br_open", "orders/create", "w-bad-"+notes, b, shopifySecret), 200, svc.StatusAccepted)
		if got := f.sessionOf("br_open", "82098291194615450"+string(rune('0'+i))); got != "" {
			t.Fatalf("%s: the order's session is %q, want none", notes, got)
		}
	}
}

// The order-received page links a WooCommerce order to its session only
// with the key the signed webhook gave, whether it comes before the
// webhook or after; its body is checked as a view's.
func TestWooCommerceOrderSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	withSecrets(t, f)
	origin := []string{"Origin", "https://shop.example"}
	link := func(order, key, session string) response {
		return f.do("POST", "/api/collect/order-session", map[string]any{"brand_id": "br_open", "order_id": order, "order_key": key, "session_id": session}, origin...)
	}
	wantStatus(t, link("727", "wc_order_58d2d042d1d", "s-page"), 200, "pending")
	wantStatus(t, link("727", "wc_order_guessed", "s-stranger"), 200, "pending")
	body := fixtureFile(t, "woocommerce-order.json")
	wantStatus(t, f.woo("br_open", "order.created", body, wooSecret), 200, svc.StatusAccepted)
	if got := f.sessionOf("br_open", "727"); got != "s-page" {
		t.Fatalf("after the webhook the order's session is %q, want s-page", got)
	}
	wantStatus(t, link("727", "wc_order_58d2d042d1d", "s-again"), 200, "linked")
	if got := f.sessionOf("br_open", "727"); got != "s-page" {
		t.Fatalf("a second link moved the order to %q", got)
	}

	// The webhook first.
	other := bytes.Replace(bytes.Replace(body, []byte(`"id": 727`), []byte(`"id": 728`), 1), []byte("wc_order_58d2d042d1d"), []byte("wc_order_Zx81"), 1)
	wantStatus(t, f.woo("br_open", "order.created", other, wooSecret), 200, svc.StatusAccepted)
	wantStatus(t, link("728", "wc_order_58d2d042d1d", "s-stranger"), 200, "pending")
	if got := f.sessionOf("br_open", "728"); got != "" {
		t.Fatalf("another order's key linked order 728 to %q", got)
	}
	wantStatus(t, link("728", "wc_order_Zx81", "s-buyer"), 200, "linked")
	if got := f.sessionOf("br_open", "728"); got != "s-buyer" {
		t.Fatalf("order 728's session is %q, want s-buyer", got)
	}

	// A view's checks: every bad field, the brand, the origin.
	r := f.do("POST", "/api/collect/order-session", map[string]any{"brand_id": "br_open", "order_id": "", "order_key": 5}, origin...)
	if r.status != 400 || !bytes.Contains(r.body, []byte(`"order_id"`)) || !bytes.Contains(r.body, []byte(`"order_key"`)) || !bytes.Contains(r.body, []byte(`"session_id"`)) {
		t.Fatalf("bad fields: %d %s", r.status, r.body)
	}
	if r := f.do("POST", "/api/collect/order-session", map[string]any{"brand_id": "br_nope", "order_id": "1", "order_key": "k", "session_id": "s"}, origin...); r.status != 404 {
		t.Fatalf("unknown brand: %d %s", r.status, r.body)
	}
	if r := f.do("POST", "/api/collect/order-session", map[string]any{"brand_id": "br_open", "order_id": "1", "order_key": "k", "session_id": "s"}, "Origin", "https://evil.example"); r.status != 401 {
		t.Fatalf("another origin: %d %s", r.status, r.body)
	}
}
