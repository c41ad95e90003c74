package sqlite

import (
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/svc-project/svc"
)

// productRow decodes a row of sqlstore's NamedProducts as
// sqlstore.ScanNamedProduct does, with three allocations where that made
// one per text column and one more per attribute pointer: the row's text
// is gathered in a reused buffer and every string of the product is cut
// from one copy of it. A start decodes a million products; their
// allocations were a fifth of its CPU (bench/RESULTS.md).
type productRow struct {
	buf      []byte
	verified int64
	cols     [9]textCol // brand_id, product_id, sku, title, url, gtin, mpn, maker, names
}

// textCol is a nullable text column appended to its row's buffer.
type textCol struct {
	row        *productRow
	start, end int
	valid      bool
}

func (c *textCol) Scan(src any) error {
	c.start, c.valid = len(c.row.buf), src != nil
	switch v := src.(type) {
	case nil:
	case string:
		c.row.buf = append(c.row.buf, v...)
	case []byte:
		c.row.buf = append(c.row.buf, v...)
	default:
		return fmt.Errorf("sqlite: a product's text column holds %T", src)
	}
	c.end = len(c.row.buf)
	return nil
}

var productRows = sync.Pool{New: func() any {
	r := &productRow{buf: make([]byte, 0, 512)}
	for i := range r.cols {
		r.cols[i].row = r
	}
	return r
}}

// scanProduct scans a row of NamedProducts into p.
func scanProduct(rows *sql.Rows, p *svc.Product) error {
	r := productRows.Get().(*productRow)
	defer productRows.Put(r)
	r.buf = r.buf[:0]
	c := &r.cols
	if err := rows.Scan(intCol{(*int64)(&p.Ref)}, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7], intCol{&r.verified}, &c[8]); err != nil {
		return err
	}
	if !c[0].valid || !c[1].valid {
		return fmt.Errorf("sqlite: product %d has no brand or id", p.Ref)
	}
	text := string(r.buf)
	cut := func(i int) string { return text[c[i].start:c[i].end] }
	p.BrandID, p.ProductID = cut(0), cut(1)
	attrs := [6]**string{&p.SKU, &p.Title, &p.URL, &p.GTIN, &p.MPN, &p.Maker}
	var vals *[6]string
	for i, a := range attrs {
		if c[i+2].valid {
			if vals == nil {
				vals = new([6]string)
			}
			vals[i] = cut(i + 2)
			*a = &vals[i]
		}
	}
	p.Verified = svc.Attrs(r.verified)
	if c[8].valid {
		p.Names = strings.Split(cut(8), "\x1f")
	}
	return nil
}

// intCol scans an INTEGER column into the int64 it points at, called as a
// sql.Scanner: database/sql converts an int64 into *int64 by reflection,
// which cost more than the rest of the value's decoding on the start's
// scans of millions of rows.
type intCol struct{ p *int64 }

func (c intCol) Scan(src any) error {
	v, ok := src.(int64)
	if !ok {
		return fmt.Errorf("sqlite: an integer column holds %T", src)
	}
	*c.p = v
	return nil
}
