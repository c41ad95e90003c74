package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/viewblock"
)

// productOf finds the product a name belongs to (svc.NameLookup); its
// arguments are the brand and the name, twice.
const productOf = `SELECT product_id FROM products WHERE brand_id = ? AND product_id = ?
	UNION ALL SELECT product_id FROM product_names WHERE brand_id = ? AND name = ? LIMIT 1`

// NamedProducts reads whole products, as svc.Product's fields in order,
// with their names (ScanNamedProduct).
func (d *Dialect) NamedProducts() string {
	return productColumns + `(SELECT ` + d.namesAgg + ` FROM product_names n
		WHERE n.brand_id = products.brand_id AND n.product_id = products.product_id) FROM products`
}

// productColumns are NamedProducts' columns but the names.
const productColumns = "SELECT id, brand_id, product_id, sku, title, url, gtin, mpn, maker, verified, "

// ProductsNamedApart is NamedProducts for a scan of every product, as a
// start does, their names NULL: ProductNamesByKey reads them in one pass.
// NamedProducts' subquery is an index seek a product, a million at start
// when few have names (about 1 CPU-s of a restore, bench/RESULTS.md).
func (d *Dialect) ProductsNamedApart() string { return productColumns + "NULL FROM products" }

// ProductKey is a product by its brand and id.
type ProductKey struct{ BrandID, ProductID string }

// ProductNamesByKey returns the names of every product that has some.
func (d *Dialect) ProductNamesByKey(ctx context.Context, q Queryer) (map[ProductKey][]string, error) {
	out := map[ProductKey][]string{}
	err := Each(ctx, q, func(r Row) error {
		var k ProductKey
		var names string
		if err := r.Scan(&k.BrandID, &k.ProductID, &names); err != nil {
			return err
		}
		out[k] = strings.Split(names, "\x1f")
		return nil
	}, "SELECT n.brand_id, n.product_id, "+d.namesAgg+" FROM product_names n GROUP BY n.brand_id, n.product_id")
	return out, err
}

// ScanNamedProduct scans a row of NamedProducts into p.
func ScanNamedProduct(row Row, p *svc.Product) error {
	var verified int32
	var names sql.NullString
	err := row.Scan(&p.Ref, &p.BrandID, &p.ProductID, &p.SKU, &p.Title, &p.URL, &p.GTIN, &p.MPN, &p.Maker, &verified, &names)
	p.Verified = svc.Attrs(verified)
	if names.Valid {
		p.Names = strings.Split(names.String, "\x1f")
	}
	return err
}

// touchProduct marks a product changed for the change feed.
func (d *Dialect) touchProduct(ctx context.Context, tx Querier, brandID, productID string) error {
	_, err := tx.Exec(ctx, "UPDATE products SET "+d.touch+" WHERE brand_id = ? AND product_id = ?", brandID, productID)
	return err
}

// ProductNames returns the product a name of the brand belongs to and its
// registered names, oldest first (svc.NameStore).
func (s *Store) ProductNames(ctx context.Context, brandID, name string) (*svc.Product, []string, error) {
	var id string
	if err := s.r.QueryRow(ctx, productOf, brandID, name, brandID, name).Scan(&id); NoRows(err) {
		return nil, nil, svc.Errorf(svc.ENOTFOUND, "%q is no product's name at brand %q", name, brandID)
	} else if err != nil {
		return nil, nil, err
	}
	var p *svc.Product
	err := Each(ctx, s.r, func(r Row) error {
		p = new(svc.Product)
		return ScanNamedProduct(r, p)
	}, s.d.NamedProducts()+" WHERE brand_id = ? AND product_id = ?", brandID, id)
	if err == nil && p == nil {
		err = svc.Errorf(svc.ENOTFOUND, "%q names product %q of brand %q, which is gone", name, id, brandID)
	}
	if err != nil {
		return nil, nil, err
	}
	names, err := Collect(ctx, s.r, func(r Row) (n string, err error) { return n, r.Scan(&n) },
		"SELECT name FROM product_names WHERE brand_id = ? AND product_id = ? ORDER BY created_at, name", brandID, id)
	return p, names, err
}

// Unalias removes a registered name (svc.NameStore).
func (s *Store) Unalias(ctx context.Context, brandID, name string) (string, error) {
	var id string
	err := s.inTx(ctx, func(tx Querier) error {
		err := tx.QueryRow(ctx, "DELETE FROM product_names WHERE brand_id = ? AND name = ? RETURNING product_id", brandID, name).Scan(&id)
		if NoRows(err) {
			return svc.Errorf(svc.ENOTFOUND, "%q is no registered name at brand %q (a product's own id cannot be removed)", name, brandID)
		} else if err != nil {
			return err
		}
		return s.d.touchProduct(ctx, tx, brandID, id)
	})
	return id, err
}

// MergeProducts makes two products of the brand one (svc.NameStore): the
// events, cancellations, pending cancellations and names of from move to
// into, from's id becomes a name of into, from's rollup rows and row go,
// and servers recount (the erasure version changes). The rows of both
// products are locked first, in id order, so that another node's batch
// writing either waits.
func (s *Store) MergeProducts(ctx context.Context, brandID, into, from string) (intoID, fromID string, err error) {
	err = s.inTx(ctx, func(tx Querier) error {
		var intoRef, fromRef int64
		for _, n := range []struct {
			name string
			id   *string
			ref  *int64
		}{{into, &intoID, &intoRef}, {from, &fromID, &fromRef}} {
			err := tx.QueryRow(ctx, productOf, brandID, n.name, brandID, n.name).Scan(n.id)
			if NoRows(err) {
				return svc.Errorf(svc.ENOTFOUND, "%q is no product's name at brand %q", n.name, brandID)
			} else if err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, "SELECT id FROM products WHERE brand_id = ? AND product_id = ?", brandID, *n.id).Scan(n.ref); err != nil {
				return err
			}
		}
		if intoRef == fromRef {
			return svc.Errorf(svc.EINVALID, "%q and %q are names of one product, %q", into, from, intoID)
		}
		if s.d.forUpdate != "" {
			if _, err := tx.Exec(ctx, "SELECT 1 FROM products WHERE id IN (?, ?) ORDER BY id"+s.d.forUpdate, intoRef, fromRef); err != nil {
				return err
			}
		}
		// The rows not yet moved first: a move batch that holds them
		// (postgres.moveBatch) commits before the update goes on, and
		// the blocks read after it then hold its views.
		if _, err := tx.Exec(ctx, "UPDATE view_events SET product = ? WHERE product = ?", intoRef, fromRef); err != nil {
			return err
		}
		// Every block is read: no index has the products of views.
		_, err := s.d.RewriteBlocks(ctx, tx, "true", nil, func(vs []viewblock.View) ([]viewblock.View, bool) {
			changed := false
			for i := range vs {
				if vs[i].Product == fromRef {
					vs[i].Product, changed = intoRef, true
				}
			}
			return vs, changed
		})
		if err != nil {
			return err
		}
		for _, st := range []struct {
			sql  string
			args []any
		}{
			{"UPDATE cart_events SET product = ? WHERE product = ?", []any{intoRef, fromRef}},
			{"UPDATE purchase_items SET product = ? WHERE product = ?", []any{intoRef, fromRef}},
			{"UPDATE order_cancels SET product = ? WHERE product = ?", []any{intoRef, fromRef}},
			{"UPDATE pending_cancels SET product_id = ? WHERE brand_id = ? AND product_id = ?", []any{intoID, brandID, fromID}},
			{"DELETE FROM rollup_hours WHERE brand_id = ? AND product = ?", []any{brandID, fromRef}},
			{"UPDATE product_names SET product_id = ? WHERE brand_id = ? AND product_id = ?", []any{intoID, brandID, fromID}},
			{"INSERT INTO product_names (brand_id, name, product_id, created_at) VALUES (?, ?, ?, ?)", []any{brandID, fromID, intoID, Millis(time.Now())}},
			{"DELETE FROM products WHERE id = ?", []any{fromRef}},
			{"UPDATE erasure_version SET version = version + 1", nil},
		} {
			if _, err := tx.Exec(ctx, st.sql, st.args...); err != nil {
				return err
			}
		}
		return s.d.touchProduct(ctx, tx, brandID, intoID)
	})
	return intoID, fromID, err
}
