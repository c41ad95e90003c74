package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/svc-project/svc"
)

// ProductNames returns the product a name of the brand belongs to and its
// registered names, oldest first (svc.NameStore).
func (s *Store) ProductNames(ctx context.Context, brandID, name string) (*svc.Product, []string, error) {
	var id string
	if err := s.r.QueryRowContext(ctx, qProductOf, brandID, name).Scan(&id); errors.Is(err, sql.ErrNoRows) {
		return nil, nil, svc.Errorf(svc.ENOTFOUND, "%q is no product's name at brand %q", name, brandID)
	} else if err != nil {
		return nil, nil, err
	}
	var p *svc.Product
	err := s.eachRow(ctx, func(rows *sql.Rows) error {
		p = new(svc.Product)
		return scanProduct(rows, p)
	}, qProducts+" WHERE brand_id = ? AND product_id = ?", brandID, id)
	if err != nil || p == nil {
		return nil, nil, cmpErr(err, svc.Errorf(svc.ENOTFOUND, "%q names product %q of brand %q, which is gone", name, id, brandID))
	}
	var names []string
	err = s.eachRow(ctx, func(rows *sql.Rows) error {
		var n string
		names = append(names, n)
		return rows.Scan(&names[len(names)-1])
	}, "SELECT name FROM product_names WHERE brand_id = ? AND product_id = ? ORDER BY created_at, name", brandID, id)
	return p, names, err
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// Unalias removes a registered name (svc.NameStore).
func (s *Store) Unalias(ctx context.Context, brandID, name string) (string, error) {
	s.productsMu.Lock()
	defer s.productsMu.Unlock()
	defer s.products.clear()
	var id string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, "DELETE FROM product_names WHERE brand_id = ? AND name = ? RETURNING product_id", brandID, name).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return svc.Errorf(svc.ENOTFOUND, "%q is no registered name at brand %q (a product's own id cannot be removed)", name, brandID)
		} else if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, qProductTouch, brandID, id)
		return err
	})
	return id, err
}

// MergeProducts makes two products of the brand one (svc.NameStore).
func (s *Store) MergeProducts(ctx context.Context, brandID, into, from string) (intoID, fromID string, err error) {
	s.productsMu.Lock()
	defer s.productsMu.Unlock()
	defer s.products.clear()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var intoRef, fromRef int64
		for _, n := range []struct {
			name string
			id   *string
			ref  *int64
		}{{into, &intoID, &intoRef}, {from, &fromID, &fromRef}} {
			err := tx.QueryRowContext(ctx, qProductOf, brandID, n.name).Scan(n.id)
			if errors.Is(err, sql.ErrNoRows) {
				return svc.Errorf(svc.ENOTFOUND, "%q is no product's name at brand %q", n.name, brandID)
			} else if err != nil {
				return err
			}
			if err := tx.QueryRowContext(ctx, "SELECT id FROM products WHERE brand_id = ? AND product_id = ?", brandID, *n.id).Scan(n.ref); err != nil {
				return err
			}
		}
		if intoRef == fromRef {
			return svc.Errorf(svc.EINVALID, "%q and %q are names of one product, %q", into, from, intoID)
		}
		args := []any{brandID, intoID, intoRef, fromID, fromRef, millis(time.Now())}
		for _, q := range svc.MergeStatements {
			q, used := svc.Bind(q, args)
			if _, err := tx.ExecContext(ctx, strings.ReplaceAll(q, "$", "?"), used...); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, qProductTouch, brandID, intoID)
		return err
	})
	return intoID, fromID, err
}
