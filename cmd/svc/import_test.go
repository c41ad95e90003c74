package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// shopifyHeader is the header of Shopify's order export (Orders > Export).
var shopifyHeader = []string{"Name", "Email", "Financial Status", "Paid at", "Fulfillment Status", "Fulfilled at",
	"Accepts Marketing", "Currency", "Subtotal", "Shipping", "Taxes", "Total", "Discount Code", "Discount Amount",
	"Shipping Method", "Created at", "Lineitem quantity", "Lineitem name", "Lineitem price", "Lineitem compare at price",
	"Lineitem sku", "Lineitem requires shipping", "Lineitem taxable", "Lineitem fulfillment status", "Billing Name",
	"Billing Street", "Billing Address1", "Billing Address2", "Billing Company", "Billing City", "Billing Zip",
	"Billing Province", "Billing Country", "Billing Phone", "Shipping Name", "Shipping Street", "Shipping Address1",
	"Shipping Address2", "Shipping Company", "Shipping City", "Shipping Zip", "Shipping Province", "Shipping Country",
	"Shipping Phone", "Notes", "Note Attributes", "Cancelled at", "Payment Method", "Payment Reference",
	"Refunded Amount", "Vendor", "Outstanding Balance", "Employee", "Location", "Device ID", "Id", "Tags",
	"Risk Level", "Source", "Lineitem discount", "Tax 1 Name", "Tax 1 Value", "Phone", "Receipt Number"}

// history is a generated file of past orders and what importing it counts.
type history struct {
	path                   string
	orders, old, cancelled int
	purchases              map[string]int // orders in the last 30 days per product (SKU)
	units                  map[string]int
}

// shopifyOrders is the file of 100,000 orders the import tests read, and
// what importing it counts: written once for the test binary, as writing
// it takes seconds of CPU under the race detector. Its orders are spread
// over the 29 days before it was written, far within the retention for as
// long as the tests run.
var shopifyOrders = sync.OnceValues(func() (*history, error) {
	dir, err := sharedDir()
	if err != nil {
		return nil, err
	}
	return writeShopifyCSV(filepath.Join(dir, "orders_export.csv"), 100_000, time.Now())
})

func sharedShopifyCSV(t *testing.T) *history {
	t.Helper()
	h, err := shopifyOrders()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// writeShopifyCSV writes n orders of Shopify's export, one row per line:
// every 1000th is older than the retention, every 500th cancelled; the
// rest are spread over the last 29 days, with one or two lines of 50 SKUs.
func writeShopifyCSV(path string, n int, now time.Time) (*history, error) {
	h := &history{path: path, orders: n, purchases: map[string]int{}, units: map[string]int{}}
	f, err := os.Create(h.path)
	if err != nil {
		return nil, err
	}
	w := csv.NewWriter(bufio.NewWriterSize(f, 1<<20))
	idx := map[string]int{}
	for i, c := range shopifyHeader {
		idx[c] = i
	}
	_ = w.Write(shopifyHeader)
	row := make([]string, len(shopifyHeader))
	for i := range n {
		at := now.Add(-time.Duration(i%(29*24*60)) * time.Minute).Add(-time.Minute)
		switch {
		case i%1000 == 999:
			at = now.Add(-40 * 24 * time.Hour)
			h.old++
		case i%500 == 499:
			h.cancelled++
		}
		lines := 1 + i%2
		seen := map[string]bool{}
		for l := range lines {
			clear(row)
			sku := fmt.Sprintf("SKU-%02d", (i*7+l*13)%50)
			q := 1 + (i+l)%3
			if l == 0 { // the order's fields are on its first row
				row[idx["Email"]] = fmt.Sprintf("shopper%d@example.com", i)
				row[idx["Financial Status"]] = "paid"
				row[idx["Paid at"]] = at.In(time.FixedZone("EST", -5*3600)).Format("2006-01-02 15:04:05 -0700")
				row[idx["Created at"]] = row[idx["Paid at"]]
				row[idx["Currency"]] = "EUR"
				row[idx["Total"]] = "59.90"
				row[idx["Billing Name"]] = "Erika Mustermann"
				row[idx["Shipping City"]] = "Köln"
				row[idx["Shipping Country"]] = "DE"
				row[idx["Id"]] = fmt.Sprint(5_000_000_000 + i)
				if i%500 == 499 && i%1000 != 999 {
					row[idx["Cancelled at"]] = row[idx["Created at"]]
				}
			}
			row[idx["Name"]] = fmt.Sprintf("#%d", 1000+i)
			row[idx["Lineitem quantity"]] = fmt.Sprint(q)
			row[idx["Lineitem name"]] = "Trail Runner, \"Size\" " + sku
			row[idx["Lineitem price"]] = "29.95"
			row[idx["Lineitem sku"]] = sku
			if err := w.Write(row); err != nil {
				f.Close()
				return nil, err
			}
			if i%1000 != 999 && i%500 != 499 {
				if !seen[sku] {
					h.purchases[sku]++
				}
				seen[sku] = true
				h.units[sku] += q
			}
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return nil, err
	}
	return h, f.Close()
}

// importSummaryOf reads the numbers of svc import's summary.
func importSummaryOf(t *testing.T, out string) map[string]int {
	t.Helper()
	m := map[string]int{}
	for _, l := range strings.Split(out, "\n") {
		var n int
		if _, err := fmt.Sscanf(l, "imported %d", &n); err == nil {
			m["imported"] = n
			continue
		}
		k, v, ok := strings.Cut(strings.TrimSpace(l), ":")
		if _, err := fmt.Sscan(v, &n); ok && err == nil {
			m[k] = n
		}
	}
	return m
}

func runImport(ctx context.Context, args ...string) (string, error) {
	var out bytes.Buffer
	err := run(ctx, append([]string{"import"}, args...), noEnv, &out, io.Discard)
	return out.String(), err
}

// purchasesOf reads a product's purchases and units over 30 days.
func purchasesOf(base, brand, product string) (int, int, error) {
	res, err := httpGet(fmt.Sprintf("%s/api/svc/product-proof?brand_id=%s&product_id=%s&window_purchases=720", base, brand, product))
	if err != nil {
		return 0, 0, err
	}
	var m map[string]any
	if err := json.Unmarshal(res, &m); err != nil {
		return 0, 0, fmt.Errorf("%s: %v", res, err)
	}
	p, _ := m["purchases"].(float64)
	u, _ := m["units"].(float64)
	return int(p), int(u), nil
}

// svcBinary builds svc without the race detector, once for the test
// binary: an import of 100,000 orders takes seconds as built for use, and
// many minutes through the race detector's instrumentation of SQLite (a C
// library translated to Go). The importer's code runs in-process, race
// detector on, in TestImportExportJSONL. It is built as the Dockerfile
// builds it, so that its packages come from the build cache that the
// image's build (.ci/run) filled, not compiled a second time.
var svcBinary = sync.OnceValues(func() (string, error) {
	dir, err := sharedDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "svc")
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// sharedDir holds what the tests of the binary share, built once: it is
// removed when they end (TestMain).
var sharedDir = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "svc-cmd-test-") })

func builtSvc(t *testing.T) string {
	t.Helper()
	bin, err := svcBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// serveBinary runs the built svc serve with the store flags.
func serveBinary(t *testing.T, bin string, storeFlags ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--rate-limit", "0"}, storeFlags...)...)
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	url := readURL(t, bufio.NewReader(out))
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return url
}

// importBinary runs the built svc import and returns its standard output.
func importBinary(bin string, args ...string) (string, error) {
	cmd := exec.Command(bin, append([]string{"import"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("%v: %s", err, stderr.String())
	}
	return string(out), err
}

// TestImportShopifyCSV imports 100,000 orders of Shopify's export beside a
// running server, which then counts them (logging how soon); the same
// file again imports nothing and counts nothing twice.
func TestImportShopifyCSV(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			var flags []string
			if store == "postgres" {
				flags = []string{"--store", pgtest.URL(t)}
			} else {
				flags = []string{"--data", sqlitetest.Dir(t)}
			}
			bin := builtSvc(t)
			base := serveBinary(t, bin, flags...)
			b := addBrand(t, "", flags...)
			h := sharedShopifyCSV(t)
			n := h.orders
			start := time.Now()
			out, err := importBinary(bin, append([]string{"--brand", b.BrandID, "--file", h.path}, flags...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			t.Logf("imported %d orders in %s", n, time.Since(start).Round(time.Millisecond))
			sum := importSummaryOf(t, out)
			if want := n - h.old - h.cancelled; sum["imported"] != want || sum["older than the retention"] != h.old || sum["nothing to count"] != h.cancelled || sum["refused"] != 0 {
				t.Fatalf("summary %v, want %d imported, %d old, %d cancelled:\n%s", sum, want, h.old, h.cancelled, out)
			}
			follows := func() error {
				for _, sku := range []string{"SKU-00", "SKU-17", "SKU-49"} {
					p, u, err := purchasesOf(base, b.BrandID, sku)
					if err != nil {
						return err
					}
					if p != h.purchases[sku] || u != h.units[sku] {
						return fmt.Errorf("%s: %d purchases and %d units, want %d and %d", sku, p, u, h.purchases[sku], h.units[sku])
					}
				}
				return nil
			}
			ended := time.Now()
			testwait.Eventually(t, follows)
			// The server follows its store's change feed, on either store.
			// How soon is a figure for the notes, not a limit: a loaded
			// machine slows it down (internal/testwait).
			t.Logf("the server's counts followed %s after the import ended", time.Since(ended).Round(time.Millisecond))
			out, err = importBinary(bin, append([]string{"--brand", b.BrandID, "--file", h.path}, flags...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if sum := importSummaryOf(t, out); sum["imported"] != 0 || sum["already there"] != n-h.old-h.cancelled {
				t.Fatalf("the same file again: %v\n%s", sum, out)
			}
			time.Sleep(time.Second)
			if err := follows(); err != nil {
				t.Fatalf("after the second import: %v", err)
			}
		})
	}
}

func httpGet(url string) ([]byte, error) {
	res, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}

// TestImportResumesAfterAKill kills svc import with SIGKILL in the middle
// of a file, and runs it again: the second run imports what the first did
// not, so that every order is stored once.
func TestImportResumesAfterAKill(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	h := sharedShopifyCSV(t)
	want := h.orders - h.old - h.cancelled
	bin := builtSvc(t)
	cmd := exec.Command(bin, "import", "--data", dir, "--brand", b.BrandID, "--file", h.path)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// Kill it once it has committed some orders, far from the end.
	testwait.Eventually(t, func() error {
		p, err := store.LogPosition(context.Background())
		if err != nil {
			return err
		}
		if p.Orders < 2*importBatch {
			return fmt.Errorf("%d orders so far", p.Orders)
		}
		return nil
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || strings.Contains(out.String(), "imported ") {
		t.Fatalf("the import ended before it was killed (%v): make the file larger\n%s", err, out.String())
	}
	first, _ := store.LogPosition(context.Background())
	if first.Orders >= int64(want) {
		t.Fatalf("the killed import had stored everything (%d orders)", first.Orders)
	}
	res, err := importBinary(bin, "--data", dir, "--brand", b.BrandID, "--file", h.path)
	if err != nil {
		t.Fatalf("%v\n%s", err, res)
	}
	sum := importSummaryOf(t, res)
	if sum["already there"] == 0 || sum["imported"]+sum["already there"] != want {
		t.Fatalf("resumed: %v, want %d orders in all\n%s", sum, want, res)
	}
	// Order rows are numbered from 1 and never deleted here: the newest
	// one's number is how many are stored.
	last, err := store.LogPosition(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if last.Orders != int64(want) {
		t.Fatalf("%d orders stored, want %d", last.Orders, want)
	}
}

// A malformed line, an order of another brand and an old order are each
// reported with their line numbers or counted, and the rest is imported.
func TestImportExportJSONL(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	now := time.Now().UTC()
	line := func(brand, order string, at time.Time) string {
		return fmt.Sprintf(`{"type":"purchase","event_id":"x","brand_id":%q,"order":{"order_id":%q,"currency":"EUR","items":[{"product_id":"p1","quantity":2,"unit_price":9.5}]},"context":{"timestamp":%q},"received_at":%q,"keyed":true}`,
			brand, order, at.Format(time.RFC3339), at.Format(time.RFC3339))
	}
	lines := []string{
		line(b.BrandID, "o-1", now.Add(-time.Hour)),
		`{"type":"view","event_id":"y","brand_id":"` + b.BrandID + `","product":{"product_id":"p1"},"context":{},"received_at":"2026-01-01T00:00:00Z","keyed":false}`,
		`{"type":"purchase","brand_id":` + "\n",
		line("br_other", "o-2", now.Add(-time.Hour)),
		line(b.BrandID, "o-3", now.Add(-40*24*time.Hour)),
		line(b.BrandID, "o-4", now.Add(-2*time.Hour)),
		strings.Replace(line(b.BrandID, "o-5", now), `"quantity":2`, `"quantity":0`, 1),
	}
	path := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runImport(context.Background(), "--data", dir, "--brand", b.BrandID, "--file", path)
	if err == nil || !strings.Contains(err.Error(), "3 lines refused") {
		t.Fatalf("error %v\n%s", err, out)
	}
	for _, want := range []string{
		"line 3: not a line of svc export",
		`line 5: brand "br_other" is not the brand imported to`,
		"line 8: the request has an invalid field: order.items[0].quantity must be an integer from 1 to 1000000",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary does not say %q:\n%s", want, out)
		}
	}
	if sum := importSummaryOf(t, out); sum["imported"] != 2 || sum["older than the retention"] != 1 || sum["nothing to count"] != 1 || sum["refused"] != 3 {
		t.Fatalf("summary %v\n%s", sum, out)
	}
	// What svc export writes, svc import reads back into another store.
	other := sqlitetest.Dir(t)
	b2 := addBrand(t, other)
	exported := filepath.Join(t.TempDir(), "again.jsonl")
	runCmd(t, "export", "--data", dir, "--brand", b.BrandID, "--out", exported)
	data, _ := os.ReadFile(exported)
	if err := os.WriteFile(exported, bytes.ReplaceAll(data, []byte(b.BrandID), []byte(b2.BrandID)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = runImport(context.Background(), "--data", other, "--brand", b2.BrandID, "--file", exported)
	if sum := importSummaryOf(t, out); err != nil || sum["imported"] != 2 {
		t.Fatalf("export to import: %v %v\n%s", err, sum, out)
	}
}

// svc import reads a line as strictly as the API reads a body: invalid
// UTF-8 and a name given twice, in any case, refuse the line by its
// number; so does a line over 16 MiB, and the import goes on and keeps
// every valid line, before it and after.
func TestImportIsAsStrictAsTheAPI(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	b := addBrand(t, dir)
	at := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339)
	line := func(order, items string) string {
		return fmt.Sprintf(`{"type":"purchase","brand_id":%q,"order":{"order_id":%q,"currency":"EUR","items":[%s]},"context":{"timestamp":%q},"keyed":true}`,
			b.BrandID, order, items, at)
	}
	lines := []string{
		line("o-1", `{"product_id":"p1","quantity":1}`),
		line("o-2", `{"product_id":"p-`+"\xff"+`","quantity":1}`),
		line("o-3", `{"product_id":"p1","quantity":1,"QUANTITY":7}`),
		line("o-4", `{"product_id":"p1","quantity":1,"quantity":7}`),
		line("o-5", `{"product_id":"p1","quantity":1}`),
		line("o-6", `{"product_id":"p1","quantity":1,"title":"`+strings.Repeat("x", 17<<20)+`"}`),
		line("o-7", `{"product_id":"p1","quantity":1}`),
	}
	path := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runImport(context.Background(), "--data", dir, "--brand", b.BrandID, "--file", path)
	if err == nil || !strings.Contains(err.Error(), "4 lines refused") {
		t.Fatalf("error %v\n%s", err, out)
	}
	for _, want := range []string{
		"line 2: not a line of svc export: order.items[0].product_id must be valid UTF-8",
		`line 3: not a line of svc export: order.items[0].quantity is sent as "QUANTITY": names are case-sensitive`,
		"line 4: not a line of svc export: order.items[0].quantity appears more than once",
		"line 6: the line is longer than 16 MiB",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary does not say %q:\n%.2000s", want, out)
		}
	}
	if sum := importSummaryOf(t, out); sum["imported"] != 3 || sum["refused"] != 4 {
		t.Fatalf("summary %v\n%.2000s", sum, out)
	}
	s, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var records, units int64
	if err := s.PurchaseLines(context.Background(), time.Time{}, func(r svc.PurchaseRecord) error {
		records, units = records+1, units+r.Units
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if records != 3 || units != 3 {
		t.Errorf("imported %d lines of %d units, want 3 of 1 unit (o-1, o-5, o-7)", records, units)
	}
}
