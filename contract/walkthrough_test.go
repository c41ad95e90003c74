// Package contract checks docs/openapi.yaml with the tools brands use on it.
// This test drives a real svc through the README's walk-through with the Go
// client oapi-codegen generates from the document, decoding every answer
// strictly. contract/check.sh generates the client into gen/ first.
package contract

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc/contract/gen/svcclient"
)

// The money, price and confidence figures must be float64 in the generated
// client: float32 sends 1234567.89 as 1234567.9 (format: double in the document).
var (
	_ = [1]float64{svcclient.Amount(0)}
	_ = [1]float64{svcclient.Confidence(0)}
	_ = [1]*float64{svcclient.PriceInsight{}.Median}
)

func TestWalkthrough(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := buildSvc(t)
	data := t.TempDir()

	// Onboard a brand, as the README does, before the server starts.
	var brand struct {
		BrandID string `json:"brand_id"`
		APIKey  string `json:"api_key"`
	}
	out, err := exec.CommandContext(ctx, bin, "brands", "add", "--data", data,
		"--name", "Acme Shoes", "--domain", "acme.example", "--json").Output()
	if err != nil {
		t.Fatalf("svc brands add: %v", err)
	}
	if err := json.Unmarshal(out, &brand); err != nil || brand.BrandID == "" || brand.APIKey == "" {
		t.Fatalf("svc brands add --json printed %q (%v)", out, err)
	}
	base := startSvc(t, bin, "serve", "--data", data, "--addr", "127.0.0.1:0")
	c, err := svcclient.NewClientWithResponses(base)
	if err != nil {
		t.Fatal(err)
	}
	key := brand.APIKey
	captured := map[string][]byte{}

	// The front door names the service to an API client.
	root, err := c.RootWithResponse(ctx)
	if r := strict[svcclient.Root](t, "root", root, err, 200); r.Name != svcclient.RootNameSvc || r.Version == "" || r.Links.Dashboard == nil {
		t.Fatalf("root: %s", root.Body)
	}

	// A product page view, as a brand's server sends it.
	view, err := c.CollectProductViewWithResponse(ctx, &svcclient.CollectProductViewParams{XSvcApiKey: &key}, svcclient.ViewEvent{
		BrandId: brand.BrandID,
		Product: svcclient.ViewProduct{ProductId: "sku-42", Title: ptr("Trail Runner 2"), Url: ptr("https://acme.example/p/trail-runner-2")},
		Context: &svcclient.ViewContext{SessionId: ptr("sess-1"), Country: ptr("DE"), Locale: ptr("de-DE")},
	})
	ack := strict[svcclient.Ack](t, "view", view, err, 200)
	if ack.Status != svcclient.AckStatusAccepted || ack.EventId == nil || ack.Counted != nil {
		t.Fatalf("view: %s", view.Body)
	}

	// A purchase; sent again, it is a duplicate with the first event's id.
	order := svcclient.PurchaseEvent{BrandId: brand.BrandID, Order: svcclient.Order{
		OrderId: "A-1001", Currency: ptr("EUR"), TotalValue: ptr(179.8),
		Items: []svcclient.PurchaseItem{{ProductId: "sku-42", Quantity: 2, UnitPrice: ptr(89.9)}},
	}}
	var first svcclient.Ack
	for i, want := range []svcclient.AckStatus{svcclient.AckStatusAccepted, svcclient.AckStatusDuplicate} {
		r, err := c.CollectProductPurchaseWithResponse(ctx, &svcclient.CollectProductPurchaseParams{XSvcApiKey: &key}, order)
		ack := strict[svcclient.Ack](t, "purchase", r, err, 200)
		if i == 0 {
			first = ack
		}
		if ack.Status != want || ack.EventId == nil || *ack.EventId != *first.EventId {
			t.Fatalf("purchase %d: %s, want status %s and the first event's id", i+1, r.Body, want)
		}
	}

	// The proof at the default windows: the fixed names, and the window-named
	// fields declared for the default windows.
	proof, err := c.GetProductProofWithResponse(ctx, &svcclient.GetProductProofParams{BrandId: brand.BrandID, ProductId: "sku-42"})
	p := strict[svcclient.Proof](t, "proof", proof, err, 200)
	if p.BrandId != brand.BrandID || p.ProductId != "sku-42" || p.Views != 1 || p.Purchases != 1 || p.Viewers != 1 || p.Units != 2 ||
		p.WindowViews != 60 || p.WindowPurchases != 24 || p.GeneratedAt.IsZero() ||
		p.ViewsLast60Min == nil || *p.ViewsLast60Min != 1 || p.PurchasesLast24h == nil || *p.PurchasesLast24h != 1 ||
		len(p.AdditionalProperties) != 0 {
		t.Fatalf("proof at the default windows: %s decoded as %+v", proof.Body, p)
	}
	captured["proofDefault"] = proof.Body

	// Other windows: the same counts under views and purchases; the
	// window-named members are the document's additional properties.
	proof, err = c.GetProductProofWithResponse(ctx, &svcclient.GetProductProofParams{
		BrandId: brand.BrandID, ProductId: "sku-42", WindowViews: ptr(15), WindowPurchases: ptr(48)})
	p = strict[svcclient.Proof](t, "proof with windows", proof, err, 200)
	extra := map[string]any{"views_last_15_min": 1.0, "purchases_last_48h": 1.0}
	if p.Views != 1 || p.Purchases != 1 || p.WindowViews != 15 || p.WindowPurchases != 48 ||
		p.ViewsLast60Min != nil || p.PurchasesLast24h != nil || !reflect.DeepEqual(p.AdditionalProperties, extra) {
		t.Fatalf("proof at 15 minutes and 48 hours: %s decoded as %+v", proof.Body, p)
	}
	captured["proofCustom"] = proof.Body

	// A bad request names every bad field (the README's body, as sent).
	bad, err := c.CollectProductViewWithBodyWithResponse(ctx, nil, "application/json",
		strings.NewReader(`{"product":{"product_id":""},"context":{"country":"de"}}`))
	prob := strict[svcclient.Problem](t, "bad view", bad, err, 400)
	var fields []string
	for _, fe := range deref(prob.Errors) {
		fields = append(fields, fe.Field)
	}
	if !strings.HasSuffix(prob.Type, "/docs/errors.md#invalid") || prob.Status != 400 ||
		!reflect.DeepEqual(fields, []string{"brand_id", "product.product_id", "context.country"}) {
		t.Fatalf("bad view: %s", bad.Body)
	}
	if bad.ApplicationproblemJSON400 == nil || bad.ApplicationproblemJSON400.Type != prob.Type {
		t.Fatalf("the client did not parse the 400 as a Problem: %+v", bad)
	}
	captured["problem"] = bad.Body

	// Search results enriched: the brand's product matched by URL, another not.
	search, err := c.SearchEnrichWithResponse(ctx, nil, svcclient.SearchEnrichRequest{
		Query: ptr("trail runner"),
		Results: []svcclient.SearchResultIn{
			{Title: ptr("Trail Runner 2"), Url: "https://acme.example/p/trail-runner-2?utm_source=x", Price: ptr(89.9), Currency: ptr("EUR")},
			{Title: ptr("Something else"), Url: "https://unknown.example/x"},
		},
		UserContext: &svcclient.UserContext{Country: ptr("DE"), Locale: ptr("en-GB")},
	})
	se := strict[svcclient.SearchEnrichResult](t, "search-enrich", search, err, 200)
	if len(se.Results) != 2 || !se.Results[0].Matched || se.Results[0].Match == nil ||
		se.Results[0].Match.Method != svcclient.MatchInfoMethodUrl || se.Results[0].Match.ProductId != "sku-42" ||
		se.Results[0].SocialProof == nil || se.Results[1].Matched ||
		se.Results[1].Reason == nil || *se.Results[1].Reason != svcclient.NoMatchReasonNoMatch ||
		se.Language != svcclient.LanguageEn {
		t.Fatalf("search-enrich: %s", search.Body)
	}
	captured["searchEnrich"] = search.Body

	// A product page enriched, with what shoppers paid.
	page, err := c.ProductEnrichWithResponse(ctx, nil, svcclient.ProductEnrichRequest{
		Context: &svcclient.PageContext{Domain: ptr("acme.example"), Url: ptr("https://acme.example/p/trail-runner-2")},
		Product: &svcclient.PageProduct{Title: ptr("Trail Runner 2"), Price: ptr(89.9), Currency: ptr("EUR")},
	})
	pe := strict[svcclient.ProductEnrichResult](t, "product-enrich", page, err, 200)
	if !pe.Matched || pe.Match == nil || pe.Match.ProductId != "sku-42" || pe.Price == nil ||
		pe.Price.Seen == nil || *pe.Price.Seen != 89.9 || pe.Price.Purchases != 1 {
		t.Fatalf("product-enrich: %s", page.Body)
	}
	captured["productEnrich"] = page.Body

	if out := os.Getenv("CONTRACT_CAPTURED_TS"); out != "" {
		writeCaptured(t, out, captured)
	}
}

// response is what every generated ...Response has.
type response interface {
	StatusCode() int
}

// strict decodes the body of a generated client's response into T, refusing
// fields the document does not declare and anything after the value.
func strict[T any](t *testing.T, step string, r response, err error, status int) T {
	t.Helper()
	var v T
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	body := reflect.ValueOf(r).Elem().FieldByName("Body").Bytes()
	if r.StatusCode() != status {
		t.Fatalf("%s: status %d, want %d: %s", step, r.StatusCode(), status, body)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: the body does not decode strictly into %T: %v\n%s", step, v, err, body)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("%s: data after the JSON value: %s", step, body)
	}
	return v
}

// writeCaptured writes the answers as a TypeScript module, each assigned to
// its type generated by openapi-typescript; tsc checks it (contract/check.sh).
func writeCaptured(t *testing.T, path string, bodies map[string][]byte) {
	t.Helper()
	types := map[string]string{
		"proofDefault": "Proof", "proofCustom": "Proof", "problem": "Problem",
		"searchEnrich": "SearchEnrichResult", "productEnrich": "ProductEnrichResult",
	}
	var b strings.Builder
	b.WriteString("// Generated by contract/walkthrough_test.go: answers of a real svc.\n")
	b.WriteString("import type { components } from \"./svc\";\n\ntype Schemas = components[\"schemas\"];\n")
	for _, name := range []string{"proofDefault", "proofCustom", "problem", "searchEnrich", "productEnrich"} {
		var body bytes.Buffer
		if err := json.Indent(&body, bodies[name], "", "  "); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fmt.Fprintf(&b, "\nexport const %s: Schemas[%q] = %s;\n", name, types[name], bytes.TrimSpace(body.Bytes()))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// buildSvc builds cmd/svc of this repository, or takes SVC_BIN.
func buildSvc(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("SVC_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "svc")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/svc")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/svc: %v\n%s", err, out)
	}
	return bin
}

// startSvc runs the server until the test ends and returns its URL, read
// from the "svc listening on URL" line.
func startSvc(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("svc's log:\n%s", stderr.String())
		}
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if url, ok := strings.CutPrefix(strings.TrimSpace(lines.Text()), "svc listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return url
		}
	}
	t.Fatalf("svc %s printed no \"svc listening on\" line; its log:\n%s", strings.Join(args, " "), stderr.String())
	return ""
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *[]T) []T {
	if p == nil {
		return nil
	}
	return *p
}
