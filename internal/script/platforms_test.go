package script_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/chrometest"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/script"
	"github.com/svc-project/svc/internal/shops"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
	"github.com/svc-project/svc/internal/tracker"
)

// The storefronts of the platforms, as their themes write them: a product
// of Shopify's Dawn and one of WooCommerce's Storefront, and the shops'
// webhooks, against a real svc (docs/integrations.md).
const (
	shopSecret    = "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"
	wooShopSecret = `k!8Zr^w2(Lq#`
	dawnProduct   = "8123456789012" // Forest Hiker Boot
	dawnVariant42 = "44012345678942"
	dawnVariant43 = "44012345678943"
	wooProduct    = "2417" // Mountain Hoodie
	wooVariation  = "2419"
)

// shopEnv is svc with brand br_shop (domain 127.0.0.1, both platforms'
// secrets), a shop's pages on another origin with Shopify's
// /cart/update.js, and a headless Chromium.
type shopEnv struct {
	t        *testing.T
	svc      *httptest.Server
	pages    *httptest.Server
	key      string
	ctx      context.Context
	errors   chrometest.Errors
	mu       sync.Mutex
	html     map[string]string
	cart     map[string]any // the cart's attributes, as /cart/update.js keeps them
	updates  int            // POSTs to /cart/update.js
	bodies   map[string][]string
	infos    []string
	pagesURL string
}

func newShopEnv(t *testing.T, holdout int, isBot func(string) bool) *shopEnv {
	t.Helper()
	e := &shopEnv{t: t, html: map[string]string{}, cart: map[string]any{}, bodies: map[string][]string{}}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, sqlitetest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	secret, k := svc.NewAPIKey(brandID, time.Now())
	if err := store.CreateBrand(ctx, &svc.Brand{ID: brandID, Name: "Forest Co", Domains: []string{"127.0.0.1"}, Holdout: holdout, CreatedAt: time.Now()}, k); err != nil {
		t.Fatal(err)
	}
	for p, s := range map[string]string{svc.PlatformShopify: shopSecret, svc.PlatformWooCommerce: wooShopSecret} {
		if err := store.SetWebhookSecret(ctx, brandID, p, s, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	e.key = secret
	discard := slog.New(slog.DiscardHandler)
	brands, err := auth.Open(ctx, store, 0, discard)
	if err != nil {
		t.Fatal(err)
	}
	catalog := enrich.NewCatalog()
	tr, err := tracker.Open(ctx, store, tracker.Config{Catalog: catalog, Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	js, err := script.Build()
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(tr, brands, discard, httpapi.Options{Catalog: catalog, Script: js, Sessions: store, IsBot: isBot,
		Insights: &insights.Cache{Store: store, Now: time.Now}}).Handler()
	e.svc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/collect/") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			e.mu.Lock()
			e.bodies[r.URL.Path] = append(e.bodies[r.URL.Path], string(body))
			e.mu.Unlock()
		}
		api.ServeHTTP(w, r)
	}))
	e.pages = httptest.NewServer(http.HandlerFunc(e.shop))
	e.pagesURL = e.pages.URL
	t.Cleanup(func() {
		e.pages.Close()
		e.svc.Close()
		tr.Close()
		brands.Close()
		store.Close()
	})
	e.errors.Info = func(text string) {
		e.mu.Lock()
		e.infos = append(e.infos, text)
		e.mu.Unlock()
	}
	e.ctx = chrometest.Tab(t, 1000, 700)
	e.errors.Listen(t, e.ctx)
	return e
}

// shop serves the pages, and /cart/update.js as Shopify's AJAX API
// answers it: the cart, with the attributes merged in.
func (e *shopEnv) shop(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.URL.Path == "/cart/update.js" && r.Method == "POST" {
		var body struct {
			Attributes map[string]any `json:"attributes"`
		}
		if json.NewDecoder(r.Body).Decode(&body) != nil || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, `{"status":"bad_request","message":"Parameter Missing or Invalid"}`, http.StatusBadRequest)
			return
		}
		for k, v := range body.Attributes {
			e.cart[k] = v
		}
		e.updates++
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(map[string]any{"token": "c1-5f2a", "note": "", "attributes": e.cart, "original_total_price": 0,
			"total_price": 0, "total_discount": 0, "total_weight": 0, "item_count": 0, "items": []any{}, "requires_shipping": false,
			"currency": "EUR", "items_subtotal_price": 0, "cart_level_discount_applications": []any{}})
		return
	}
	page, ok := e.html[r.URL.Path]
	if r.URL.Path == "/favicon.ico" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, page)
}

func (e *shopEnv) page(path, html string) string {
	e.mu.Lock()
	e.html[path] = html
	e.mu.Unlock()
	return e.pagesURL + path
}

func (e *shopEnv) cartSession() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, _ := e.cart[shops.SessionAttribute].(string)
	return s
}

// withSession opens the shop's origin and sets svc.js's session id in
// the tab, so that the test knows the session's holdout arm.
func (e *shopEnv) withSession(id string) {
	e.t.Helper()
	chrometest.Run(e.t, e.ctx, chromedp.Navigate(e.page("/blank", "<!doctype html><title>blank</title>")))
	var ok bool
	chrometest.Eval(e.t, e.ctx, fmt.Sprintf(`(sessionStorage.clear(), sessionStorage.setItem("svc_sid", %q), true)`, id), &ok)
}

// webhook sends a platform's order webhook, signed with the brand's
// secret, and returns the answer's status.
func (e *shopEnv) webhook(platform, topic string, order map[string]any) string {
	e.t.Helper()
	body, _ := json.Marshal(order)
	req, _ := http.NewRequest("POST", e.svc.URL+"/api/connect/"+platform+"/"+brandID, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	switch platform {
	case "shopify":
		req.Header.Set(shops.ShopifyTopicHeader, topic)
		req.Header.Set(shops.ShopifyWebhookIDHeader, fmt.Sprint("wh-", order["id"]))
		req.Header.Set(shops.ShopifySignatureHeader, base64.StdEncoding.EncodeToString(shops.Sign(body, shopSecret)))
	default:
		req.Header.Set(shops.WooCommerceTopicHeader, topic)
		req.Header.Set(shops.WooCommerceSignatureHeader, base64.StdEncoding.EncodeToString(shops.Sign(body, wooShopSecret)))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var a map[string]any
	_ = json.NewDecoder(res.Body).Decode(&a)
	if res.StatusCode != 200 {
		e.t.Fatalf("%s %s: %d %v", platform, topic, res.StatusCode, a)
	}
	s, _ := a["status"].(string)
	return s
}

// pageProof is the proof the page's own svc.js fetches for its product.
func (e *shopEnv) pageProof() map[string]any {
	e.t.Helper()
	var p map[string]any
	chrometest.Eval(e.t, e.ctx, `svc("proof")`, &p)
	return p
}

// experiment is the brand's holdout experiment, per arm: sessions and
// converted.
func (e *shopEnv) experiment() map[string][2]float64 {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.svc.URL+"/api/svc/experiment?brand_id="+brandID, nil)
	req.Header.Set("X-svc-Api-Key", e.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var m struct {
		Arms map[string]struct {
			Sessions  float64 `json:"sessions"`
			Converted float64 `json:"converted"`
		} `json:"arms"`
	}
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil || res.StatusCode != 200 {
		e.t.Fatalf("experiment: %d %v", res.StatusCode, err)
	}
	out := map[string][2]float64{}
	for k, a := range m.Arms {
		out[k] = [2]float64{a.Sessions, a.Converted}
	}
	return out
}

// viewBody waits for the page's view and returns its product.
func (e *shopEnv) viewProduct(n int) map[string]any {
	e.t.Helper()
	var p map[string]any
	testwait.Eventually(e.t, func() error {
		e.mu.Lock()
		defer e.mu.Unlock()
		views := e.bodies["/api/collect/product-view"]
		if len(views) < n {
			return fmt.Errorf("%d views, want %d", len(views), n)
		}
		var v struct {
			Product map[string]any `json:"product"`
		}
		if err := json.Unmarshal([]byte(views[n-1]), &v); err != nil {
			return err
		}
		p = v.Product
		return nil
	})
	return p
}

// sessionIn returns a session id in the arm under a holdout of 50%.
func sessionIn(arm string) string {
	for i := 0; ; i++ {
		if id := fmt.Sprintf("sess-%s-%d", arm, i); holdout.ArmOf(id, 50) == arm {
			return id
		}
	}
}

// dawnPage is a product page as Shopify's Dawn theme renders it, with what
// Shopify's {{ content_for_header }} adds (window.Shopify,
// window.ShopifyAnalytics.meta): the JSON-LD names the selected variant's
// SKU and no product id; the product id and the variants are in the meta.
func dawnPage(origin, head string) string {
	return `<!doctype html>
<html class="no-js" lang="en">
<head>
<meta charset="utf-8">
<title>Forest Hiker Boot &ndash; Forest Co</title>
<script>window.Shopify = window.Shopify || {};
Shopify.shop = "forest-co.myshopify.com";
Shopify.locale = "en";
Shopify.currency = {"active":"EUR","rate":"1.0"};
Shopify.country = "DE";
Shopify.theme = {"name":"Dawn","id":140737488355328,"schema_name":"Dawn","schema_version":"15.2.0","theme_store_id":887,"role":"main"};
Shopify.routes = Shopify.routes || {};
Shopify.routes.root = "/";</script>
<script>window.ShopifyAnalytics = window.ShopifyAnalytics || {};
window.ShopifyAnalytics.meta = window.ShopifyAnalytics.meta || {};
window.ShopifyAnalytics.meta.currency = 'EUR';
var meta = {"product":{"id":` + dawnProduct + `,"gid":"gid:\/\/shopify\/Product\/` + dawnProduct + `","vendor":"Forest Co","type":"Boots","variants":[` +
		`{"id":` + dawnVariant42 + `,"price":12900,"name":"Forest Hiker Boot - EU 42","public_title":"EU 42","sku":"FHB-42"},` +
		`{"id":` + dawnVariant43 + `,"price":12900,"name":"Forest Hiker Boot - EU 43","public_title":"EU 43","sku":"FHB-43"}]},` +
		`"page":{"pageType":"product","resourceType":"product","resourceId":` + dawnProduct + `}};
for (var attr in meta) {
  window.ShopifyAnalytics.meta[attr] = meta[attr];
}</script>
` + head + `
</head>
<body class="gradient">
<main id="MainContent" class="content-for-layout focus-none" role="main" tabindex="-1">
<section id="shopify-section-template--main" class="shopify-section section">
<product-info id="MainProduct-template--main" data-section="template--main" data-product-id="` + dawnProduct + `" data-update-url="true">
<div class="product__title"><h1>Forest Hiker Boot</h1></div>
<div class="price__regular"><span class="price-item price-item--regular">€129,00 EUR</span></div>
<variant-selects id="variant-selects-template--main" data-section="template--main">
<fieldset class="js product-form__input product-form__input--pill"><legend class="form__label">Size</legend>
<input type="radio" id="size-42" name="Size" value="EU 42" checked><label for="size-42">EU 42</label>
<input type="radio" id="size-43" name="Size" value="EU 43"><label for="size-43">EU 43</label></fieldset>
</variant-selects>
<product-form class="product-form"><form method="post" action="/cart/add" id="product-form-template--main" accept-charset="UTF-8" class="form" enctype="multipart/form-data" novalidate="novalidate" data-type="add-to-cart-form">
<input type="hidden" name="id" value="` + dawnVariant42 + `" class="product-variant-id">
<button id="ProductSubmitButton-template--main" type="submit" name="add" class="product-form__submit button button--full-width button--secondary"><span>Add to cart</span></button>
</form></product-form>
</product-info>
<script type="application/ld+json">
{
  "@context": "http://schema.org/",
  "@type": "Product",
  "name": "Forest Hiker Boot",
  "url": "` + origin + `/products/forest-hiker-boot",
  "image": ["https://forest-co.example/cdn/shop/files/boot.jpg?v=1732000000&width=1920"],
  "description": "A light hiking boot for forest trails.",
  "sku": "FHB-42",
  "brand": {"@type": "Brand", "name": "Forest Co"},
  "offers": [
    {"@type": "Offer", "sku": "FHB-42", "availability": "http://schema.org/InStock", "price": 129.0, "priceCurrency": "EUR", "url": "` + origin + `/products/forest-hiker-boot?variant=` + dawnVariant42 + `"},
    {"@type": "Offer", "sku": "FHB-43", "availability": "http://schema.org/InStock", "price": 129.0, "priceCurrency": "EUR", "url": "` + origin + `/products/forest-hiker-boot?variant=` + dawnVariant43 + `"}
  ]
}
</script>
</section>
</main>
</body>
</html>`
}

// shopifyOrder is an orders/create webhook's order of one line of the
// variant, with the cart's attributes in note_attributes as Shopify gives
// them.
func shopifyOrder(id int64, variant, sku string, session string) map[string]any {
	notes := []any{}
	if session != "" {
		notes = append(notes, map[string]any{"name": shops.SessionAttribute, "value": session})
	}
	return map[string]any{
		"id": id, "admin_graphql_api_id": fmt.Sprint("gid://shopify/Order/", id), "name": "#1001", "currency": "EUR",
		"total_price": "129.00", "created_at": time.Now().UTC().Format(time.RFC3339), "cancelled_at": nil, "test": false,
		"financial_status": "paid", "note": nil, "note_attributes": notes,
		"line_items": []any{map[string]any{"id": id + 1, "product_id": json.Number(dawnProduct), "variant_id": json.Number(variant), "sku": sku,
			"title": "Forest Hiker Boot", "variant_title": strings.TrimPrefix(sku, "FHB-"), "name": "Forest Hiker Boot - EU " + strings.TrimPrefix(sku, "FHB-"),
			"quantity": 2, "price": "129.00"}},
		"shipping_address": map[string]any{"country_code": "DE", "city": "Berlin"},
	}
}

// The page names the product as the webhooks do: Shopify's product id, its
// variants' ids and SKUs as other names; an order of another variant than
// the page shows counts in the page's own proof; the session goes into the
// cart's attributes once, and the order's webhook carries it back.
func TestShopifyDawnPageCountsWebhookOrders(t *testing.T) {
	e := newShopEnv(t, 0, nil)
	url := e.page("/products/forest-hiker-boot", dawnPage(e.pagesURL, script.Snippet(e.svc.URL+"/svc.js", "svc", brandID)))
	chrometest.Run(t, e.ctx, chromedp.Navigate(url))
	p := e.viewProduct(1)
	if p["product_id"] != dawnProduct || p["sku"] != "FHB-42" || p["title"] != "Forest Hiker Boot" {
		t.Fatalf("the view's product %v: want Shopify's product id, the JSON-LD's SKU and name", p)
	}
	aliases := fmt.Sprint(p["aliases"])
	for _, want := range []string{dawnVariant42, dawnVariant43, "FHB-42", "FHB-43"} {
		if !strings.Contains(aliases, want) {
			t.Errorf("the view's aliases %v lack %s", p["aliases"], want)
		}
	}
	testwait.Eventually(t, func() error {
		if e.cartSession() == "" {
			return fmt.Errorf("no %s in the cart's attributes yet", shops.SessionAttribute)
		}
		return nil
	})
	var sid string
	chrometest.Eval(t, e.ctx, `sessionStorage.getItem("svc_sid")`, &sid)
	if e.cartSession() != sid {
		t.Fatalf("the cart's session %q is not the page's %q", e.cartSession(), sid)
	}
	if pr := e.pageProof(); pr["purchases"] != 0.0 {
		t.Fatalf("purchases before any order: %v", pr)
	}

	// An order of the other size, with the session the cart carried.
	if s := e.webhook("shopify", "orders/create", shopifyOrder(5843726532891, dawnVariant43, "FHB-43", e.cartSession())); s != svc.StatusAccepted {
		t.Fatalf("the webhook: %s", s)
	}
	if pr := e.pageProof(); pr["purchases"] != 1.0 || pr["units"] != 2.0 {
		t.Fatalf("the page's proof after an order of EU 43: %v; want 1 purchase of 2 units", pr)
	}
	// The next page of the session writes nothing to the cart again.
	chrometest.Run(t, e.ctx, chromedp.Navigate(url))
	e.viewProduct(2)
	var shown string
	chrometest.WaitFor(t, e.ctx, `(document.querySelector("body > div:last-of-type")?.shadowRoot?.textContent || "").includes("purchase")`)
	chrometest.Eval(t, e.ctx, `document.querySelector("body > div:last-of-type").shadowRoot.textContent`, &shown)
	if !strings.Contains(shown, "2 purchases") && !strings.Contains(shown, "1 purchase") {
		t.Fatalf("the widget shows %q", shown)
	}
	e.mu.Lock()
	updates := e.updates
	e.mu.Unlock()
	if updates != 1 {
		t.Fatalf("/cart/update.js was called %d times in one session, want once", updates)
	}
	e.errors.None(t)
}

// A session held out of the widget buys: its webhook order counts in the
// held-out arm, and a session shown the widget that does not buy counts
// in the shown arm with none.
func TestShopifyWebhookOrderJoinsItsSessionsArm(t *testing.T) {
	e := newShopEnv(t, 50, nil)
	url := e.page("/products/forest-hiker-boot", dawnPage(e.pagesURL, script.Snippet(e.svc.URL+"/svc.js", "svc", brandID)))
	held, shown := sessionIn(holdout.ArmHeldOut), sessionIn(holdout.ArmShown)
	e.withSession(shown)
	chrometest.Run(t, e.ctx, chromedp.Navigate(url))
	e.viewProduct(1)
	e.withSession(held)
	chrometest.Run(t, e.ctx, chromedp.Navigate(url))
	e.viewProduct(2)
	testwait.Eventually(t, func() error {
		if got := e.cartSession(); got != held {
			return fmt.Errorf("the cart's session is %q, want %q", got, held)
		}
		return nil
	})
	if s := e.webhook("shopify", "orders/create", shopifyOrder(5843726532892, dawnVariant42, "FHB-42", e.cartSession())); s != svc.StatusAccepted {
		t.Fatalf("the webhook: %s", s)
	}
	if got := e.experiment(); got[holdout.ArmHeldOut] != [2]float64{1, 1} || got[holdout.ArmShown] != [2]float64{1, 0} {
		t.Fatalf("the experiment's arms (sessions, converted): %v; want the held-out session converted", got)
	}
	e.errors.None(t)
}

// storefrontPage is a single product page as WooCommerce's Storefront
// theme renders it: WordPress's body classes with the post id, and
// WooCommerce's structured data (the parent's SKU, @id the page's URL
// with #product) in the footer.
func storefrontPage(origin, head string) string {
	return `<!doctype html>
<html lang="en-US">
<head>
<meta charset="UTF-8">
<title>Mountain Hoodie &#8211; Peak Outfitters</title>
` + head + `
</head>
<body class="product-template-default single single-product postid-` + wooProduct + ` wp-embed-responsive theme-storefront woocommerce woocommerce-page woocommerce-no-js storefront-secondary-navigation storefront-align-wide right-sidebar woocommerce-active">
<div id="page" class="hfeed site">
<div id="content" class="site-content" tabindex="-1"><div class="col-full"><div class="woocommerce"></div>
<div id="primary" class="content-area"><main id="main" class="site-main" role="main">
<div id="product-` + wooProduct + `" class="product type-product post-` + wooProduct + ` status-publish first instock product_cat-hoodies has-post-thumbnail taxable shipping-taxable purchasable product-type-variable">
<div class="summary entry-summary">
<h1 class="product_title entry-title">Mountain Hoodie</h1>
<p class="price"><span class="woocommerce-Price-amount amount"><bdi>59,00&nbsp;<span class="woocommerce-Price-currencySymbol">&euro;</span></bdi></span></p>
<form class="variations_form cart" action="` + origin + `/product/mountain-hoodie/" method="post" enctype='multipart/form-data' data-product_id="` + wooProduct + `">
<table class="variations" cellspacing="0" role="presentation"><tbody><tr><th class="label"><label for="pa_size">Size</label></th>
<td class="value"><select id="pa_size" name="attribute_pa_size" data-attribute_name="attribute_pa_size"><option value="">Choose an option</option><option value="m">M</option><option value="l">L</option></select></td></tr></tbody></table>
<button type="submit" class="single_add_to_cart_button button alt">Add to cart</button>
<input type="hidden" name="add-to-cart" value="` + wooProduct + `"><input type="hidden" name="product_id" value="` + wooProduct + `"><input type="hidden" name="variation_id" class="variation_id" value="0">
</form>
<div class="product_meta"><span class="sku_wrapper">SKU: <span class="sku">MH-100</span></span></div>
</div></div>
</main></div></div></div></div>
<script type="application/ld+json">{"@context":"https:\/\/schema.org\/","@graph":[{"@context":"https:\/\/schema.org\/","@type":"BreadcrumbList","itemListElement":[{"@type":"ListItem","position":1,"item":{"name":"Home","@id":"` + strings.ReplaceAll(origin, "/", `\/`) + `"}},{"@type":"ListItem","position":2,"item":{"name":"Mountain Hoodie","@id":"` + strings.ReplaceAll(origin, "/", `\/`) + `\/product\/mountain-hoodie\/"}}]},{"@context":"https:\/\/schema.org\/","@type":"Product","@id":"` + strings.ReplaceAll(origin, "/", `\/`) + `\/product\/mountain-hoodie\/#product","name":"Mountain Hoodie","url":"` + strings.ReplaceAll(origin, "/", `\/`) + `\/product\/mountain-hoodie\/","description":"A warm hoodie for cold summits.","image":"https:\/\/peak.example\/wp-content\/uploads\/2026\/11\/hoodie.jpg","sku":"MH-100","offers":[{"@type":"AggregateOffer","lowPrice":"59.00","highPrice":"65.00","offerCount":2,"priceValidUntil":"2027-12-31","availability":"http:\/\/schema.org\/InStock","url":"` + strings.ReplaceAll(origin, "/", `\/`) + `\/product\/mountain-hoodie\/","seller":{"@type":"Organization","name":"Peak Outfitters","url":"` + strings.ReplaceAll(origin, "/", `\/`) + `"},"priceCurrency":"EUR"}]}]}</script>
</body>
</html>`
}

// orderReceivedPage is WooCommerce's thank-you page under Storefront.
func orderReceivedPage(head string) string {
	return `<!doctype html>
<html lang="en-US">
<head><meta charset="UTF-8"><title>Checkout &#8211; Peak Outfitters</title>
` + head + `
</head>
<body class="page-template-default page page-id-8 wp-embed-responsive theme-storefront woocommerce-checkout woocommerce-page woocommerce-order-received woocommerce-no-js storefront-align-wide right-sidebar woocommerce-active">
<div class="woocommerce"><div class="woocommerce-order">
<p class="woocommerce-notice woocommerce-notice--success woocommerce-thankyou-order-received">Thank you. Your order has been received.</p>
<ul class="woocommerce-order-overview woocommerce-thankyou-order-details order_details">
<li class="woocommerce-order-overview__order order">Order number: <strong>4711</strong></li>
</ul></div></div>
</body>
</html>`
}

// wooOrder is an order webhook's order, paid, of the hoodie's variation.
func wooOrder(id int, key string) map[string]any {
	now := time.Now().UTC()
	return map[string]any{
		"id": id, "parent_id": 0, "number": fmt.Sprint(id), "order_key": key, "created_via": "checkout", "status": "processing", "currency": "EUR",
		"date_created_gmt": now.Format("2006-01-02T15:04:05"), "date_paid_gmt": now.Format("2006-01-02T15:04:05"), "total": "59.00",
		"billing":  map[string]any{"first_name": "Ada", "email": "ada@example.com"},
		"shipping": map[string]any{"country": "AT", "city": "Wien"},
		"line_items": []any{map[string]any{"id": 315, "name": "Mountain Hoodie - M", "product_id": json.Number(wooProduct), "variation_id": json.Number(wooVariation),
			"quantity": 1, "sku": "MH-100-M", "price": 59}},
	}
}

// The Storefront page names the product by its post id, as the webhooks
// do; the order-received page links the order to the session, which the
// signed webhook confirms with the order's key: the order counts in the
// page's proof and in the session's arm.
func TestWooCommerceOrderReceivedLinksTheOrder(t *testing.T) {
	e := newShopEnv(t, 50, nil)
	snippet := strings.Replace(script.Snippet(e.svc.URL+"/svc.js", "svc", brandID), "<script>", "<script data-svc-debug>", 1)
	product := e.page("/product/mountain-hoodie/", storefrontPage(e.pagesURL, snippet))
	buyer := sessionIn(holdout.ArmShown)
	e.withSession(buyer)
	chrometest.Run(t, e.ctx, chromedp.Navigate(product))
	p := e.viewProduct(1)
	if p["product_id"] != wooProduct || p["sku"] != "MH-100" || p["title"] != "Mountain Hoodie" {
		t.Fatalf("the view's product %v: want the post id, the JSON-LD's SKU and name", p)
	}
	if a := fmt.Sprint(p["aliases"]); !strings.Contains(a, "MH-100") || !strings.Contains(a, "/product/mountain-hoodie/#product") {
		t.Fatalf("the view's aliases %v: want the JSON-LD's sku and @id", p["aliases"])
	}
	e.mu.Lock()
	updates := e.updates
	e.mu.Unlock()
	if updates != 0 {
		t.Fatal("a WooCommerce page wrote Shopify's cart")
	}

	// The thank-you page comes before the webhook: the link waits.
	chrometest.Run(t, e.ctx, chromedp.Navigate(e.page("/checkout/order-received/4711/", orderReceivedPage(snippet))+"?key=wc_order_Kq3vB8xN2mPzL"))
	testwait.Eventually(t, func() error {
		e.mu.Lock()
		defer e.mu.Unlock()
		if n := len(e.bodies["/api/collect/order-session"]); n != 1 {
			return fmt.Errorf("%d links sent, want 1", n)
		}
		return nil
	})
	e.mu.Lock()
	var link map[string]string
	_ = json.Unmarshal([]byte(e.bodies["/api/collect/order-session"][0]), &link)
	e.mu.Unlock()
	if link["order_id"] != "4711" || link["order_key"] != "wc_order_Kq3vB8xN2mPzL" || link["session_id"] != buyer || link["brand_id"] != brandID {
		t.Fatalf("the link sent: %v", link)
	}
	testwait.Eventually(t, func() error {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, m := range e.infos {
			if strings.Contains(m, "order 4711: pending") {
				return nil
			}
		}
		return fmt.Errorf("debug mode said %q", e.infos)
	})
	// A stranger's webhook-less guess links nothing; the signed webhook
	// with the key links the order.
	if s := e.webhook("woocommerce", "order.created", wooOrder(4711, "wc_order_Kq3vB8xN2mPzL")); s != svc.StatusAccepted {
		t.Fatalf("the webhook: %s", s)
	}
	if got := e.experiment(); got[holdout.ArmShown] != [2]float64{1, 1} {
		t.Fatalf("the experiment's arms (sessions, converted): %v; want the shown session converted", got)
	}
	chrometest.Run(t, e.ctx, chromedp.Navigate(product))
	if pr := e.pageProof(); pr["purchases"] != 1.0 {
		t.Fatalf("the page's proof after an order of the variation: %v", pr)
	}
	e.errors.None(t)
}

// A view from a browser the service takes for a bot is answered but not
// counted; debug mode says so, with the user agent.
func TestDebugSaysWhenAViewIsABots(t *testing.T) {
	e := newShopEnv(t, 0, func(ua string) bool { return strings.Contains(ua, "HeadlessChrome") })
	snippet := strings.Replace(script.Snippet(e.svc.URL+"/svc.js", "svc", brandID), "<script>", "<script data-svc-debug>", 1)
	chrometest.Run(t, e.ctx, chromedp.Navigate(e.page("/products/forest-hiker-boot", dawnPage(e.pagesURL, snippet))))
	testwait.Eventually(t, func() error {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, m := range e.infos {
			if strings.Contains(m, "view not counted: bot") && strings.Contains(m, "HeadlessChrome/") {
				return nil
			}
		}
		return fmt.Errorf("debug mode said %q", e.infos)
	})
}
