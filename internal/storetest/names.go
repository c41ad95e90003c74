package storetest

import (
	"slices"
	"testing"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
)

func keyedWrite(w *svc.Write) *svc.Write {
	_, m := w.Event()
	m.Keyed = true
	return w
}

func aliased(w *svc.Write, aliases ...string) *svc.Write {
	if w.View != nil {
		w.View.Product.Aliases = aliases
	} else {
		w.Purchase.Order.Items[0].Aliases = aliases
	}
	return w
}

// productNamed returns the stored product with the id, and fails when
// there is none.
func productNamed(t *testing.T, s svc.EventReader, id string) *svc.Product {
	t.Helper()
	for _, p := range allProducts(t, s) {
		if p.ProductID == id {
			return p
		}
	}
	t.Fatalf("no product %q", id)
	return nil
}

// testNames covers a product's names (svc names.go): keyed events
// register their aliases, anonymous ones only resolve through them; every
// event that names the product by any name counts it; the first claim of
// a name keeps it; the names come back with the products, and the
// operator's commands list, remove and merge them.
func testNames(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	// A page's keyed view registers its variant's SKU and variant id.
	page := keyedWrite(aliased(view("8123", ""), "FHB-42", "V-42", "FHB-42"))
	appendAll(t, s, page)
	ref := page.Result.Lines[0].Product
	if got := page.Result.Names; len(got) != 2 || got[0].Name != "FHB-42" || got[1].Name != "V-42" || got[0].ProductID != "8123" {
		t.Fatalf("names registered: %+v", got)
	}
	// Anonymous events resolve through the names, by id or by alias; an
	// anonymous alias registers nothing.
	bySKU := view("FHB-42", "")
	byAlias := aliased(view("https://shop.example/p/boot", ""), "nope", "V-42")
	stranger := aliased(view("other", ""), "V-99")
	// A webhook's order of another variant, and a line naming the
	// product by a name: one product of the order, its units summed.
	order := keyedWrite(aliased(purchase("o1", "8123", 2), "V-43", "FHB-43"))
	order.Purchase.Order.Items = append(order.Purchase.Order.Items, svc.PurchaseItem{ProductID: "FHB-42", Quantity: ptr(int64(1))})
	// In the same batch, after the order: a view by the name it registered.
	after := view("FHB-43", "")
	appendAll(t, s, bySKU, byAlias, stranger, order, after)
	for name, w := range map[string]*svc.Write{"by SKU": bySKU, "by alias": byAlias, "after": after} {
		if r := w.Result; r.Status != svc.StatusAccepted || r.Lines[0].Product != ref || r.Lines[0].ProductID != "8123" || len(r.Names) != 0 {
			t.Fatalf("anonymous view %s: %+v, want product 8123 (%d)", name, r, ref)
		}
	}
	if l := order.Result.Lines; len(l) != 1 || l[0].Product != ref || l[0].Units != 3 {
		t.Fatalf("the order's lines: %+v, want one of 3 units of product 8123", l)
	}
	if stranger.Result.Lines[0].Product == ref || len(stranger.Result.Names) != 0 {
		t.Fatalf("an anonymous alias linked or named a product: %+v", stranger.Result)
	}
	// A refund by a variant's name takes units out of the product's line.
	if r := cancel(t, s, cancelOf("o1", svc.CancelItem{ProductID: "V-43", Quantity: ptr(int64(1))})); r.Status != svc.StatusAccepted ||
		len(r.Removed) != 1 || r.Removed[0].Product != ref || r.Removed[0].Units != 1 {
		t.Fatalf("a refund by a name: %+v", r)
	}
	// The first claim keeps a name: a later keyed claim, for another
	// product, is refused and reported; so is a claim of another
	// product's own id. The event counts under its own product.
	claim := keyedWrite(aliased(view("other", ""), "FHB-42", "8123", "OTHER-SKU"))
	appendAll(t, s, claim)
	if c := claim.Result.NameConflicts; len(c) != 2 || c[0] != (svc.NameConflict{Name: "FHB-42", ProductID: "other", Owner: "8123"}) || c[1].Name != "8123" {
		t.Fatalf("conflicts: %+v", c)
	}
	if claim.Result.Lines[0].ProductID != "other" || len(claim.Result.Names) != 1 || claim.Result.Names[0].Name != "OTHER-SKU" {
		t.Fatalf("the claiming view: %+v", claim.Result)
	}
	// The names come back with the products, for the servers' indexes.
	p := productNamed(t, s, "8123")
	if want := []string{"FHB-42", "V-42", "V-43", "FHB-43"}; !sameSet(p.Names, want) || p.Ref != ref {
		t.Fatalf("product 8123: names %v ref %d, want %v", p.Names, p.Ref, want)
	}
	if _, _, err := s.ProductNames(ctx, "br_1", "V-99"); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("an anonymous alias became a name: %v", err)
	}
	got, names, err := s.ProductNames(ctx, "br_1", "FHB-43")
	if err != nil || got.ProductID != "8123" || !slices.Equal(names, []string{"FHB-42", "V-42", "FHB-43", "V-43"}) && !sameSet(names, p.Names) {
		t.Fatalf("ProductNames: %+v %v %v", got, names, err)
	}
	// Unalias: the name names nothing; the next event by it is a product of its own.
	if id, err := s.Unalias(ctx, "br_1", "V-43"); err != nil || id != "8123" {
		t.Fatalf("Unalias: %q %v", id, err)
	}
	if _, err := s.Unalias(ctx, "br_1", "8123"); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("Unalias of a product's own id: %v", err)
	}
	again := view("V-43", "")
	appendAll(t, s, again)
	if again.Result.Lines[0].Product == ref {
		t.Fatal("a removed name still counts its product")
	}
	// Merge: the other product's events and names move, its id becomes a name.
	v0, err := s.ErasureVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	k0 := productsKey(t, s, "br_1")
	into, from, err := s.MergeProducts(ctx, "br_1", "FHB-42", "OTHER-SKU")
	if err != nil || into != "8123" || from != "other" {
		t.Fatalf("MergeProducts: %q %q %v", into, from, err)
	}
	// The dashboard keeps a brand's list of products while its key stays.
	if k1 := productsKey(t, s, "br_1"); k1 == k0 || k1.Products != k0.Products-1 {
		t.Fatalf("the brand's products' key %+v, then after a merge %+v", k0, k1)
	}
	if ids := productIDs(t, s, "br_1", 0); slices.Contains(ids, "other") || !slices.Contains(ids, "8123") {
		t.Fatalf("the brand's products after a merge: %v", ids)
	}
	if _, _, err := s.MergeProducts(ctx, "br_1", "8123", "other"); svc.ErrorCode(err) != svc.EINVALID {
		t.Fatalf("merging a product with itself: %v", err)
	}
	if v1, _ := s.ErasureVersion(ctx); v1 == v0 {
		t.Fatal("a merge did not change the erasure version: servers would not recount")
	}
	views := map[svc.ProductRef]int{}
	if err := s.Views(ctx, t0.Add(-1), func(r svc.ViewRecord) error { views[r.Product]++; return nil }); err != nil {
		t.Fatal(err)
	}
	// page, by SKU, by alias, after, the claim, stranger (which is "other" too).
	if views[ref] != 6 {
		t.Fatalf("views of the merged product: %v, want 6 of %d", views, ref)
	}
	if got, _, err := s.ProductNames(ctx, "br_1", "other"); err != nil || got.ProductID != "8123" {
		t.Fatalf("the merged product's id names %+v %v", got, err)
	}
	for _, p := range allProducts(t, s) {
		if p.ProductID == "other" {
			t.Fatal("the merged product is still there")
		}
	}
	late := view("other", "")
	appendAll(t, s, late)
	if late.Result.Lines[0].Product != ref {
		t.Fatalf("a view of the merged product's id: %+v", late.Result)
	}
	// A new product adds to the key, and is read alone after the others.
	k2 := productsKey(t, s, "br_1")
	newer := view("newer", "")
	appendAll(t, s, newer)
	if k3 := productsKey(t, s, "br_1"); k3.Version != k2.Version || k3.Products != k2.Products+1 {
		t.Fatalf("the brand's products' key %+v, then after a new product %+v", k2, k3)
	}
	if ids := productIDs(t, s, "br_1", int64(ref)); !slices.Contains(ids, "newer") || slices.Contains(ids, "8123") {
		t.Fatalf("the brand's products after %d: %v", ref, ids)
	}
}

func productsKey(t *testing.T, s svc.Store, brand string) rollup.ProductsKey {
	t.Helper()
	k, err := s.(rollup.Store).BrandProductsKey(ctx, brand)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// productIDs returns the brand's products whose ref is above after.
func productIDs(t *testing.T, s svc.Store, brand string, after int64) []string {
	t.Helper()
	var ids []string
	if err := s.(rollup.Store).BrandProductIDs(ctx, brand, after, func(_ int64, id string) { ids = append(ids, id) }); err != nil {
		t.Fatal(err)
	}
	return ids
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// testFeedNames: names another Store value registers come with the
// product in the change feed, so that every node resolves them.
func testFeedNames(t *testing.T, a, b FeedStore) {
	f := follow(t, a, func(svc.EventReader) error { return nil })
	appendAll(t, b, keyedWrite(aliased(view("8123", ""), "FHB-42")))
	ch := f.poll()
	if len(ch.Products) != 1 || !slices.Equal(ch.Products[0].Names, []string{"FHB-42"}) {
		t.Fatalf("products in the changes: %+v", ch.Products)
	}
	// A name registered for a product that exists comes with it again.
	appendAll(t, b, keyedWrite(aliased(purchase("o1", "FHB-42", 1), "V-43")))
	ch = f.poll()
	if len(ch.Products) != 1 || !sameSet(ch.Products[0].Names, []string{"FHB-42", "V-43"}) {
		t.Fatalf("products in the changes after a name: %+v", ch.Products)
	}
	if len(ch.Writes) != 1 || ch.Writes[0].Result.Lines[0].Product != ch.Products[0].Ref {
		t.Fatalf("the order by a name: %+v", ch.Writes)
	}
}
