package collect_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/collect"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/tracker"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// fixture is a pipeline over a real tracker and SQLite file, with two
// brands: br_open (domain shop.example) and br_locked (require_key), and
// a key of each.
type fixture struct {
	p    *collect.Pipeline
	keys map[string]*svc.APIKey
	auth *auth.Cache
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	f := &fixture{keys: map[string]*svc.APIKey{}}
	for _, b := range []*svc.Brand{
		{ID: "br_open", Name: "Open", Domains: []string{"shop.example"}, CreatedAt: t0},
		{ID: "br_locked", Name: "Locked", RequireKey: true, CreatedAt: t0},
	} {
		_, k := svc.NewAPIKey(b.ID, t0)
		if err := store.CreateBrand(ctx, b, k); err != nil {
			t.Fatal(err)
		}
		f.keys[b.ID] = k
	}
	discard := slog.New(slog.DiscardHandler)
	a, err := auth.Open(ctx, store, 0, discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	now := func() time.Time { return t0 }
	tr, err := tracker.Open(ctx, store, tracker.Config{Now: now, Logger: discard, Catalog: enrich.NewCatalog()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	f.auth = a
	f.p = &collect.Pipeline{Now: now, Retention: tr.Retention(), Authorize: a.Authorize, Core: tr}
	return f
}

func (f *fixture) browser(origin string) collect.Source {
	return collect.Source{Kind: collect.Browser, Origin: origin}
}

func (f *fixture) server(brandID string) collect.Source {
	return collect.Source{Kind: collect.Server, Key: f.keys[brandID]}
}

func view(brandID, productID string) *svc.Write {
	return &svc.Write{View: &svc.ViewEvent{BrandID: brandID, Product: svc.ViewProduct{ProductID: productID}}}
}

func ptr[T any](v T) *T { return &v }

func order(brandID, orderID string, at time.Time) *svc.Write {
	return &svc.Write{Purchase: &svc.PurchaseEvent{BrandID: brandID,
		Order:   svc.Order{OrderID: orderID, Currency: ptr("EUR"), Items: []svc.PurchaseItem{{ProductID: "p1", Quantity: ptr[int64](1), UnitPrice: ptr(9.5)}}},
		Context: svc.PurchaseContext{Timestamp: ptr(at.Format(time.RFC3339))}}}
}

func code(err error) string {
	if err == nil {
		return "nil"
	}
	return svc.ErrorCode(err)
}

func fields(err error) []string {
	var e *svc.Error
	if !errors.As(err, &e) {
		return nil
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Field)
	}
	slices.Sort(out)
	return out
}

// An event the brand refuses never reaches its idempotency key: the key
// is not hashed, not kept, and the sender's next event with it is
// accepted, not answered as a conflict.
func TestRefusedNeverReachesIdempotency(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name string
		src  collect.Source
		w    *svc.Write
		want string
	}{
		{"another brand's key", f.server("br_open"), view("br_locked", "p1"), svc.EUNAUTHORIZED},
		{"an origin off the brand's domains", f.browser("https://evil.example"), view("br_open", "p1"), svc.EUNAUTHORIZED},
		{"require_key without a key", f.browser(""), view("br_locked", "p1"), svc.EUNAUTHORIZED},
		{"an unknown brand", f.browser(""), view("br_nope", "p1"), svc.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := collect.Event{Write: tc.w, IdempotencyKey: ptr("k-" + tc.name), KeyField: "Idempotency-Key",
				Hash: func() [32]byte {
					t.Error("the refused event's body was hashed for its idempotency key")
					return [32]byte{}
				}}
			if err := f.p.Collect(tc.src, &ev); code(err) != tc.want {
				t.Fatalf("Collect: %v, want %s", err, tc.want)
			}
			if tc.w.IdempotencyKey != "" || tc.w.Result.EventID != "" {
				t.Fatalf("refused write carries key %q and id %q", tc.w.IdempotencyKey, tc.w.Result.EventID)
			}
		})
	}
	// The key an origin off the domains sent is free for the brand's pages.
	ev := collect.Event{Write: view("br_open", "p2"), IdempotencyKey: ptr("k-an origin off the brand's domains"), KeyField: "Idempotency-Key",
		Hash: func() [32]byte { return [32]byte{1} }}
	if err := f.p.Collect(f.browser("https://shop.example"), &ev); err != nil || ev.Write.Result.Status != svc.StatusAccepted || ev.Write.Result.Replay {
		t.Fatalf("Collect: %v %+v, want accepted", err, ev.Write.Result)
	}
}

// An invalid event is refused naming every bad field, before its brand
// is looked at: a sender with a wrong key or for an unknown brand learns
// nothing about either from a bad body.
func TestInvalidNamesEveryFieldBeforeTheBrand(t *testing.T) {
	f := newFixture(t)
	bad := func(brandID string) *collect.Event {
		w := view(brandID, "")
		w.View.Context.Country = ptr("de")
		w.View.Context.Timestamp = ptr(t0.Add(time.Hour).Format(time.RFC3339))
		return &collect.Event{Write: w, IdempotencyKey: ptr("bad\x01key"), KeyField: "Idempotency-Key",
			DecodeErrors: []svc.FieldError{{Field: "product.title", Message: "must be a string"}}}
	}
	for _, tc := range []struct {
		name string
		src  collect.Source
		ev   *collect.Event
		want []string
	}{
		{"keyed, another brand", f.server("br_open"), bad("br_locked"), []string{"Idempotency-Key", "context.country", "context.timestamp", "product.product_id", "product.title"}},
		{"anonymous, require_key", f.browser(""), bad("br_locked"), []string{"Idempotency-Key", "context.country", "product.product_id", "product.title"}},
		{"anonymous, unknown brand", f.browser("https://evil.example"), bad("br_nope"), []string{"Idempotency-Key", "context.country", "product.product_id", "product.title"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := f.p.Collect(tc.src, tc.ev)
			if code(err) != svc.EINVALID || !slices.Equal(fields(err), tc.want) {
				t.Fatalf("Collect: %v %v, want invalid %v", err, fields(err), tc.want)
			}
		})
	}
}

// Only a keyed source registers a product's other names: an anonymous
// view with aliases counts, and registers none.
func TestAnonymousRegistersNoNames(t *testing.T) {
	f := newFixture(t)
	withAlias := func(productID, alias string) *svc.Write {
		w := view("br_open", productID)
		w.View.Product.Aliases = []string{alias}
		return w
	}
	anon := &collect.Event{Write: withAlias("p1", "sku-1")}
	if err := f.p.Collect(f.browser("https://shop.example"), anon); err != nil || anon.Write.Result.Status != svc.StatusAccepted {
		t.Fatalf("anonymous: %v %+v", err, anon.Write.Result)
	}
	if n := anon.Write.Result.Names; len(n) > 0 {
		t.Errorf("an anonymous view registered %v", n)
	}
	keyed := &collect.Event{Write: withAlias("p2", "sku-2")}
	if err := f.p.Collect(f.server("br_open"), keyed); err != nil {
		t.Fatal(err)
	}
	if n := keyed.Write.Result.Names; len(n) != 1 || n[0].Name != "sku-2" || n[0].ProductID != "p2" {
		t.Errorf("a keyed view registered %v, want sku-2 for p2", n)
	}
}

// A bot's event passes the checks, and is answered but never stored.
func TestBotIsNeverStored(t *testing.T) {
	f := newFixture(t)
	src := f.browser("https://shop.example")
	src.Bot = true
	ev := &collect.Event{Write: view("br_open", "p1")}
	if err := f.p.Collect(src, ev); err != nil || ev.Ignored != collect.IgnoredBot || ev.Write.Result.Status != "" {
		t.Fatalf("Collect: %v, ignored %q, result %+v", err, ev.Ignored, ev.Write.Result)
	}
	bad := &collect.Event{Write: view("br_open", "")} // a bot's bad event is refused as any
	if err := f.p.Collect(src, bad); code(err) != svc.EINVALID {
		t.Fatalf("Collect: %v, want invalid", err)
	}
}

// The budget of anonymous events is charged last, for events that are
// valid and of a brand: never for a refused one, nor a keyed one.
func TestBudgetChargedLast(t *testing.T) {
	f := newFixture(t)
	b := &budget{}
	f.p.Budget = b
	_ = f.p.Collect(f.browser("https://evil.example"), &collect.Event{Write: view("br_open", "p1")})
	_ = f.p.Collect(f.browser(""), &collect.Event{Write: view("br_open", "")})
	_ = f.p.Collect(f.server("br_open"), &collect.Event{Write: view("br_open", "p1")})
	if b.taken != 0 {
		t.Fatalf("charged %d times for refused and keyed events", b.taken)
	}
	b.refuse = true
	ev := &collect.Event{Write: view("br_open", "p1")}
	if err := f.p.Collect(f.browser("https://shop.example"), ev); code(err) != svc.ERATELIMIT || ev.RetryAfter != time.Minute || ev.Write.Result.Status != "" {
		t.Fatalf("Collect: %v, retry after %s, result %+v", err, ev.RetryAfter, ev.Write.Result)
	}
}

type budget struct {
	taken  int
	refuse bool
}

func (b *budget) OrderFields(*svc.PurchaseEvent) []svc.FieldError { return nil }

func (b *budget) TakeNewProducts(any, *svc.Write, time.Time) (time.Duration, error) {
	b.taken++
	if b.refuse {
		return time.Minute, svc.Errorf(svc.ERATELIMIT, "over")
	}
	return 0, nil
}

// An order from history (a webhook's, an import's) older than the
// retention is skipped before its fields are read; a newer one keeps its
// time; an import's must have one.
func TestHistory(t *testing.T) {
	f := newFixture(t)
	open := f.auth.Brand("br_open")
	old := order("br_open", "o-old", t0.Add(-f.p.Retention-time.Hour))
	old.Purchase.Order.Currency = ptr("euros") // a bad field, never looked at
	for _, kind := range []collect.Kind{collect.Platform, collect.History} {
		ev := &collect.Event{Write: old}
		if err := f.p.Check(collect.Source{Kind: kind, Brand: open}, ev); err != nil || ev.Ignored != collect.IgnoredOld {
			t.Fatalf("kind %d: %v, ignored %q", kind, err, ev.Ignored)
		}
	}
	at := t0.Add(-48 * time.Hour)
	ev := &collect.Event{Write: order("br_open", "o-1", at)}
	if err := f.p.Collect(collect.Source{Kind: collect.Platform, Brand: open}, ev); err != nil || ev.Write.Result.Status != svc.StatusAccepted {
		t.Fatalf("platform: %v %+v", err, ev.Write.Result)
	}
	if m := ev.Write.Purchase.Meta; !m.Time.Equal(at) || !m.Keyed {
		t.Errorf("platform order stamped %+v, want keyed at %s", m, at)
	}
	imp := &collect.Event{Write: order("br_open", "o-2", at)}
	if err := f.p.Check(collect.Source{Kind: collect.History, Brand: open}, imp); err != nil || imp.Write.Purchase.Meta.EventID == "" || !imp.Write.Purchase.Meta.Time.Equal(at) {
		t.Fatalf("history: %v %+v", err, imp.Write.Purchase.Meta)
	}
	untimed := order("br_open", "o-3", at)
	untimed.Purchase.Context.Timestamp = nil
	if err := f.p.Check(collect.Source{Kind: collect.History, Brand: open}, &collect.Event{Write: untimed}); code(err) != svc.EINVALID {
		t.Fatalf("history without a time: %v, want invalid", err)
	}
}

// A batch's events are checked one by one for the brand of its key: one
// of another brand is refused alone, naming brand_id with its other bad
// fields, and the rest is stored.
func TestBatch(t *testing.T) {
	f := newFixture(t)
	src := f.server("br_open")
	src.Brand = f.auth.Brand("br_open")
	other := view("br_locked", "p1")
	other.View.Context.Country = ptr("de")
	evs := []collect.Event{{Write: view("br_open", "p1")}, {Write: other}, {Write: order("br_open", "o-1", t0)}}
	if err := f.p.CollectBatch(src, evs, 10); err != nil {
		t.Fatal(err)
	}
	if evs[0].Err != nil || evs[0].Write.Result.Status != svc.StatusAccepted || evs[2].Write.Result.Status != svc.StatusAccepted {
		t.Fatalf("valid events: %v %+v %+v", evs[0].Err, evs[0].Write.Result, evs[2].Write.Result)
	}
	if got := fields(evs[1].Err); !slices.Equal(got, []string{"brand_id", "context.country"}) || evs[1].Write.Result.Status != "" {
		t.Fatalf("another brand's event: %v %v", evs[1].Err, got)
	}
	var over *collect.TooManyLines
	big := []collect.Event{{Write: order("br_open", "o-2", t0)}, {Write: order("br_open", "o-3", t0)}}
	if err := f.p.CollectBatch(src, big, 1); !errors.As(err, &over) || over.Lines != 2 || big[0].Write.Result.Status != "" {
		t.Fatalf("CollectBatch over the lines: %v %+v", err, big[0].Write.Result)
	}
}

// TestAssignArm: a view and an add-to-cart take their session's arm; a
// view without a session, none.
func TestAssignArm(t *testing.T) {
	s := "a"
	w := &svc.Write{View: &svc.ViewEvent{Context: svc.ViewContext{SessionID: &s}}}
	collect.AssignArm(w, 50)
	if w.View.Meta.Arm != holdout.ArmHeldOut {
		t.Errorf("arm %q, want held_out", w.View.Meta.Arm)
	}
	c := &svc.Write{Cart: &svc.CartEvent{Context: svc.ViewContext{SessionID: &s}}}
	collect.AssignArm(c, 0)
	if c.Cart.Meta.Arm != holdout.ArmShown {
		t.Errorf("cart arm %q, want shown", c.Cart.Meta.Arm)
	}
	w = &svc.Write{View: &svc.ViewEvent{}}
	collect.AssignArm(w, 50)
	if w.View.Meta.Arm != "" {
		t.Errorf("arm %q without a session, want none", w.View.Meta.Arm)
	}
}
