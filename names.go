package svc

import (
	"context"
	"fmt"
	"time"
)

// A product's names (docs/decisions.md, A product's names): a brand's
// product is known by every id the brand's systems give it, the
// platform's product id, its variants' ids and SKUs, its page's JSON-LD
// sku or @id, its page URL. The product's own id and the names registered
// for it make one namespace per brand, in which a name belongs to at most
// one product; every event, cancellation, import and proof that names the
// product by any of them counts, or reads, the one product.
//
// Who may register a name is the event's provenance (provenance.go): a
// keyed event (the API key, a signed webhook, the operator's import)
// registers the aliases it gives for its product; an anonymous event only
// resolves through names already registered. It never creates a name,
// never links two products, and never moves a name.
//
// When two products claim one name, the first keeps it: a product's own
// id is never another's name, and a name registered stays with its
// product. A later keyed claim for another product is refused and
// reported (WriteResult.NameConflicts), and the event counts under its
// own product. The operator moves names with `svc products unalias`
// and `svc products merge`.

// MaxAliases is how many aliases one event's product may carry.
const MaxAliases = 16

// Name is a name registered for a brand's product.
type Name struct {
	BrandID, Name, ProductID string
}

// NameConflict is a name a keyed event gave for ProductID that belongs
// to Owner: refused, the first claim keeps it.
type NameConflict struct {
	Name, ProductID, Owner string
}

// NameLookup is what the rules of names ask of a store, inside the
// transaction that persists the write. Every answer includes what the
// writes before it in the same batch did.
type NameLookup interface {
	// ProductOf returns the id of the brand's product a name belongs to:
	// the name itself when it is a product's own id, else the product it
	// is registered for; ok is false when it is neither.
	ProductOf(ctx context.Context, brandID, name string) (productID string, ok bool, err error)
	// RegisterName records a name ProductOf did not find as a name of
	// the brand's product, received at at.
	RegisterName(ctx context.Context, n Name, at time.Time) error
}

func (fe *fieldErrors) aliases(field string, v []string) {
	if len(v) > MaxAliases {
		fe.add(field, "must have at most %d ids", MaxAliases)
	}
	for i := range min(len(v), MaxAliases) {
		var one fieldErrors // the field's name is made only for a bad alias
		if one.id("", v[i], false); len(one) > 0 {
			fe.add(fmt.Sprintf("%s[%d]", field, i), "%s", one[0].Message)
		}
	}
}

// named returns where the write's i-th product id is, and the aliases it
// gives for it.
func (w *Write) named(i int) (*string, []string) {
	switch {
	case w.View != nil:
		return &w.View.Product.ProductID, w.View.Product.Aliases
	case w.Cart != nil:
		return &w.Cart.Product.ProductID, w.Cart.Product.Aliases
	}
	it := &w.Purchase.Order.Items[i]
	return &it.ProductID, it.Aliases
}

// resolveNames rewrites each product id the write names to the id of the
// product its name belongs to, and registers the aliases a keyed write
// that may register gives as names of its product. An anonymous write
// whose product id is no name of the brand's takes the product of its
// first alias that is one. Registered names and refused claims are noted
// in w.Result.
func resolveNames(ctx context.Context, look NameLookup, w *Write, keyed bool, at time.Time) error {
	brandID, _ := w.Event()
	for i := range w.Products() {
		id, aliases := w.named(i)
		owner, ok, err := look.ProductOf(ctx, brandID, *id)
		if err != nil {
			return err
		}
		for j := 0; !ok && !keyed && j < len(aliases); j++ {
			if owner, ok, err = look.ProductOf(ctx, brandID, aliases[j]); err != nil {
				return err
			}
		}
		if ok {
			*id = owner
		}
		if !keyed || !w.MayRegister {
			continue
		}
		for _, a := range aliases {
			if a == *id {
				continue
			}
			owner, ok, err := look.ProductOf(ctx, brandID, a)
			switch {
			case err != nil:
				return err
			case ok && owner != *id:
				w.Result.NameConflicts = append(w.Result.NameConflicts, NameConflict{Name: a, ProductID: *id, Owner: owner})
			case !ok:
				n := Name{BrandID: brandID, Name: a, ProductID: *id}
				if err := look.RegisterName(ctx, n, at); err != nil {
					return err
				}
				w.Result.Names = append(w.Result.Names, n)
			}
		}
	}
	return nil
}

// NameStore lists and moves a brand's names, for the operator's commands.
type NameStore interface {
	// ProductNames returns the product a name of the brand belongs to and
	// every name registered for it, oldest first. Returns ENOTFOUND if the
	// name is none of the brand's.
	ProductNames(ctx context.Context, brandID, name string) (p *Product, names []string, err error)
	// Unalias removes a registered name, so that it names no product until
	// a keyed event registers it again, and returns the product it named.
	// Returns ENOTFOUND if the brand has no such registered name (a
	// product's own id is not one).
	Unalias(ctx context.Context, brandID, name string) (productID string, err error)
	// MergeProducts makes the brand's two products, each given by any of
	// its names, one: every event and name of from moves to into, from's
	// own id becomes a name of into, and from is no more. Servers recount
	// (the erasure version changes); the dashboard's rollups of into are
	// stale until they are rebuilt. Returns ENOTFOUND if a name is none of
	// the brand's, and EINVALID if both name one product.
	MergeProducts(ctx context.Context, brandID, into, from string) (intoID, fromID string, err error)
}
