package shops

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/strictjson"
	"github.com/svc-project/svc/internal/wire"
)

// Past orders, read for svc import: Shopify's order export (CSV) and svc's
// own export (JSON Lines). Each reader calls fn with every order or problem
// in the file's order, with the number of the line it starts on; a
// problem does not stop the reading, an error of fn does.

// Formats of a history file.
const (
	FormatJSONL      = "jsonl"
	FormatShopifyCSV = "shopify-csv"
)

// Record is one entry of a history file: an order to import (Action is a
// Purchase), one to skip (an Ignore, with its reason), or a problem with
// the line (Err, naming what is wrong).
type Record struct {
	Line   int
	Action *Action
	Err    error
}

// MaxExportLine is the longest line ReadExport reads; a longer one is
// refused, and the lines after it are read.
const MaxExportLine = 16 << 20

// ReadExport reads svc export's JSON Lines for the brand. Purchases are
// read; views are Ignored, since nothing would make a second import of one
// count once. A line of another brand is refused. Each line is read as
// strictly as the API reads a body (internal/strictjson).
func ReadExport(r io.Reader, brandID string, fn func(Record) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		line, long, err := readLine(br, buf[:0], MaxExportLine)
		buf = line
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		var rec Record
		switch line = bytes.TrimSpace(line); {
		case long:
			rec = Record{Line: n, Err: fmt.Errorf("the line is longer than %d MiB", MaxExportLine>>20)}
		case len(line) > 0:
			rec = exportRecord(n, line, brandID)
		}
		if rec.Line != 0 {
			if err := fn(rec); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// readLine appends the next line of br, without its newline, to buf. A
// line longer than max is read to its end and dropped: long reports it.
// The error is io.EOF after the last line.
func readLine(br *bufio.Reader, buf []byte, max int) (line []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !long && len(buf)+len(chunk) > max+1 { // +1: the newline
			long, buf = true, buf[:0]
		}
		if !long {
			buf = append(buf, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return buf, long, err
		}
		return bytes.TrimSuffix(buf, []byte("\n")), long, nil
	}
}

// exportLine is what ReadExport reads of a line of svc export.
type exportLine struct {
	Type    string               `json:"type"`
	BrandID string               `json:"brand_id"`
	Order   *wire.Order          `json:"order"`
	Context wire.PurchaseContext `json:"context"`
	Keyed   *bool                `json:"keyed"`
}

func exportRecord(n int, line []byte, brandID string) Record {
	var l exportLine
	fields, err := strictjson.Unmarshal(line, &l)
	var serr *svc.Error
	switch {
	case errors.As(err, &serr) && len(serr.Fields) > 0:
		fields = serr.Fields
	case errors.As(err, &serr):
		return Record{Line: n, Err: fmt.Errorf("not a line of svc export: %s", serr.Message)}
	case err != nil:
		return Record{Line: n, Err: fmt.Errorf("not a line of svc export: %v", err)}
	}
	if len(fields) > 0 {
		var msgs []string
		for _, f := range fields {
			msgs = append(msgs, f.Field+" "+f.Message)
		}
		return Record{Line: n, Err: fmt.Errorf("not a line of svc export: %s", strings.Join(msgs, "; "))}
	}
	switch {
	case l.BrandID != brandID:
		return Record{Line: n, Err: fmt.Errorf("brand %q is not the brand imported to, %q", l.BrandID, brandID)}
	case l.Type == "view":
		return Record{Line: n, Action: ignore("a view")}
	case l.Type != "purchase" || l.Order == nil:
		return Record{Line: n, Err: fmt.Errorf("type %q is not a purchase", l.Type)}
	}
	e := &svc.PurchaseEvent{BrandID: brandID, Order: l.Order.Order(), Context: svc.PurchaseContext(l.Context)}
	e.Meta.Keyed = l.Keyed == nil || *l.Keyed
	return Record{Line: n, Action: &Action{Kind: Purchase, Order: e, OrderID: e.Order.OrderID}}
}

// shopifyCSVTime is how Shopify's export writes times: 2026-03-05 14:22:10 -0500.
const shopifyCSVTime = "2006-01-02 15:04:05 -0700"

// CSVProduct is the product a line of Shopify's export counts under, as an
// importer maps it: the export names no product id, only the line's SKU
// and its name, "Product - Variant" for a product with variants.
type CSVProduct struct {
	ProductID string
	// Title is the product's title to give, nil to give none: an import
	// never gives a product a line's variant name.
	Title *string
	// Aliases are names the import registers for the product (svc
	// names.go), such as the line's SKU.
	Aliases []string
}

// ReadShopifyCSV reads Shopify's order export for the brand: one row per
// line item, the rows of an order together, the order's fields on its
// first row. The order is its Id (its Name, "#1001", in exports without
// one); a line's product is productOf(sku, name), which an importer maps to
// the brand's products; a line it maps to "" is left out. Only paid and
// partially paid orders count (Financial Status), less what was refunded
// (see csvOrder.record); cancelled, refunded, voided, pending and
// authorized orders are Ignored.
func ReadShopifyCSV(r io.Reader, brandID string, productOf func(sku, name string) CSVProduct, fn func(Record) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return fmt.Errorf("line 1: not Shopify's order export: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, need := range []string{"Name", "Lineitem quantity", "Lineitem name"} {
		if _, ok := col[need]; !ok {
			return fmt.Errorf("line 1: not Shopify's order export: no column %q", need)
		}
	}
	var cur *csvOrder
	flush := func() error {
		if cur == nil {
			return nil
		}
		rec := cur.record(brandID)
		cur = nil
		return fn(rec)
	}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			if err := flush(); err != nil {
				return err
			}
			if err := fn(Record{Line: perr.StartLine, Err: fmt.Errorf("not a CSV row: %v", perr.Err)}); err != nil {
				return err
			}
			continue
		} else if err != nil {
			return err
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(row) {
				return strings.TrimSpace(row[i])
			}
			return ""
		}
		name := get("Name")
		if cur == nil || name != cur.name {
			if err := flush(); err != nil {
				return err
			}
			cur = &csvOrder{line: line, name: name, id: get("Id"), currency: get("Currency"), total: get("Total"),
				created: get("Created at"), paid: get("Paid at"), cancelled: get("Cancelled at"), status: strings.ToLower(get("Financial Status")),
				refunded: get("Refunded Amount"), country: get("Shipping Country"), city: get("Shipping City")}
		}
		cur.add(get("Lineitem sku"), get("Lineitem name"), get("Lineitem quantity"), get("Lineitem price"), line, productOf)
	}
	return flush()
}

// csvOrder gathers the rows of one order of Shopify's export.
type csvOrder struct {
	line                                                                                 int
	name, id, currency, total, created, paid, cancelled, status, refunded, country, city string
	lines                                                                                lineBuilder
	err                                                                                  error
}

func (o *csvOrder) add(sku, name, quantity, price string, line int, productOf func(sku, name string) CSVProduct) {
	if o.err != nil {
		return
	}
	var q int64
	if _, err := fmt.Sscan(quantity, &q); err != nil || q < 1 {
		o.err = fmt.Errorf("line %d: Lineitem quantity %q is not a whole number from 1", line, quantity)
		return
	}
	p := productOf(sku, name)
	if p.ProductID == "" {
		return
	}
	var a amount
	if price != "" && a.UnmarshalJSON([]byte(price)) != nil {
		o.err = fmt.Errorf("line %d: Lineitem price %q is not an amount", line, price)
		return
	}
	o.lines.add(p.ProductID, &sku, p.Title, q, a.v, "")
	it := &o.lines.items[len(o.lines.items)-1]
	for _, alias := range p.Aliases {
		if alias != "" && alias != p.ProductID && !slices.Contains(it.Aliases, alias) {
			it.Aliases = append(it.Aliases, alias)
		}
	}
}

// takeOutRefunds takes the units the order's Refunded Amount paid back out
// of its lines, and returns an Ignore when nothing is left or when the
// export cannot say which units it was. The export gives the refund as an
// amount for the whole order: of an order of one product, the amount
// covers floor(amount / unit price) units (a refund of shipping alone
// takes out none); of an order of several, an amount that covers the
// order's total takes out everything, and a smaller one could be any of
// its lines, so the order is left out rather than counted in full.
func (o *csvOrder) takeOutRefunds(orderID string) *Action {
	var refunded amount
	if o.refunded == "" || refunded.UnmarshalJSON([]byte(o.refunded)) != nil || refunded.v == nil || *refunded.v <= 0 {
		if o.status == "partially_refunded" {
			return ignore("order %s is partially refunded, and its Refunded Amount does not say how much", orderID)
		}
		return nil
	}
	var total amount
	_ = total.UnmarshalJSON([]byte(o.total))
	items := o.lines.items
	one := len(items) > 0
	for _, it := range items {
		one = one && it.ProductID == items[0].ProductID
	}
	switch {
	case total.v != nil && *refunded.v >= *total.v-0.005:
		return ignore("order %s is refunded in full", orderID)
	case !one:
		return ignore("order %s is partially refunded, and the export does not say which of its lines", orderID)
	}
	left := int64(math.Floor(*refunded.v/priceOf(items) + 1e-9))
	kept := items[:0]
	for _, it := range items {
		n := min(left, *it.Quantity)
		left -= n
		if q := *it.Quantity - n; q > 0 {
			it.Quantity = &q
			kept = append(kept, it)
		}
	}
	if o.lines.items = kept; len(kept) == 0 {
		return ignore("order %s is refunded in full", orderID)
	}
	return nil
}

// priceOf is the unit price of an order's lines of one product: the
// highest given, so that a refund never takes out more units than it paid
// for; +Inf (no unit) when no line has one.
func priceOf(items []svc.PurchaseItem) float64 {
	p := 0.0
	for _, it := range items {
		if it.UnitPrice != nil {
			p = max(p, *it.UnitPrice)
		}
	}
	if p == 0 {
		return math.Inf(1)
	}
	return p
}

// ShopifyBaseTitle returns the product's title of a line's name in
// Shopify's export: "Forest Hiker Boot - EU 42" is the variant "EU 42" of
// "Forest Hiker Boot". A name without " - " is the product's own.
func ShopifyBaseTitle(name string) string {
	if i := strings.LastIndex(name, " - "); i > 0 {
		return strings.TrimSpace(name[:i])
	}
	return name
}

func (o *csvOrder) record(brandID string) Record {
	if o.err != nil {
		return Record{Line: o.line, Err: o.err}
	}
	orderID := o.id
	if orderID == "" {
		orderID = o.name
	}
	if orderID == "" {
		return Record{Line: o.line, Err: errors.New("the order has no Name or Id")}
	}
	if o.cancelled != "" {
		return Record{Line: o.line, Action: ignore("order %s is cancelled", orderID)}
	}
	switch o.status {
	case "paid", "partially_paid", "partially_refunded":
	case "":
		return Record{Line: o.line, Action: ignore("order %s has no Financial Status: it may not be paid", orderID)}
	default: // pending, authorized, expired, refunded, voided
		return Record{Line: o.line, Action: ignore("order %s is %s, not paid", orderID, o.status)}
	}
	if skip := o.takeOutRefunds(orderID); skip != nil {
		return Record{Line: o.line, Action: skip}
	}
	when := o.created
	if when == "" {
		when = o.paid
	}
	var ts *string
	if when != "" {
		t, err := time.Parse(shopifyCSVTime, when)
		if err != nil {
			return Record{Line: o.line, Err: fmt.Errorf("the order's Created at, %q, is not a time such as 2026-03-05 14:22:10 -0500", when)}
		}
		s := t.UTC().Format(time.RFC3339)
		ts = &s
	}
	var total amount
	_ = total.UnmarshalJSON([]byte(o.total)) // an unreadable total is left out, not the order
	a := purchase(brandID, orderID, &o.currency, total.v, ts, &o.lines, &o.country, &o.city)
	if a.Order != nil {
		// The operator's import is keyed (docs/security.md, Provenance):
		// its lines register their SKUs as names, and its titles are verified.
		a.Order.Meta.Keyed = true
	}
	return Record{Line: o.line, Action: a}
}
