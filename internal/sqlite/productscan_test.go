package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
)

// Products, read with scanProduct's shared buffer, must give what
// sqlstore.ScanNamedProduct gives for the same rows: absent and empty
// attributes apart, every verified mask, names or none, on every range
// of the scan.
func TestProductsScanLikeNamedProduct(t *testing.T) {
	ctx := context.Background()
	s := storeWithBrand(t)
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_2", Name: "Two", CreatedAt: time.Unix(0, 0)}, nil); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	text := func(i int) any {
		switch rng.IntN(3) {
		case 0:
			return nil
		case 1:
			return ""
		}
		return fmt.Sprintf("v%d-ü-%d", i, rng.IntN(1000))
	}
	const n = 3000
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		brand := fmt.Sprint("br_", 1+i%2)
		_, err := tx.ExecContext(ctx, `INSERT INTO products (brand_id, product_id, sku, title, url, gtin, mpn, maker, verified, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)`, brand, fmt.Sprint("p", i), text(i), text(i), text(i), text(i), text(i), text(i), rng.IntN(64))
		if err != nil {
			t.Fatal(err)
		}
		for k := range rng.IntN(3) {
			if _, err := tx.ExecContext(ctx, "INSERT INTO product_names (brand_id, name, product_id, created_at) VALUES (?, ?, ?, ?)",
				brand, fmt.Sprintf("n%d-%d", i, k), fmt.Sprint("p", i), k); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var want []*svc.Product
	err = eachRowOf(ctx, s.r, func(rows *sql.Rows) error {
		p := new(svc.Product)
		want = append(want, p)
		return sqlstore.ScanNamedProduct(rows, p)
	}, sqlstore.SQLite.NamedProducts()+" ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var got []*svc.Product
	if err := s.Products(ctx, func(p *svc.Product) error { got = append(got, p); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != n || len(want) != n {
		t.Fatalf("%d products read, %d by ScanNamedProduct, want %d", len(got), len(want), n)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("product %d:\n got %s\nwant %s", i, show(got[i]), show(want[i]))
		}
	}
}

func show(p *svc.Product) string {
	s := fmt.Sprintf("%d %s/%s v%d names %q", p.Ref, p.BrandID, p.ProductID, p.Verified, p.Names)
	for _, a := range []*string{p.SKU, p.Title, p.URL, p.GTIN, p.MPN, p.Maker} {
		if a == nil {
			s += " nil"
		} else {
			s += fmt.Sprintf(" %q", *a)
		}
	}
	return s
}
