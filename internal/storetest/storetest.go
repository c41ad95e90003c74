// Package storetest is the conformance suite of svc.Store: one table of
// tests that every store runs, covering each behaviour the service relies on.
package storetest

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
)

// Open returns a new, empty store, closed when the test ends.
type Open func(t *testing.T) svc.Store

// Run runs every test of the suite, each on a store of its own, in parallel.
func Run(t *testing.T, open Open) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

var tests = []struct {
	name string
	fn   func(*testing.T, svc.Store)
}{
	{"Brands", testBrands},
	{"RevokeAPIKey", testRevokeAPIKey},
	{"KeyLabelAndLastUse", testKeyLabelAndLastUse},
	{"AppendWithinOneBatch", testAppendWithinOneBatch},
	{"AppendAcrossBatches", testAppendAcrossBatches},
	{"BadWriteFailsAlone", testBadWriteFailsAlone},
	{"IdempotencyScopesAndExpiry", testIdempotencyScopesAndExpiry},
	{"KeyedOrdersApartFromAnonymous", testKeyedOrdersApart},
	{"ClosedCatalog", testClosedCatalog},
	{"ProductAttributesFollowTheLatestEvent", testProductAttributes},
	{"BrandTitlesSinceAMark", testBrandTitlesSince},
	{"ProductIdentifiers", testProductIdentifiers},
	{"ProductProvenance", testProductProvenance},
	{"ProductNames", testNames},
	{"EnsureProduct", testEnsureProduct},
	{"ViewsAndPurchaseLines", testViewsAndPurchaseLines},
	{"DeleteExpiredInBatches", testDeleteExpiredInBatches},
	{"ExportEvents", testExportEvents},
	{"ForgetSession", testForgetSession},
	{"CancelWholeOrder", testCancelWholeOrder},
	{"CancelPartly", testCancelPartly},
	{"CancelIdempotency", testCancelIdempotency},
	{"CancelBeforeOrder", testCancelBeforeOrder},
	{"RefundBeforeOrder", testRefundBeforeOrder},
	{"CancelIfCounted", testCancelIfCounted},
	{"CancelAnonymousOrder", testCancelAnonymousOrder},
	{"Carts", testCarts},
	{"CartsExportedAndForgotten", testCartsExportedAndForgotten},
	{"Holdout", testHoldout},
	{"OrderSessions", testOrderSessions},
	{"Rollups", testRollups},
	{"RollupsRebuildBesideRetention", testRollupsRebuildBesideRetention},
	{"WidgetReports", testWidgetReports},
	{"RecentPurchases", testRecentPurchases},
	{"BrandRecentSettings", testBrandRecentSettings},
	{"SigningKeys", testSigningKeys},
	{"DashboardSessions", testDashboardSessions},
	{"Members", testMembers},
	{"MemberSessions", testMemberSessions},
	{"AuditLog", testAuditLog},
	{"DigestClaims", testDigestClaims},
	{"Passkeys", testPasskeys},
	{"WebhookSecrets", testWebhookSecrets},
	{"Settings", testSettings},
}

var (
	ctx = context.Background()
	t0  = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
)

func ptr[T any](v T) *T { return &v }

func withBrand(t *testing.T, s svc.Store, id string) {
	t.Helper()
	if err := s.CreateBrand(ctx, &svc.Brand{ID: id, Name: "Brand " + id, Domains: []string{"shop.example"}, CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
}

func purchase(order, product string, qty int64) *svc.Write {
	e := &svc.PurchaseEvent{BrandID: "br_1", Order: svc.Order{OrderID: order, Items: []svc.PurchaseItem{{ProductID: product, Quantity: &qty}}}}
	e.Meta = svc.EventMeta{EventID: "ev-" + order + "-" + product, Time: t0, ReceivedAt: t0}
	return &svc.Write{Purchase: e, MayRegister: true}
}

func view(product, idem string) *svc.Write {
	e := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: product}}
	e.Meta = svc.EventMeta{EventID: fmt.Sprintf("ev-view-%s-%p", idem, e), Time: t0, ReceivedAt: t0}
	return &svc.Write{View: e, MayRegister: true, IdempotencyKey: idem}
}

func appendAll(t *testing.T, s svc.Store, batch ...*svc.Write) {
	t.Helper()
	if err := s.Append(ctx, batch); err != nil {
		t.Fatal(err)
	}
}

func countViews(t *testing.T, s svc.EventReader) int {
	t.Helper()
	n := 0
	if err := s.Views(ctx, t0.Add(-100*24*time.Hour), func(svc.ViewRecord) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	checkCounted(t, s, t0.Add(-100*24*time.Hour))
	return n
}

// checkCounted checks that the store's CountedViews, where it has them,
// hand over the views of Views, in the same order.
func checkCounted(t *testing.T, s svc.EventReader, since time.Time) {
	t.Helper()
	vc, ok := s.(svc.ViewCounter)
	if !ok {
		return
	}
	hash := func(b []byte) uint64 {
		if len(b) == 0 {
			return 0
		}
		return uint64(len(b))<<56 | uint64(b[0])<<8 | uint64(b[len(b)-1])
	}
	var want, got []svc.CountedView
	if err := s.Views(ctx, since, func(r svc.ViewRecord) error {
		want = append(want, svc.CountedView{Product: r.Product, UnixMilli: r.Time.UnixMilli(), Session: hash([]byte(r.SessionID))})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := vc.CountedViews(ctx, since, hash, func(vs []svc.CountedView) error {
		got = append(got, vs...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("CountedViews since %v:\n%+v\nViews:\n%+v", since, got, want)
	}
}

func purchaseLines(t *testing.T, s svc.EventReader) []svc.PurchaseRecord {
	t.Helper()
	var out []svc.PurchaseRecord
	if err := s.PurchaseLines(ctx, t0.Add(-100*24*time.Hour), func(r svc.PurchaseRecord) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func allProducts(t *testing.T, s svc.EventReader) []*svc.Product {
	t.Helper()
	var out []*svc.Product
	if err := s.Products(ctx, func(p *svc.Product) error { out = append(out, p); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func testBrands(t *testing.T, s svc.Store) {
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	v0, err := s.ConfigVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, key := svc.NewAPIKey("br_2", t0)
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_2", Name: "Two", CreatedAt: t0.Add(time.Second)}, key); err != nil {
		t.Fatal(err)
	}
	withBrand(t, s, "br_1")
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "Again", CreatedAt: t0}, nil); svc.ErrorCode(err) != svc.ECONFLICT {
		t.Fatalf("second brand with the id: %v", err)
	}
	if _, err := s.Brand(ctx, "br_nope"); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("missing brand: %v", err)
	}
	b, err := s.Brand(ctx, "br_2")
	if err != nil || b.Name != "Two" || len(b.Domains) != 0 || b.MinViewers != svc.DefaultMinViewers || b.MinPurchases != svc.DefaultMinPurchases || !b.CreatedAt.Equal(t0.Add(time.Second)) ||
		b.Widget != (svc.WidgetSettings{MinCarts: svc.DefaultMinCarts}) {
		t.Fatalf("brand %+v, %v", b, err)
	}
	brands, err := s.Brands(ctx)
	if err != nil || len(brands) != 2 || brands[0].ID != "br_1" || brands[1].ID != "br_2" || !slices.Equal(brands[0].Domains, []string{"shop.example"}) {
		t.Fatalf("brands, oldest first: %+v, %v", brands, err)
	}
	keys, err := s.APIKeys(ctx)
	if err != nil || len(keys) != 1 || keys[0].Hash != key.Hash || keys[0].BrandID != "br_2" || keys[0].RevokedAt != nil {
		t.Fatalf("keys %+v, %v", keys, err)
	}

	up := &svc.Brand{ID: "br_1", Name: "Renamed", Domains: []string{"a.example", "b.example"}, RequireKey: true, ClosedCatalog: true, MinViewers: 5, MinPurchases: 2, CreatedAt: t0.Add(time.Hour),
		Widget: svc.WidgetSettings{Font: "inherit", MinCarts: 4}}
	if err := s.UpdateBrand(ctx, up); err != nil {
		t.Fatal(err)
	}
	b, _ = s.Brand(ctx, "br_1")
	if b.Name != "Renamed" || !slices.Equal(b.Domains, up.Domains) || !b.RequireKey || !b.ClosedCatalog || b.MinViewers != 5 || b.MinPurchases != 2 || !b.CreatedAt.Equal(t0) ||
		b.Widget != (svc.WidgetSettings{Font: "inherit", MinCarts: 4}) {
		t.Fatalf("updated brand %+v (its creation time stays)", b)
	}
	// Every setting, each a value of its own, reads back as written: the
	// stores' columns, values and scans are in step.
	every := &svc.Brand{ID: "br_1", Name: "Every", Domains: []string{"c.example"}, RequireKey: true, ClosedCatalog: true, MinViewers: 7, MinPurchases: 3,
		Holdout: 20, WidgetVariant: "inline toasts", WidgetPosition: "end", Languages: "de,en", CreatedAt: t0,
		Widget: svc.WidgetSettings{Font: "inherit", MinCarts: 6, Accent: "#123456"},
		Recent: svc.RecentSettings{Delay: 7 * time.Minute, Window: 30 * time.Hour, MaxItems: 9, K: 4}}
	if err := s.UpdateBrand(ctx, every); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Brand(ctx, "br_1"); err != nil || !reflect.DeepEqual(b, every) {
		t.Fatalf("brand read back as\n%+v\nwritten as\n%+v (%v)", b, every, err)
	}
	if err := s.UpdateBrand(ctx, &svc.Brand{ID: "br_nope", Name: "x"}); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("update of a missing brand: %v", err)
	}
	if v1, _ := s.ConfigVersion(ctx); v1 != v0+4 {
		t.Fatalf("config version %d -> %d, want 4 changes", v0, v1)
	}
}

func testRevokeAPIKey(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	v0, _ := s.ConfigVersion(ctx)
	var secrets []string
	for i := 0; i < 2; i++ {
		secret, k := svc.NewAPIKey("br_1", t0.Add(time.Duration(i)*time.Second))
		k.Prefix = "sk_samesame" // two keys with one prefix, as chance could make them
		if err := s.CreateAPIKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, secret)
	}
	if _, k := svc.NewAPIKey("br_nope", t0); svc.ErrorCode(s.CreateAPIKey(ctx, k)) != svc.ENOTFOUND {
		t.Fatal("a key for a missing brand was stored")
	}
	if _, err := s.RevokeAPIKey(ctx, "br_1", "sk_samesame", t0); svc.ErrorCode(err) != svc.ECONFLICT {
		t.Fatalf("ambiguous prefix: %v", err)
	}
	for _, short := range []string{"", "s", "sk_", "sk_sames"} {
		if _, err := s.RevokeAPIKey(ctx, "br_1", short, t0); svc.ErrorCode(err) != svc.ENOTFOUND {
			t.Fatalf("short prefix %q: %v", short, err)
		}
	}
	if _, err := s.RevokeAPIKey(ctx, "br_2", secrets[0], t0); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("another brand's key: %v", err)
	}
	if _, err := s.RevokeAPIKey(ctx, "br_1", secrets[0], t0); err != nil {
		t.Fatalf("by secret: %v", err)
	}
	if k, err := s.RevokeAPIKey(ctx, "br_1", "sk_samesame", t0); err != nil || k.RevokedAt == nil || k.Hash != svc.HashAPIKey(secrets[1]) {
		t.Fatalf("by prefix, now that one key has it: %+v %v", k, err)
	}
	if _, err := s.RevokeAPIKey(ctx, "br_1", secrets[0], t0); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("revoked twice: %v", err)
	}
	keys, _ := s.APIKeys(ctx)
	if len(keys) != 2 || keys[0].RevokedAt == nil || keys[1].RevokedAt == nil || !keys[0].RevokedAt.Equal(t0) {
		t.Fatalf("keys %+v", keys)
	}
	if v1, _ := s.ConfigVersion(ctx); v1 != v0+4 {
		t.Fatalf("config version %d -> %d, want 4 changes", v0, v1)
	}
}

func testAppendWithinOneBatch(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	closed := view("unknown", "")
	closed.MayRegister = false
	batch := []*svc.Write{
		purchase("o1", "p1", 2),
		purchase("o1", "p1", 5), // the same order again in the same transaction
		view("p1", "k1"),
		view("p1", "k1"), // the same idempotency key in the same transaction
		closed,
		view("p2", "k2"),
	}
	batch[5].BodyHash[0] = 1
	other := view("p2", "k2") // the key again, with another body
	batch = append(batch, other)
	appendAll(t, s, batch...)
	r := func(i int) svc.WriteResult { return batch[i].Result }
	if r(0).Status != svc.StatusAccepted || r(0).EventID != "ev-o1-p1" || len(r(0).Lines) != 1 || r(0).Lines[0].Units != 2 || r(0).Lines[0].ProductID != "p1" {
		t.Fatalf("order: %+v", r(0))
	}
	if r(1).Status != svc.StatusDuplicate || r(1).EventID != r(0).EventID || r(1).Lines != nil || r(1).Err != nil {
		t.Fatalf("the order again: %+v", r(1))
	}
	if r(2).Replay || r(2).Status != svc.StatusAccepted || !r(3).Replay || r(3).EventID != r(2).EventID || r(3).Status != svc.StatusAccepted || r(3).Lines != nil {
		t.Fatalf("idempotency: %+v / %+v", r(2), r(3))
	}
	if r(2).Lines[0].Product != r(0).Lines[0].Product {
		t.Fatalf("one product, two refs: %+v / %+v", r(0), r(2))
	}
	if svc.ErrorCode(r(4).Err) != svc.ENOTFOUND {
		t.Fatalf("closed catalog: %+v", r(4))
	}
	if svc.ErrorCode(r(6).Err) != svc.ECONFLICT {
		t.Fatalf("a key reused with another body: %+v", r(6))
	}
	if views, lines := countViews(t, s), purchaseLines(t, s); views != 2 || len(lines) != 1 || lines[0].Units != 2 {
		t.Fatalf("%d views and %+v purchase lines stored, want 2 and one of 2 units", views, lines)
	}
}

// A write the database refuses (here its brand does not exist, so its
// product breaks a foreign key) fails alone: the batch is stored without
// it, and each other write is answered as if it had not been there.
func testBadWriteFailsAlone(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	bad := view("p2", "")
	bad.View.BrandID = "br_gone"
	batch := []*svc.Write{view("p1", "k1"), bad, purchase("o1", "p1", 3), view("p1", "k1")}
	if err := s.Append(ctx, batch); err != nil {
		t.Fatalf("the batch failed: %v", err)
	}
	if code := svc.ErrorCode(bad.Result.Err); code != svc.EINTERNAL {
		t.Errorf("the bad write: %+v, want an error %q", bad.Result, svc.EINTERNAL)
	}
	if r := batch[0].Result; r.Err != nil || r.Status != svc.StatusAccepted || len(r.Lines) != 1 {
		t.Errorf("the view before it: %+v, want accepted with its line", r)
	}
	if r := batch[2].Result; r.Err != nil || r.Status != svc.StatusAccepted || len(r.Lines) != 1 || r.Lines[0].Units != 3 {
		t.Errorf("the order after it: %+v, want accepted with a line of 3 units", r)
	}
	if r := batch[3].Result; !r.Replay || r.EventID != batch[0].Result.EventID {
		t.Errorf("the first view's key again: %+v, want a replay of %q", r, batch[0].Result.EventID)
	}
	if n := countViews(t, s); n != 1 {
		t.Errorf("%d views stored, want the good one", n)
	}
	if lines := purchaseLines(t, s); len(lines) != 1 || lines[0].Units != 3 {
		t.Errorf("purchase lines stored: %+v, want the order's one of 3 units", lines)
	}
	for _, p := range allProducts(t, s) {
		if p.BrandID != "br_1" {
			t.Errorf("product %+v stored by the bad write", p)
		}
	}
	// The key keeps the first view's answer after the commit too.
	again := view("p1", "k1")
	appendAll(t, s, again)
	if r := again.Result; !r.Replay || r.EventID != batch[0].Result.EventID {
		t.Errorf("the key in the next batch: %+v, want a replay of %q", r, batch[0].Result.EventID)
	}
}

func testAppendAcrossBatches(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	first := []*svc.Write{purchase("o1", "p1", 1), view("p1", "k1")}
	appendAll(t, s, first...)
	dup, replay := purchase("o1", "p2", 3), view("p1", "k1")
	reuse := view("p1", "k1")
	reuse.BodyHash[0] = 1
	keyedDup := purchase("o2", "p1", 1)
	keyedDup.IdempotencyKey = "k1" // another endpoint: another scope
	appendAll(t, s, dup, replay, reuse, keyedDup)
	if dup.Result.Status != svc.StatusDuplicate || dup.Result.EventID != first[0].Result.EventID || dup.Result.Lines != nil {
		t.Fatalf("duplicate order: %+v", dup.Result)
	}
	if !replay.Result.Replay || replay.Result.EventID != first[1].Result.EventID || replay.Result.Status != svc.StatusAccepted || replay.Result.Lines != nil {
		t.Fatalf("replay: %+v", replay.Result)
	}
	if svc.ErrorCode(reuse.Result.Err) != svc.ECONFLICT {
		t.Fatalf("reuse: %+v", reuse.Result)
	}
	if keyedDup.Result.Replay || keyedDup.Result.Status != svc.StatusAccepted {
		t.Fatalf("the key on another endpoint: %+v", keyedDup.Result)
	}
	// A duplicate remembers its answer under its key.
	dupKeyed := purchase("o1", "p1", 1)
	dupKeyed.IdempotencyKey = "k9"
	appendAll(t, s, dupKeyed)
	again := purchase("o1", "p1", 1)
	again.IdempotencyKey = "k9"
	appendAll(t, s, again)
	if !again.Result.Replay || again.Result.Status != svc.StatusDuplicate || again.Result.EventID != first[0].Result.EventID {
		t.Fatalf("replay of a duplicate: %+v", again.Result)
	}
	if views, lines := countViews(t, s), purchaseLines(t, s); views != 1 || len(lines) != 2 {
		t.Fatalf("%d views and %d orders stored, want 1 and 2", views, len(lines))
	}
}

// An outside probe found that an anonymous purchase made the brand's later keyed
// purchase of the same order id a duplicate. A keyed order is never a
// duplicate of an anonymous one, across batches or within one; an
// anonymous order repeating a keyed one is its duplicate.
func testKeyedOrdersApart(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	order := func(id string, keyed bool) *svc.Write {
		w := purchase(id, "p1", 1)
		w.Purchase.Meta.Keyed = keyed
		w.Purchase.Meta.EventID = fmt.Sprintf("ev-%s-%v-%p", id, keyed, w)
		return w
	}
	want := func(w *svc.Write, status string, first *svc.Write) {
		t.Helper()
		r := w.Result
		if r.Err != nil || r.Status != status || r.EventID != first.Purchase.Meta.EventID {
			t.Errorf("order %s (keyed %v): %+v, want %s with the event id of %s", w.Purchase.Order.OrderID, w.Purchase.Meta.Keyed, r, status, first.Purchase.Meta.EventID)
		}
	}
	squat, real := order("A-90001", false), order("A-90001", true)
	appendAll(t, s, squat)
	appendAll(t, s, real)
	want(squat, svc.StatusAccepted, squat)
	want(real, svc.StatusAccepted, real)
	if len(real.Result.Lines) != 1 {
		t.Errorf("the keyed order counts no line: %+v", real.Result)
	}
	again, againKeyed := order("A-90001", false), order("A-90001", true)
	appendAll(t, s, again, againKeyed)
	want(again, svc.StatusDuplicate, squat)
	want(againKeyed, svc.StatusDuplicate, real)

	// Within one batch, in either order.
	k2, a2, a3, k3 := order("o2", true), order("o2", false), order("o3", false), order("o3", true)
	appendAll(t, s, k2, a2, a3, k3)
	want(k2, svc.StatusAccepted, k2)
	want(a2, svc.StatusDuplicate, k2)
	want(a3, svc.StatusAccepted, a3)
	want(k3, svc.StatusAccepted, k3)
	if n := len(purchaseLines(t, s)); n != 5 {
		t.Errorf("%d purchase lines stored, want 5: A-90001 and o3 of both senders, o2 once", n)
	}
}

func testIdempotencyScopesAndExpiry(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	withBrand(t, s, "br_2")
	anon := view("p1", "k")
	keyed := view("p1", "k")
	keyed.View.Meta.Keyed = true // a keyed sender: another scope
	other := view("p1", "k")
	other.View.BrandID = "br_2" // another brand
	appendAll(t, s, anon, keyed, other)
	for _, w := range []*svc.Write{anon, keyed, other} {
		if w.Result.Replay || w.Result.Status != svc.StatusAccepted {
			t.Fatalf("scoped keys: %+v", w.Result)
		}
	}
	// Within the TTL the key answers again; after it, it is fresh.
	within := view("p1", "k")
	within.View.Meta.ReceivedAt = t0.Add(svc.IdempotencyTTL - time.Second)
	appendAll(t, s, within)
	if !within.Result.Replay || within.Result.EventID != anon.Result.EventID {
		t.Fatalf("within the TTL: %+v", within.Result)
	}
	after := view("p1", "k")
	after.View.Meta.ReceivedAt = t0.Add(svc.IdempotencyTTL + time.Second)
	after.BodyHash[0] = 1 // another body: no conflict once the key expired
	appendAll(t, s, after)
	if after.Result.Replay || after.Result.Err != nil || after.Result.Status != svc.StatusAccepted {
		t.Fatalf("after the TTL: %+v", after.Result)
	}
	again := view("p1", "k")
	again.View.Meta.ReceivedAt = t0.Add(svc.IdempotencyTTL + 2*time.Second)
	again.BodyHash[0] = 1
	appendAll(t, s, again)
	if !again.Result.Replay || again.Result.EventID != after.Result.EventID {
		t.Fatalf("the renewed key: %+v", again.Result)
	}
	if n := countViews(t, s); n != 4 {
		t.Fatalf("%d views stored, want 4", n)
	}
}

func testClosedCatalog(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	title := "Known"
	known := view("p1", "")
	known.View.Product.Title = &title
	appendAll(t, s, known)

	other := "Changed"
	anon := view("p1", "")
	anon.MayRegister, anon.View.Product.Title = false, &other
	unknown := view("p2", "k1")
	unknown.MayRegister = false
	order := purchase("o1", "p1", 1)
	order.Purchase.Order.Items = append(order.Purchase.Order.Items, svc.PurchaseItem{ProductID: "p3", Quantity: ptr[int64](1)})
	order.MayRegister = false
	appendAll(t, s, anon, unknown, order)
	if anon.Result.Status != svc.StatusAccepted || anon.Result.Lines[0].Product != known.Result.Lines[0].Product {
		t.Fatalf("an anonymous view of a known product: %+v", anon.Result)
	}
	if svc.ErrorCode(unknown.Result.Err) != svc.ENOTFOUND || svc.ErrorCode(order.Result.Err) != svc.ENOTFOUND {
		t.Fatalf("unknown products: %+v / %+v", unknown.Result, order.Result)
	}
	ps := allProducts(t, s)
	if len(ps) != 1 || *ps[0].Title != "Known" {
		t.Fatalf("products %+v: an anonymous event changed or registered one", ps)
	}
	if len(purchaseLines(t, s)) != 0 {
		t.Fatal("a refused order was stored")
	}
	// A refused write's key is not remembered: the retry is fresh.
	retry := view("p2", "k1")
	appendAll(t, s, retry)
	if retry.Result.Replay || retry.Result.Status != svc.StatusAccepted {
		t.Fatalf("retry after a refusal: %+v", retry.Result)
	}
	// The order, once its products exist, is stored (it was never taken).
	order2 := purchase("o1", "p1", 1)
	appendAll(t, s, order2)
	if order2.Result.Status != svc.StatusAccepted {
		t.Fatalf("order after a refusal: %+v", order2.Result)
	}
}

func testProductAttributes(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	title1, title2, url := "Old", "New", "https://shop.example/p"
	w1, w2, w3 := view("p1", ""), view("p1", ""), view("p1", "")
	w1.View.Product.Title, w1.View.Product.URL = &title1, &url
	w2.View.Product.Title = &title2 // no url: the stored one stays
	appendAll(t, s, w1)
	appendAll(t, s, w2)
	ps := allProducts(t, s)
	if len(ps) != 1 || *ps[0].Title != "New" || *ps[0].URL != url || ps[0].SKU != nil || ps[0].Ref != w1.Result.Lines[0].Product || ps[0].BrandID != "br_1" {
		t.Fatalf("products %+v", ps)
	}
	// Within one batch, the latest given value wins too; a purchase line sets sku and title.
	sku, title3 := "SKU-1", "Newest"
	w3.View.Product.Title = &title1
	p := purchase("o1", "p1", 1)
	p.Purchase.Order.Items[0].SKU, p.Purchase.Order.Items[0].Title = &sku, &title3
	appendAll(t, s, w3, p)
	ps = allProducts(t, s)
	if len(ps) != 1 || *ps[0].Title != "Newest" || *ps[0].SKU != "SKU-1" || *ps[0].URL != url {
		t.Fatalf("products after a batch %+v", ps)
	}
	// The dashboard's titles are the latest; a product without one has "".
	bare := view("p2", "")
	appendAll(t, s, bare)
	titles := map[int64]string{}
	if _, _, err := s.(rollup.Store).BrandTitles(ctx, "br_1", rollup.TitlesMark{}, func(ref int64, title string) { titles[ref] = title }); err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{int64(ps[0].Ref): "Newest", int64(bare.Result.Lines[0].Product): ""}
	if !maps.Equal(titles, want) {
		t.Fatalf("the brand's titles %v, want %v", titles, want)
	}
}

// testBrandTitlesSince: the dashboard keeps a brand's titles across
// readings, and asks for those written since its mark: every change of a
// title, a new product and a merge must show.
func testBrandTitlesSince(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	withBrand(t, s, "br_2")
	read := func(after rollup.TitlesMark) (map[int64]string, rollup.TitlesMark, bool) {
		t.Helper()
		got := map[int64]string{}
		next, whole, err := s.(rollup.Store).BrandTitles(ctx, "br_1", after, func(ref int64, title string) { got[ref] = title })
		if err != nil {
			t.Fatal(err)
		}
		return got, next, whole
	}
	titled := func(w *svc.Write, title string) *svc.Write {
		w.View.Product.Title = &title
		return w
	}
	w1, w2 := titled(view("p1", ""), "One"), titled(view("p2", ""), "Two")
	appendAll(t, s, w1, w2)
	ref1, ref2 := int64(w1.Result.Lines[0].Product), int64(w2.Result.Lines[0].Product)
	check := func(step string, got, want map[int64]string, whole, wantWhole bool) {
		t.Helper()
		if !maps.Equal(got, want) || whole != wantWhole {
			t.Fatalf("%s: titles %v (whole %v), want %v (whole %v)", step, got, whole, want, wantWhole)
		}
	}
	got, m0, whole := read(rollup.TitlesMark{})
	check("first read", got, map[int64]string{ref1: "One", ref2: "Two"}, whole, true)
	got, m1, whole := read(m0)
	check("nothing written", got, map[int64]string{}, whole, false)

	appendAll(t, s, titled(view("p1", ""), "One, renamed"))
	got, m2, whole := read(m1)
	check("a title changed", got, map[int64]string{ref1: "One, renamed"}, whole, false)

	// A new product of the brand; another brand's product is not its.
	w3 := titled(view("p3", ""), "Three")
	other := titled(view("p9", ""), "Other brand's")
	other.View.BrandID = "br_2"
	appendAll(t, s, w3, other)
	ref3 := int64(w3.Result.Lines[0].Product)
	got, m3, whole := read(m2)
	check("a new product", got, map[int64]string{ref3: "Three"}, whole, false)

	// A purchase line's title, in a batch beside a view that changes none.
	p := purchase("o1", "p2", 1)
	two := "Two, from the order"
	p.Purchase.Order.Items[0].Title = &two
	appendAll(t, s, p, view("p3", ""))
	got, m4, _ := read(m3)
	if got[ref2] != two || got[ref1] != "" {
		t.Fatalf("after an order's title: %v", got)
	}
	got, m5, whole := read(m4)
	check("nothing written again", got, map[int64]string{}, whole, false)

	// A merge removes a product: every title is read again.
	if _, _, err := s.MergeProducts(ctx, "br_1", "p1", "p3"); err != nil {
		t.Fatal(err)
	}
	got, _, whole = read(m5)
	check("a merge", got, map[int64]string{ref1: "One, renamed", ref2: two}, whole, true)
}

func testEnsureProduct(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	if _, err := s.EnsureProduct(ctx, &svc.Product{BrandID: "br_nope", ProductID: "p1"}); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("missing brand: %v", err)
	}
	title := "Demo"
	p, err := s.EnsureProduct(ctx, &svc.Product{BrandID: "br_1", ProductID: "p1", Title: &title})
	if err != nil || p.Ref == 0 || *p.Title != "Demo" {
		t.Fatalf("ensure %+v, %v", p, err)
	}
	again, err := s.EnsureProduct(ctx, &svc.Product{BrandID: "br_1", ProductID: "p1"})
	if err != nil || again.Ref != p.Ref {
		t.Fatalf("ensure again %+v, %v", again, err)
	}
	w := view("p1", "")
	appendAll(t, s, w)
	if w.Result.Lines[0].Product != p.Ref {
		t.Fatalf("an event found another product: %+v", w.Result)
	}
	url := "https://shop.example/demo"
	if _, err := s.EnsureProduct(ctx, &svc.Product{BrandID: "br_1", ProductID: "p1", URL: &url}); err != nil {
		t.Fatal(err)
	}
	ps := allProducts(t, s)
	if len(ps) != 1 || *ps[0].Title != "Demo" || *ps[0].URL != url {
		t.Fatalf("products %+v", ps)
	}
	if n := countViews(t, s); n != 1 {
		t.Fatalf("EnsureProduct counted something: %d views", n)
	}
}

func testViewsAndPurchaseLines(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	v1, v2 := view("p1", ""), view("p1", "")
	v1.View.Meta.Time = t0.Add(-2 * time.Hour)
	v2.View.Context.SessionID = ptr("s-1")
	eur := "EUR"
	two := purchase("o1", "p1", 1)
	two.Purchase.Order.Currency = &eur
	two.Purchase.Order.Items = []svc.PurchaseItem{
		{ProductID: "p1", Quantity: ptr[int64](1), UnitPrice: ptr(10.0)},
		{ProductID: "p2", Quantity: ptr[int64](1)},
		{ProductID: "p1", Quantity: ptr[int64](3), UnitPrice: ptr(20.0)},
	}
	old := purchase("o0", "p1", 1)
	old.Purchase.Meta.Time = t0.Add(-3 * time.Hour)
	appendAll(t, s, v2, v1, two, old)
	if l := two.Result.Lines; len(l) != 2 || l[0].ProductID != "p1" || l[0].Units != 4 || l[1].ProductID != "p2" || l[1].Units != 1 {
		t.Fatalf("lines %+v", two.Result.Lines)
	}

	checkCounted(t, s, t0.Add(-time.Hour))
	checkCounted(t, s, t0.Add(-24*time.Hour))
	var got []svc.ViewRecord
	_ = s.Views(ctx, t0.Add(-time.Hour), func(r svc.ViewRecord) error { got = append(got, r); return nil })
	if len(got) != 1 || got[0].SessionID != "s-1" || !got[0].Time.Equal(t0) || got[0].Product != v2.Result.Lines[0].Product {
		t.Fatalf("views since an hour ago %+v", got)
	}
	got = nil
	_ = s.Views(ctx, t0.Add(-24*time.Hour), func(r svc.ViewRecord) error { got = append(got, r); return nil })
	if len(got) != 2 || !got[0].Time.Equal(t0.Add(-2*time.Hour)) || got[0].SessionID != "" {
		t.Fatalf("views oldest first %+v", got)
	}

	lines := purchaseLines(t, s)
	if len(lines) != 3 || !lines[0].Time.Equal(t0.Add(-3*time.Hour)) || lines[0].Currency != "" || lines[0].UnitPrice != nil {
		t.Fatalf("purchase lines, oldest first %+v", lines)
	}
	byRef := map[svc.ProductRef]svc.PurchaseRecord{}
	for _, l := range lines[1:] {
		byRef[l.Product] = l
	}
	p1, p2 := byRef[two.Result.Lines[0].Product], byRef[two.Result.Lines[1].Product]
	if p1.Units != 4 || p1.Currency != "EUR" || p1.UnitPrice == nil || *p1.UnitPrice != 17.5 {
		t.Fatalf("p1's line %+v: want 4 units at a mean of 17.5 EUR", p1)
	}
	if p2.Units != 1 || p2.Currency != "EUR" || p2.UnitPrice != nil {
		t.Fatalf("p2's line %+v: want no price", p2)
	}
}

func testDeleteExpiredInBatches(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	var batch []*svc.Write
	for i := 0; i < 25; i++ {
		w := view("p1", fmt.Sprint("k", i))
		w.View.Meta.Time = t0.Add(-time.Duration(i) * 24 * time.Hour) // one a day, back 24 days
		w.View.Meta.ReceivedAt = w.View.Meta.Time
		batch = append(batch, w)
	}
	batch = append(batch, purchase("old", "p1", 1), purchase("new", "p1", 1))
	batch[len(batch)-2].Purchase.Meta.Time = t0.Add(-40 * 24 * time.Hour)
	appendAll(t, s, batch...)
	// Delete everything older than 10 days, 4 rows per call.
	before := t0.Add(-10*24*time.Hour + time.Second)
	var calls int
	for {
		n, err := s.DeleteExpired(ctx, before, t0.Add(24*time.Hour+time.Second), 4)
		if err != nil {
			t.Fatal(err)
		}
		if n > 3*4 {
			t.Fatalf("one call deleted %d rows, more than its limit allows", n)
		}
		calls++
		if n == 0 {
			break
		}
	}
	if views, orders := countViews(t, s), len(purchaseLines(t, s)); views != 10 || orders != 1 || calls < 4 {
		t.Fatalf("%d views and %d orders left after %d calls, want 10 and 1 after several", views, orders, calls)
	}
	// The idempotency keys, older than 24 hours at "now", went too: k0 can be used afresh.
	again := view("p1", "k0")
	again.BodyHash[0] = 1
	appendAll(t, s, again)
	if again.Result.Replay || again.Result.Err != nil {
		t.Fatalf("expired key replayed: %+v", again.Result)
	}
	// The deleted order's id is free again.
	old := purchase("old", "p1", 1)
	appendAll(t, s, old)
	if old.Result.Status != svc.StatusAccepted {
		t.Fatalf("a deleted order: %+v", old.Result)
	}
}

func testExportEvents(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	withBrand(t, s, "br_2")
	if err := s.ExportEvents(ctx, "br_nope", func(svc.ExportedEvent) error { return nil }); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("missing brand: %v", err)
	}
	title, url := "T", "https://shop.example/p1"
	v := view("p1", "")
	v.View.Product.Title, v.View.Product.URL = &title, &url
	v.View.Context = svc.ViewContext{SessionID: ptr("s1"), Country: ptr("FR"), Locale: ptr("fr-FR")}
	given := t0.Add(-time.Hour)
	v.View.Meta.GivenTime, v.View.Meta.Keyed = &given, true
	later := view("p1", "")
	later.View.Meta.Time = t0.Add(time.Minute)
	o := purchase("o1", "p1", 2)
	o.Purchase.Order.Currency, o.Purchase.Order.TotalValue = ptr("EUR"), ptr(30.0)
	o.Purchase.Order.Items = append(o.Purchase.Order.Items, svc.PurchaseItem{ProductID: "p2", SKU: ptr("S2"), Quantity: ptr[int64](1), UnitPrice: ptr(10.0)})
	o.Purchase.Context.SessionID = ptr("s1")
	foreign := view("p1", "")
	foreign.View.BrandID = "br_2"
	appendAll(t, s, later, v, o, foreign)

	var got []svc.ExportedEvent
	if err := s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].View == nil || got[1].View == nil || got[2].Purchase == nil {
		t.Fatalf("export %+v: want two views, then the order", got)
	}
	ev := got[0].View
	if ev.Meta.EventID != v.View.Meta.EventID || ev.BrandID != "br_1" || ev.Product.ProductID != "p1" || *ev.Product.Title != "T" || *ev.Product.URL != url ||
		*ev.Context.SessionID != "s1" || *ev.Context.Country != "FR" || *ev.Context.Locale != "fr-FR" || !ev.Meta.Keyed ||
		ev.Meta.GivenTime == nil || !ev.Meta.GivenTime.Equal(given) || !ev.Meta.Time.Equal(t0) || !ev.Meta.ReceivedAt.Equal(t0) || ev.Context.Timestamp == nil {
		t.Fatalf("exported view %+v", ev)
	}
	if got[1].View.Meta.EventID != later.View.Meta.EventID || *got[1].View.Product.Title != "T" {
		t.Fatalf("the later view, with the product's latest title: %+v", got[1].View)
	}
	ep := got[2].Purchase
	if ep.Order.OrderID != "o1" || *ep.Order.Currency != "EUR" || *ep.Order.TotalValue != 30 || *ep.Context.SessionID != "s1" || len(ep.Order.Items) != 2 ||
		ep.Order.Items[0].ProductID != "p1" || *ep.Order.Items[0].Quantity != 2 || ep.Order.Items[1].ProductID != "p2" || *ep.Order.Items[1].SKU != "S2" ||
		*ep.Order.Items[1].UnitPrice != 10 || ep.Meta.EventID != o.Purchase.Meta.EventID {
		t.Fatalf("exported order %+v", ep)
	}
}

func testForgetSession(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	withBrand(t, s, "br_2")
	v0, err := s.ErasureVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mine, other, theirs := view("p1", ""), view("p1", ""), view("p1", "")
	mine.View.Context.SessionID, other.View.Context.SessionID = ptr("s1"), ptr("s2")
	theirs.View.BrandID, theirs.View.Context.SessionID = "br_2", ptr("s1")
	o := purchase("o1", "p1", 1)
	o.Purchase.Context.SessionID = ptr("s1")
	appendAll(t, s, mine, other, theirs, o)

	if _, err := s.ForgetSession(ctx, "br_nope", "s1"); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("missing brand: %v", err)
	}
	if n, err := s.ForgetSession(ctx, "br_1", "s-none"); err != nil || n != 0 {
		t.Fatalf("no such session: %d, %v", n, err)
	}
	if v, _ := s.ErasureVersion(ctx); v != v0 {
		t.Fatalf("erasure version moved without an erasure: %d -> %d", v0, v)
	}
	if n, err := s.ForgetSession(ctx, "br_1", "s1"); err != nil || n != 2 {
		t.Fatalf("forget: %d, %v; want the view and the order", n, err)
	}
	if v, _ := s.ErasureVersion(ctx); v == v0 {
		t.Fatal("erasure version unchanged after an erasure")
	}
	if views, orders := countViews(t, s), len(purchaseLines(t, s)); views != 2 || orders != 0 {
		t.Fatalf("%d views and %d orders left, want 2 (another session, another brand) and 0", views, orders)
	}
	again := purchase("o1", "p1", 1)
	appendAll(t, s, again)
	if again.Result.Status != svc.StatusAccepted {
		t.Fatalf("the erased order's id: %+v", again.Result)
	}
}
