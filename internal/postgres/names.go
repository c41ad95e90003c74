package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// qProductOf finds the product a name belongs to (svc.NameLookup).
const qProductOf = `SELECT product_id FROM products WHERE brand_id = $1 AND product_id = $2
	UNION ALL SELECT product_id FROM product_names WHERE brand_id = $1 AND name = $2 LIMIT 1`

// qProductTouch marks a product changed for the change feed.
const qProductTouch = "UPDATE products SET txid = pg_current_xact_id() WHERE brand_id = $1 AND product_id = $2"

// ProductNames returns the product a name of the brand belongs to and its
// registered names, oldest first (svc.NameStore).
func (s *Store) ProductNames(ctx context.Context, brandID, name string) (*svc.Product, []string, error) {
	var id string
	if err := s.pool.QueryRow(ctx, qProductOf, brandID, name).Scan(&id); errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, svc.Errorf(svc.ENOTFOUND, "%q is no product's name at brand %q", name, brandID)
	} else if err != nil {
		return nil, nil, err
	}
	var p *svc.Product
	err := eachRow(ctx, s.pool, func(rows pgx.Rows) error {
		p = new(svc.Product)
		return scanNamedProduct(rows, p)
	}, qNamedProducts+" WHERE brand_id = $1 AND product_id = $2", brandID, id)
	if err == nil && p == nil {
		err = svc.Errorf(svc.ENOTFOUND, "%q names product %q of brand %q, which is gone", name, id, brandID)
	}
	if err != nil {
		return nil, nil, err
	}
	var names []string
	err = eachRow(ctx, s.pool, func(rows pgx.Rows) error {
		var n string
		err := rows.Scan(&n)
		names = append(names, n)
		return err
	}, "SELECT name FROM product_names WHERE brand_id = $1 AND product_id = $2 ORDER BY created_at, name", brandID, id)
	return p, names, err
}

// Unalias removes a registered name (svc.NameStore).
func (s *Store) Unalias(ctx context.Context, brandID, name string) (string, error) {
	var id string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, "DELETE FROM product_names WHERE brand_id = $1 AND name = $2 RETURNING product_id", brandID, name).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return svc.Errorf(svc.ENOTFOUND, "%q is no registered name at brand %q (a product's own id cannot be removed)", name, brandID)
		} else if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, qProductTouch, brandID, id)
		return err
	})
	return id, err
}

// MergeProducts makes two products of the brand one (svc.NameStore). The
// rows of both products are locked first, in id order, so that a batch
// writing either waits.
func (s *Store) MergeProducts(ctx context.Context, brandID, into, from string) (intoID, fromID string, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var intoRef, fromRef int64
		for _, n := range []struct {
			name string
			id   *string
			ref  *int64
		}{{into, &intoID, &intoRef}, {from, &fromID, &fromRef}} {
			err := tx.QueryRow(ctx, qProductOf, brandID, n.name).Scan(n.id)
			if errors.Is(err, pgx.ErrNoRows) {
				return svc.Errorf(svc.ENOTFOUND, "%q is no product's name at brand %q", n.name, brandID)
			} else if err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, "SELECT id FROM products WHERE brand_id = $1 AND product_id = $2", brandID, *n.id).Scan(n.ref); err != nil {
				return err
			}
		}
		if intoRef == fromRef {
			return svc.Errorf(svc.EINVALID, "%q and %q are names of one product, %q", into, from, intoID)
		}
		if _, err := tx.Exec(ctx, "SELECT 1 FROM products WHERE id IN ($1, $2) ORDER BY id FOR UPDATE", intoRef, fromRef); err != nil {
			return err
		}
		args := []any{brandID, intoID, intoRef, fromID, fromRef, time.Now().UnixMilli()}
		for _, q := range svc.MergeStatements {
			q, used := svc.Bind(q, args)
			if _, err := tx.Exec(ctx, q, used...); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, qProductTouch, brandID, intoID)
		return err
	})
	return intoID, fromID, err
}
