package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
)

const (
	searchPath  = "/api/svc/search-enrich"
	productPath = "/api/svc/product-enrich"
)

// enrichFixture adds three shops selling one pair of headphones: Alpha
// (alpha.example), Beta (beta.example, the same SKU under another title)
// and Gamma (the same title, no SKU); Alpha also sells a phone.
func enrichFixture(t *testing.T) *fixture {
	f := newFixture(t)
	ctx := context.Background()
	for _, b := range []*svc.Brand{
		{ID: "br_alpha", Name: "Alpha Shop", Domains: []string{"alpha.example"}},
		{ID: "br_beta", Name: "Beta Store", Domains: []string{"beta.example"}},
		{ID: "br_gamma", Name: "Gamma", Domains: []string{"gamma.example"}},
	} {
		b.CreatedAt = t0
		secret, k := svc.NewAPIKey(b.ID, t0)
		if err := f.store.CreateBrand(ctx, b, k); err != nil {
			t.Fatal(err)
		}
		f.keys[b.ID] = secret
	}
	if err := f.auth.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	keyed := func(brand string, body map[string]any) {
		t.Helper()
		if r := f.do("POST", pathOf(body), body, "X-svc-Api-Key", f.keys[brand]); r.status != 200 {
			t.Fatalf("%s: %d %s", brand, r.status, r.body)
		}
	}
	product := func(brand, id, title, url, sku string, viewers int) {
		p := map[string]any{"product_id": id, "title": title, "url": url}
		if sku != "" {
			p["sku"] = sku
		}
		for i := range max(viewers, 1) {
			body := map[string]any{"brand_id": brand, "product": p,
				"context": map[string]any{"session_id": fmt.Sprint(id, "-s", i), "timestamp": t0.Add(-time.Duration(i) * time.Minute).Format(time.RFC3339)}}
			if viewers == 0 {
				body["context"].(map[string]any)["timestamp"] = t0.Add(-3 * time.Hour).Format(time.RFC3339)
			}
			keyed(brand, body)
		}
	}
	product("br_alpha", "wh5", "Sony WH-1000XM5 Wireless Headphones Black", "https://www.alpha.example/p/wh1000xm5-black", "SONY-WH1000XM5-B", 4)
	product("br_alpha", "ip15", "Apple iPhone 15 128GB Black", "https://alpha.example/p/iphone-15", "", 1)
	product("br_beta", "b-77", "WH-1000XM5 Noise Cancelling Headphones - Black by Sony", "https://beta.example/item/77", "SONY-WH1000XM5-B", 5)
	product("br_gamma", "g1", "Sony WH-1000XM5 Wireless Headphones Black", "https://gamma.example/g1", "", 0)
	for i, price := range []float64{300, 340, 320} {
		body := purchase("br_alpha", fmt.Sprint("o", i), "wh5", 1)
		body["order"].(map[string]any)["items"].([]any)[0].(map[string]any)["unit_price"] = price
		keyed("br_alpha", body)
	}
	return f
}

func pathOf(body map[string]any) string {
	if _, ok := body["order"]; ok {
		return purchasePath
	}
	return viewPath
}

func decode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("%s: %v", r.body, err)
	}
	return v
}

func TestSearchEnrich(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	req := map[string]any{
		"query": "sony wh-1000xm5",
		"results": []any{
			map[string]any{"url": "https://m.alpha.example/p/wh1000xm5-black/?utm_source=google#reviews", "price": 299, "currency": "EUR"},
			map[string]any{"title": "Apple iPhone 15 128 GB Black | Alpha Shop", "url": "https://alpha.example/search?q=iphone", "domain": "alpha.example", "price": 799, "currency": "EUR"},
			map[string]any{"title": "Sony WH-1000XM5", "url": "https://unknown.example/x", "price": 250, "currency": "EUR"},
			map[string]any{"title": "WH-1000XM5 Noise Cancelling Headphones – Black by Sony", "url": "https://www.beta.example/search?q=sony", "price": 12, "currency": "USD"},
			map[string]any{"title": "Apple iPhone 15 Case", "url": "https://alpha.example/c/cases"},
		},
		"user_context": map[string]any{"country": "DE", "locale": "en-GB"},
	}
	got := decode[map[string]any](t, f.do("POST", searchPath, req))
	want := map[string]any{
		"query":        "sony wh-1000xm5",
		"language":     "en",
		"generated_at": "2026-11-21T10:00:00Z",
		"results": []any{
			map[string]any{
				"index": 0.0, "url": "https://m.alpha.example/p/wh1000xm5-black/?utm_source=google#reviews", "matched": true,
				"match": map[string]any{"brand_id": "br_alpha", "brand_name": "Alpha Shop", "product_id": "wh5", "title": "Sony WH-1000XM5 Wireless Headphones Black",
					"url": "https://www.alpha.example/p/wh1000xm5-black", "method": "url", "confidence": 1.0},
				"social_proof": map[string]any{"views_last_60_min": 4.0, "viewers": 4.0, "purchases_last_24h": 3.0, "units": 3.0,
					"window_views": 60.0, "window_purchases": 24.0},
				"badges": []any{"most_purchased"},
				"badge": map[string]any{"kind": "most_purchased", "label": "Most bought · 24 h",
					"title": "4 people viewed this in the last hour · 3 purchases in the last 24 hours · Most bought of these results in the last 24 hours"},
				"messages": []any{
					map[string]any{"kind": "views", "text": "4 people viewed this in the last hour"},
					map[string]any{"kind": "purchases", "text": "3 purchases in the last 24 hours"},
					map[string]any{"kind": "most_purchased", "text": "Most bought of these results in the last 24 hours"},
				},
			},
			map[string]any{
				"index": 1.0, "url": "https://alpha.example/search?q=iphone", "matched": true,
				"match": map[string]any{"brand_id": "br_alpha", "brand_name": "Alpha Shop", "product_id": "ip15", "title": "Apple iPhone 15 128GB Black",
					"url": "https://alpha.example/p/iphone-15", "method": "title", "confidence": strictConfidence},
				"social_proof": map[string]any{"views_last_60_min": nil, "viewers": nil, "purchases_last_24h": nil, "units": nil,
					"window_views": 60.0, "window_purchases": 24.0,
					"reasons": map[string]any{"views_last_60_min": "below_threshold", "viewers": "below_threshold",
						"purchases_last_24h": "below_threshold", "units": "below_threshold"}},
				"badges":   []any{},
				"badge":    nil,
				"messages": []any{},
			},
			map[string]any{
				"index": 2.0, "url": "https://unknown.example/x", "matched": false, "match": nil, "social_proof": nil,
				"reason": "no_match", "badges": []any{"lowest_price"}, "badge": nil,
				"messages": []any{map[string]any{"kind": "lowest_price", "text": "Lowest price of these results"}},
			},
			map[string]any{
				"index": 3.0, "url": "https://www.beta.example/search?q=sony", "matched": true,
				"match": map[string]any{"brand_id": "br_beta", "brand_name": "Beta Store", "product_id": "b-77", "title": "WH-1000XM5 Noise Cancelling Headphones - Black by Sony",
					"url": "https://beta.example/item/77", "method": "title", "confidence": strictConfidence},
				"social_proof": map[string]any{"views_last_60_min": 5.0, "viewers": 5.0, "purchases_last_24h": nil, "units": nil,
					"window_views": 60.0, "window_purchases": 24.0,
					"reasons": map[string]any{"purchases_last_24h": "below_threshold", "units": "below_threshold"}},
				"badges": []any{"most_viewed", "trending"},
				"badge": map[string]any{"kind": "most_viewed", "label": "Most viewed · last hour",
					"title": "5 people viewed this in the last hour · Most viewed of these results in the last hour · More views than usual in the last hour"},
				"messages": []any{
					map[string]any{"kind": "views", "text": "5 people viewed this in the last hour"},
					map[string]any{"kind": "most_viewed", "text": "Most viewed of these results in the last hour"},
					map[string]any{"kind": "trending", "text": "More views than usual in the last hour"},
				},
			},
			map[string]any{ // a near-miss of the phone: no match
				"index": 4.0, "url": "https://alpha.example/c/cases", "matched": false, "match": nil, "social_proof": nil,
				"reason": "no_match", "badges": []any{}, "badge": nil, "messages": []any{},
			},
		},
	}
	titleLevels(t, got)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Fatalf("got\n%s", g)
	}
}

func TestSearchEnrichLanguages(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	results := []any{
		map[string]any{"url": "https://alpha.example/p/wh1000xm5-black"},
		map[string]any{"url": "https://beta.example/item/77"},
	}
	texts := func(r response) []string {
		var out []string
		for _, res := range decode[map[string]any](t, r)["results"].([]any) {
			for _, m := range res.(map[string]any)["messages"].([]any) {
				out = append(out, m.(map[string]any)["text"].(string))
			}
		}
		return out
	}
	for _, tc := range []struct {
		locale, acceptLanguage string
		want                   []string
	}{
		{"de-DE", "fr-FR", []string{"4 Personen haben sich das in der letzten Stunde angesehen", "3 Käufe in den letzten 24 Stunden",
			"Meistgekauft dieser Ergebnisse in den letzten 24 Stunden",
			"5 Personen haben sich das in der letzten Stunde angesehen", "Meistgesehen dieser Ergebnisse in der letzten Stunde", "Mehr Aufrufe als üblich in der letzten Stunde"}},
		{"", "fr-CA,fr;q=0.9,en;q=0.5", []string{"4 personnes ont consulté ce produit au cours de la dernière heure", "3 achats au cours des dernières 24 heures",
			"Le plus acheté de ces résultats au cours des dernières 24 heures",
			"5 personnes ont consulté ce produit au cours de la dernière heure", "Le plus consulté de ces résultats au cours de la dernière heure", "Plus consulté que d'habitude au cours de la dernière heure"}},
		{"es-MX", "", []string{"4 personas vieron esto en la última hora", "3 compras en las últimas 24 horas",
			"El más comprado de estos resultados en las últimas 24 horas",
			"5 personas vieron esto en la última hora", "El más visto de estos resultados en la última hora", "Más visto de lo habitual en la última hora"}},
		{"ja-JP", "", []string{"4 people viewed this in the last hour", "3 purchases in the last 24 hours",
			"Most bought of these results in the last 24 hours",
			"5 people viewed this in the last hour", "Most viewed of these results in the last hour", "More views than usual in the last hour"}},
	} {
		body := map[string]any{"results": results}
		if tc.locale != "" {
			body["user_context"] = map[string]any{"locale": tc.locale}
		}
		got := texts(f.do("POST", searchPath, body, "Accept-Language", tc.acceptLanguage))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("locale %q, Accept-Language %q:\n got %q\nwant %q", tc.locale, tc.acceptLanguage, got, tc.want)
		}
	}
}

// Singular forms follow each language's plural rules: with thresholds of 1,
// one viewer and one purchase are shown.
func TestEnrichSingular(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	b, err := f.store.Brand(context.Background(), "br_alpha")
	if err != nil {
		t.Fatal(err)
	}
	b.MinViewers, b.MinPurchases = 1, 1
	if err := f.store.UpdateBrand(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if err := f.auth.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	body := purchase("br_alpha", "single", "ip15", 1)
	if r := f.do("POST", purchasePath, body, "X-svc-Api-Key", f.keys["br_alpha"]); r.status != 200 {
		t.Fatal(r.status, string(r.body))
	}
	for locale, want := range map[string][]string{
		"en-US": {"1 person viewed this in the last hour", "1 purchase in the last 24 hours"},
		"de-DE": {"1 Person hat sich das in der letzten Stunde angesehen", "1 Kauf in den letzten 24 Stunden"},
		"fr-FR": {"1 personne a consulté ce produit au cours de la dernière heure", "1 achat au cours des dernières 24 heures"},
		"es-ES": {"1 persona vio esto en la última hora", "1 compra en las últimas 24 horas"},
	} {
		res := decode[map[string]any](t, f.do("POST", searchPath, map[string]any{
			"results":      []any{map[string]any{"url": "https://alpha.example/p/iphone-15"}},
			"user_context": map[string]any{"locale": locale},
		}))["results"].([]any)[0].(map[string]any)
		var got []string
		for _, m := range res["messages"].([]any) {
			got = append(got, m.(map[string]any)["text"].(string))
		}
		titleLevels(t, got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %q, want %q", locale, got, want)
		}
	}
}

func TestProductEnrich(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	got := decode[map[string]any](t, f.do("POST", productPath, map[string]any{
		"context": map[string]any{"domain": "www.alpha.example", "url": "https://www.alpha.example/p/wh1000xm5-black?gclid=abc", "country": "DE"},
		"product": map[string]any{"title": "Sony WH-1000XM5 Wireless Headphones Black", "brand": "Sony", "price": 299, "currency": "EUR"},
	}))
	proof := func(views, buys any, reasons map[string]any) map[string]any {
		m := map[string]any{"views_last_60_min": views, "viewers": views, "purchases_last_24h": buys, "units": buys,
			"window_views": 60.0, "window_purchases": 24.0}
		if reasons != nil {
			m["reasons"] = reasons
		}
		return m
	}
	noViews := map[string]any{"views_last_60_min": "below_threshold", "viewers": "below_threshold"}
	noBuys := map[string]any{"purchases_last_24h": "below_threshold", "units": "below_threshold"}
	both := map[string]any{}
	for k, v := range noViews {
		both[k] = v
	}
	for k, v := range noBuys {
		both[k] = v
	}
	fewPurchases := map[string]any{"seen": nil, "currency": "EUR", "median": nil, "min": nil, "max": nil, "purchases": 0.0,
		"window_days": 30.0, "verdict": "unknown", "reason": "too_few_purchases"}
	want := map[string]any{
		"matched": true,
		"match": map[string]any{"brand_id": "br_alpha", "brand_name": "Alpha Shop", "product_id": "wh5", "title": "Sony WH-1000XM5 Wireless Headphones Black",
			"url": "https://www.alpha.example/p/wh1000xm5-black", "method": "url", "confidence": 1.0},
		"social_proof": proof(4.0, 3.0, nil),
		"price": map[string]any{"seen": 299.0, "currency": "EUR", "median": 320.0, "min": 300.0, "max": 340.0, "purchases": 3.0,
			"window_days": 30.0, "verdict": "below_typical"},
		"offers": []any{
			map[string]any{"brand_id": "br_beta", "product_id": "b-77", "title": "WH-1000XM5 Noise Cancelling Headphones - Black by Sony",
				"url": "https://beta.example/item/77", "method": "sku", "confidence": 1.0, "price": fewPurchases, "social_proof": proof(5.0, nil, noBuys)},
			map[string]any{"brand_id": "br_gamma", "product_id": "g1", "title": "Sony WH-1000XM5 Wireless Headphones Black",
				"url": "https://gamma.example/g1", "method": "title", "confidence": strictConfidence, "price": fewPurchases, "social_proof": proof(nil, nil, both)},
		},
		"badges": []any{"most_purchased"},
		"messages": []any{
			map[string]any{"kind": "views", "text": "4 people viewed this in the last hour"},
			map[string]any{"kind": "purchases", "text": "3 purchases in the last 24 hours"},
			map[string]any{"kind": "most_purchased", "text": "Bought more often here than at the other shops in the last 24 hours"},
			map[string]any{"kind": "price_below_typical", "text": "Below the typical price paid in the last 30 days"},
			map[string]any{"kind": "offers", "text": "Also sold by 2 other shops"},
		},
		"language":     "en",
		"generated_at": "2026-11-21T10:00:00Z",
	}
	titleLevels(t, got)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Fatalf("got\n%s", g)
	}
}

func TestProductEnrichPriceVerdicts(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	for _, tc := range []struct {
		price   any
		verdict string
	}{{303.9, "below_typical"}, {304, "typical"}, {320, "typical"}, {336, "typical"}, {336.1, "above_typical"}, {nil, "unknown"}} {
		p := map[string]any{"currency": "EUR"}
		if tc.price != nil {
			p["price"] = tc.price
		}
		got := decode[map[string]any](t, f.do("POST", productPath, map[string]any{
			"context": map[string]any{"url": "https://alpha.example/p/wh1000xm5-black"}, "product": p,
		}))
		if v := got["price"].(map[string]any)["verdict"]; v != tc.verdict {
			t.Errorf("price %v: verdict %v, want %s", tc.price, v, tc.verdict)
		}
	}
	// Another currency has no purchases behind it.
	got := decode[map[string]any](t, f.do("POST", productPath, map[string]any{
		"context": map[string]any{"url": "https://alpha.example/p/wh1000xm5-black"}, "product": map[string]any{"price": 299, "currency": "USD"},
	}))
	if p := got["price"].(map[string]any); p["verdict"] != "unknown" || p["reason"] != "too_few_purchases" || p["median"] != nil {
		t.Errorf("USD: %v", p)
	}
}

func TestProductEnrichWithoutMatch(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	// A page at a shop that is not ours: no match, no proof, no price, but
	// the product is found at our shops by its title and maker: beta's
	// listing too, which words the same model with other descriptive words.
	got := decode[map[string]any](t, f.do("POST", productPath, map[string]any{
		"context": map[string]any{"url": "https://elsewhere.example/sony-xm5"},
		"product": map[string]any{"title": "Sony WH-1000XM5 Wireless Headphones - Black", "brand": "Sony"},
	}))
	if got["matched"] != false || got["match"] != nil || got["social_proof"] != nil || got["price"] != nil || got["reason"] != "no_match" {
		t.Fatalf("no match expected: %v", got)
	}
	var offers []string
	for _, o := range got["offers"].([]any) {
		offers = append(offers, o.(map[string]any)["brand_id"].(string)+"/"+o.(map[string]any)["method"].(string))
	}
	if want := []string{"br_beta/title", "br_alpha/title", "br_gamma/title"}; !reflect.DeepEqual(offers, want) {
		t.Errorf("offers %v, want %v", offers, want)
	}
	// Another maker's name: not the same product.
	got = decode[map[string]any](t, f.do("POST", productPath, map[string]any{
		"product": map[string]any{"title": "Sony WH-1000XM5 Wireless Headphones Black", "brand": "Bose"},
	}))
	if n := len(got["offers"].([]any)); n != 0 {
		t.Errorf("offers for another maker: %v", got["offers"])
	}
}

func TestEnrichValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	long := strings.Repeat("x", svc.MaxQueryLen+1)
	many := make([]any, svc.MaxSearchResults+1)
	for i := range many {
		many[i] = map[string]any{"url": "https://shop.example/p"}
	}
	for _, tc := range []struct {
		name, path string
		body       any
		fields     []string
	}{
		{"no results", searchPath, map[string]any{"query": "x"}, []string{"results"}},
		{"null results", searchPath, map[string]any{"results": nil}, []string{"results"}},
		{"too many results", searchPath, map[string]any{"results": many}, []string{"results"}},
		{"every bad field", searchPath, map[string]any{"query": long, "results": []any{
			map[string]any{"title": "ok"},
			map[string]any{"url": "ftp://x", "price": -1, "currency": "eur", "domain": "not a host"},
		}, "user_context": map[string]any{"country": "de", "locale": "german"}},
			[]string{"query", "results[0].url", "results[1].currency", "results[1].domain", "results[1].price", "results[1].url",
				"user_context.country", "user_context.locale"}},
		{"bad identifiers", searchPath, map[string]any{"results": []any{
			map[string]any{"url": "https://a.example/p", "gtin": "12345678", "mpn": "", "brand": "Sony"},
			map[string]any{"url": "https://a.example/p", "gtin": "96385074", "mpn": "A-1"},
		}}, []string{"results[0].gtin", "results[0].mpn"}},
		{"product: bad identifiers", productPath, map[string]any{"product": map[string]any{"title": "x", "gtin": "0036000291453", "mpn": "a\x01"}},
			[]string{"product.gtin", "product.mpn"}},
		{"wrong types", searchPath, `{"query":1,"results":[{"url":"https://a.example","price":"12"}]}`, []string{"query", "results[0].price"}},
		{"product: nothing to match", productPath, map[string]any{"product": map[string]any{"brand": "Sony"}}, []string{"context.url", "product.title"}},
		{"product: every bad field", productPath, map[string]any{
			"context": map[string]any{"url": "//x", "domain": "a/b", "country": "DEU", "locale": "de"},
			"product": map[string]any{"title": strings.Repeat("t", svc.MaxTitleLen+1), "brand": strings.Repeat("b", svc.MaxIDLen+1), "price": -5, "currency": "EURO", "sku": ""},
		}, []string{"context.country", "context.domain", "context.locale", "context.url", "product.brand", "product.currency", "product.price", "product.sku", "product.title"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do("POST", tc.path, tc.body)
			if r.status != 400 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if got := r.fields(t); !reflect.DeepEqual(got, tc.fields) {
				t.Errorf("fields %q, want %q", got, tc.fields)
			}
		})
	}
	if r := f.do("POST", searchPath, map[string]any{"results": []any{}}); r.status != 200 {
		t.Errorf("empty results: %d %s", r.status, r.body)
	}
	if r := f.do("POST", searchPath, "[1,2]"); r.status != 400 {
		t.Errorf("not an object: %d", r.status)
	}
}

func TestEnrichAuthentication(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	body := map[string]any{"results": []any{}}
	if r := f.do("POST", searchPath, body); r.status != 200 {
		t.Errorf("no key: %d", r.status)
	}
	if r := f.do("POST", searchPath, body, "X-svc-Api-Key", f.keys["br_open"]); r.status != 200 {
		t.Errorf("valid key: %d", r.status)
	}
	for _, key := range []string{f.revoked, "sk_nope", ""} {
		for _, path := range []string{searchPath, productPath} {
			if r := f.do("POST", path, body, "X-svc-Api-Key", key); r.status != 401 {
				t.Errorf("%s with key %q: %d", path, key, r.status)
			}
		}
	}
	// Browsers on any page may call it: the preflight is answered.
	r := f.do("OPTIONS", searchPath, nil, "Origin", "chrome-extension://abcdef", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "content-type")
	if r.header.Get("Access-Control-Allow-Origin") != "chrome-extension://abcdef" {
		t.Errorf("preflight: %d %v", r.status, r.header)
	}
}

// A search query is answered and forgotten: nothing of it reaches the
// store's files.
func TestSearchQueryIsNotStored(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	const query = "zebra-unicorn-4711 search"
	if r := f.do("POST", searchPath, map[string]any{"query": query, "results": []any{
		map[string]any{"title": query, "url": "https://alpha.example/search?q=" + strings.ReplaceAll(query, " ", "+")},
	}, "user_context": map[string]any{"country": "DE"}}); r.status != 200 {
		t.Fatal(r.status)
	}
	// Let a commit and a checkpoint happen, then read every file.
	f.do("POST", viewPath, view("br_open", "after", nil), "X-svc-Api-Key", f.keys["br_open"])
	f.stop()
	err := filepath.WalkDir(f.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte("zebra-unicorn")) {
			t.Errorf("%s holds the query", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A product's address only matches on its own shop's site, or on no
// shop's; and a page's own shop is never offered as another shop.
func TestEnrichKeepsShopsApart(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	res := decode[map[string]any](t, f.do("POST", searchPath, map[string]any{"results": []any{
		map[string]any{"url": "https://alpha.example/p/wh1000xm5-black", "domain": "beta.example"},
		map[string]any{"url": "https://alpha.example/p/wh1000xm5-black", "domain": "unknown.example"},
	}}))["results"].([]any)
	if m := res[0].(map[string]any)["matched"]; m != false {
		t.Errorf("alpha's page address matched on beta's site: %v", res[0])
	}
	if m := res[1].(map[string]any)["matched"]; m != true {
		t.Errorf("alpha's page address on a site of no brand: %v", res[1])
	}
	got := decode[map[string]any](t, f.do("POST", productPath, map[string]any{
		"context": map[string]any{"url": "https://alpha.example/p/unknown-page"},
		"product": map[string]any{"title": "Sony WH-1000XM5 Wireless Headphones Black, new"},
	}))
	for _, o := range got["offers"].([]any) {
		if o.(map[string]any)["brand_id"] == "br_alpha" {
			t.Errorf("the page's own shop offered as another: %v", o)
		}
	}
}

// strictConfidence stands, in a wanted answer, for the confidence of a
// title match: the calibration gives each answer its own, so titleLevels
// checks that it is one of the committed model's levels, or of its offer
// levels (internal/match/model.json), at or above the default
// min_confidence, then puts this in its place.
const strictConfidence = "a level of the model"

// titleLevels replaces, in a decoded answer, the confidence of every title
// match by strictConfidence, once it is one the model gives.
func titleLevels(t *testing.T, v any) {
	t.Helper()
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			titleLevels(t, e)
		}
	case map[string]any:
		if v["method"] == "title" {
			c, _ := v["confidence"].(float64)
			ok := false
			// A lookup's level, or an offer's found both ways.
			for _, l := range slices.Concat(match.DefaultModel.Levels, match.DefaultModel.OfferLevels) {
				if math.Abs(math.Round(l.Confidence*1000)/1000-c) < 1e-9 {
					ok = true
				}
			}
			if !ok || c < 0.85 {
				t.Errorf("title match %v: confidence %v is not a level of the model at or above 0.85", v["product_id"], v["confidence"])
			}
			v["confidence"] = strictConfidence
		}
		for _, e := range v {
			titleLevels(t, e)
		}
	}
}
