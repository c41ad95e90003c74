package storetest

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// FeedStore is a store with a change feed.
type FeedStore interface {
	svc.Store
	svc.ChangeFeed
}

// OpenPair returns two Store values on one new, empty store, as two
// processes (or nodes) open it, closed when the test ends.
type OpenPair func(t *testing.T) (a, b FeedStore)

// RunChangeFeed runs the cases of a store's change feed: what another Store
// value commits comes to a's feed once, and none of a's own.
func RunChangeFeed(t *testing.T, open OpenPair) {
	for _, tt := range []struct {
		name string
		fn   func(*testing.T, FeedStore, FeedStore)
	}{
		{"OthersEventsOnceOwnNone", testFeedOthersOnce},
		{"ProductsChangedElsewhere", testFeedProducts},
		{"Cancellations", testFeedCancels},
		{"IdleFeedKeepsItsCursor", testFeedIdle},
		{"NamesTravel", testFeedNames},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := open(t)
			withBrand(t, a, "br_1")
			tt.fn(t, a, b)
		})
	}
}

// feedOf follows a's feed from a snapshot; poll returns the changes since
// the last poll, and counts the events each brings by event id.
type feedOf struct {
	t    *testing.T
	s    FeedStore
	cur  svc.FeedCursor
	seen map[string]int
}

func follow(t *testing.T, s FeedStore, snapshot func(svc.EventReader) error) *feedOf {
	t.Helper()
	if snapshot == nil {
		snapshot = func(svc.EventReader) error { return nil }
	}
	cur, err := s.ReadSnapshot(ctx, snapshot)
	if err != nil {
		t.Fatal(err)
	}
	return &feedOf{t: t, s: s, cur: cur, seen: map[string]int{}}
}

func (f *feedOf) poll() *svc.Changes {
	f.t.Helper()
	ch, err := f.s.Changes(ctx, f.cur)
	if err != nil {
		f.t.Fatal(err)
	}
	f.cur = ch.Cursor
	for _, w := range ch.Writes {
		f.seen[w.Result.EventID]++
	}
	return ch
}

func cartOf(product string, qty int64) *svc.Write { return cartWrite(product, "", &qty) }

func testFeedOthersOnce(t *testing.T, a, b FeedStore) {
	before := view("p0", "")
	appendAll(t, b, before)
	views := 0
	f := follow(t, a, func(r svc.EventReader) error { views = countViews(t, r); return nil })
	if views != 1 {
		t.Fatalf("the snapshot read %d views, want 1", views)
	}
	if ch := f.poll(); len(ch.Writes) != 0 || len(ch.Products) != 0 || len(ch.Cancels) != 0 {
		t.Fatalf("changes before any: %+v", ch)
	}
	own := []*svc.Write{view("p1", ""), purchase("own-1", "p1", 1), cartOf("p1", 1)}
	appendAll(t, a, own...)
	theirs := []*svc.Write{view("p2", ""), purchase("o1", "p1", 2), view("p1", ""), cartOf("p2", 3)}
	appendAll(t, b, theirs...)
	if _, err := b.EnsureProduct(ctx, &svc.Product{BrandID: "br_1", ProductID: "p3"}); err != nil {
		t.Fatal(err)
	}
	appendAll(t, a, view("p1", "")) // an own commit after theirs
	ch := f.poll()
	products := map[string]bool{}
	for _, p := range ch.Products {
		products[p.ProductID] = true
	}
	if !products["p2"] || !products["p3"] || products["p0"] {
		t.Fatalf("products in the changes: %v, want p2 and p3 (and p1 may come), not p0", products)
	}
	if len(ch.Writes) != len(theirs) {
		t.Fatalf("%d writes, want the other's %d: %+v", len(ch.Writes), len(theirs), ch.Writes)
	}
	for _, w := range ch.Writes {
		r := w.Result
		switch {
		case r.Status != svc.StatusAccepted || len(r.Lines) != 1:
			t.Fatalf("a write's result %+v", r)
		case w.View != nil && (w.View.BrandID != "br_1" || r.Lines[0].ProductID != w.View.Product.ProductID || r.Lines[0].Units != 1):
			t.Fatalf("a view %+v: %+v", w.View, r)
		case w.Purchase != nil && (w.Purchase.Order.OrderID != "o1" || r.Lines[0].Product != own[0].Result.Lines[0].Product || r.Lines[0].Units != 2):
			t.Fatalf("the order %+v: %+v", w.Purchase.Order, r)
		case w.Cart != nil && (r.Lines[0].ProductID != "p2" || r.Lines[0].Units != 3):
			t.Fatalf("the add-to-cart: %+v", r)
		}
	}
	f.poll()
	for _, w := range theirs {
		if f.seen[w.Result.EventID] != 1 {
			t.Fatalf("event %s seen %d times", w.Result.EventID, f.seen[w.Result.EventID])
		}
	}
	for _, w := range own {
		if f.seen[w.Result.EventID] != 0 {
			t.Fatalf("own event %s seen %d times", w.Result.EventID, f.seen[w.Result.EventID])
		}
	}
	if f.seen[before.Result.EventID] != 0 {
		t.Fatal("an event of the snapshot came again")
	}
}

// A product another Store value changes comes with its new attributes,
// and a's own writes then see them.
func testFeedProducts(t *testing.T, a, b FeedStore) {
	titled := func(title string) *svc.Write {
		w := view("p1", "")
		w.View.Product.Title = ptr(title)
		return w
	}
	appendAll(t, a, titled("First"))
	f := follow(t, a, nil)
	appendAll(t, b, titled("Second"))
	ch := f.poll()
	if len(ch.Products) != 1 || ch.Products[0].Title == nil || *ch.Products[0].Title != "Second" {
		t.Fatalf("products in the changes: %+v, want p1 titled Second", ch.Products)
	}
	// a saw p1 titled First: its own event titled First changes it back.
	appendAll(t, a, titled("First"))
	ch = f.poll()
	if len(ch.Products) != 1 || ch.Products[0].Title == nil || *ch.Products[0].Title != "First" {
		t.Fatalf("products in the changes: %+v, want p1 titled First", ch.Products)
	}
	for _, p := range allProducts(t, b) {
		if p.ProductID == "p1" && (p.Title == nil || *p.Title != "First") {
			t.Fatalf("p1 stored titled %v, want First", p.Title)
		}
	}
	// b's keyed event verifies a title: it comes verified, and a's
	// anonymous event, after it, changes it no more than b's own would
	// (docs/security.md, Provenance).
	verified := titled("Verified")
	verified.View.Meta.Keyed = true
	appendAll(t, b, verified)
	ch = f.poll()
	if len(ch.Products) != 1 || ch.Products[0].Verified != svc.AttrTitle || *ch.Products[0].Title != "Verified" {
		t.Fatalf("products in the changes: %+v, want p1 titled Verified, verified", ch.Products)
	}
	appendAll(t, a, titled("Hijacked"))
	for _, p := range allProducts(t, b) {
		if p.ProductID == "p1" && (*p.Title != "Verified" || p.Verified != svc.AttrTitle) {
			t.Fatalf("p1 stored titled %v (verified %b), want Verified", *p.Title, p.Verified)
		}
	}
}

// Another Store value's cancellations come through the feed, and its
// orders as they were ordered, so that each counts once whoever counted
// which first; a's own cancellations do not.
func testFeedCancels(t *testing.T, a, b FeedStore) {
	counted := purchase("o1", "p1", 3)
	counted.Purchase.Meta.Keyed = true
	appendAll(t, b, counted)
	f := follow(t, a, nil)
	cancel(t, b, cancelOf("o1", item("p1", 1)))
	fresh := purchase("o2", "p1", 2)
	fresh.Purchase.Meta.Keyed = true
	appendAll(t, b, fresh)
	cancel(t, b, cancelOf("o2", item("p1", 1)))
	ch := f.poll()
	if len(ch.Cancels) != 2 || ch.Cancels[0].OrderEventID != counted.Purchase.Meta.EventID || ch.Cancels[0].Units != 1 || ch.Cancels[0].Orders != 0 ||
		ch.Cancels[1].OrderEventID != fresh.Purchase.Meta.EventID || ch.Cancels[1].Units != 1 {
		t.Errorf("cancels: %+v, want a unit of o1, then of o2", ch.Cancels)
	}
	if len(ch.Writes) != 1 || ch.Writes[0].Result.Lines[0].Units != 2 {
		t.Errorf("writes: %+v, want o2 with the 2 units ordered", ch.Writes)
	}
	cancel(t, a, cancelOf("o1"))
	if ch := f.poll(); len(ch.Cancels) != 0 || len(ch.Writes) != 0 {
		t.Errorf("own cancellation: %+v", ch)
	}
	cancel(t, b, cancelOf("o2"))
	if ch := f.poll(); len(ch.Cancels) != 1 || ch.Cancels[0].Orders != 1 || ch.Cancels[0].Units != 1 {
		t.Errorf("cancels: %+v, want o2's last unit and its order", ch.Cancels)
	}
}

// Polls while nobody writes bring nothing and keep the cursor; the next
// write comes once.
func testFeedIdle(t *testing.T, a, b FeedStore) {
	appendAll(t, b, view("p1", ""))
	f := follow(t, a, nil)
	for range 3 {
		if ch := f.poll(); len(ch.Writes)+len(ch.Products)+len(ch.Cancels) != 0 {
			t.Fatalf("an idle poll: %+v", ch)
		}
	}
	w := view("p1", "")
	w.View.Meta.Time = t0.Add(time.Minute)
	appendAll(t, b, w)
	if ch := f.poll(); len(ch.Writes) != 1 || ch.Writes[0].Result.EventID != w.View.Meta.EventID {
		t.Fatalf("after the idle polls: %+v", ch.Writes)
	}
	if ch := f.poll(); len(ch.Writes) != 0 {
		t.Fatalf("the write came twice: %+v", ch.Writes)
	}
}
