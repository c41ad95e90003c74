package script

import (
	"encoding/json"
	"html/template"
	"net/http"
)

// DemoProduct is what the demo page shows.
type DemoProduct struct {
	BrandID, ProductID, SKU, Title, Description string
	Price                                       float64
	Currency                                    string
	URL                                         string
}

var demoPage = template.Must(template.New("demo").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.P.Title}} – Demo Shop</title>
<script type="application/ld+json">{{.JSONLD}}</script>
{{.Snippet}}
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1f2933; background: #f5f7fa; }
  header { background: #102a43; color: #fff; padding: 12px 24px; font-weight: 600; }
  main { max-width: 880px; margin: 32px auto; padding: 0 24px; display: grid; grid-template-columns: 1fr 1fr; gap: 32px; }
  .photo { aspect-ratio: 1; border-radius: 12px; background: linear-gradient(135deg, #9fb3c8, #486581); }
  h1 { margin: 0 0 8px; font-size: 28px; }
  .price { font-size: 22px; font-weight: 600; margin: 8px 0 16px; }
  button { font: inherit; padding: 10px 20px; border: 0; border-radius: 8px; background: #0b69a3; color: #fff; cursor: pointer; }
  .proof { margin: 16px 0; min-height: 3.625rem; } /* the widget on two lines: docs/client-script.md */
  .note { color: #486581; font-size: 0.875rem; } /* 5.7:1 on the page background */
  @media (max-width: 640px) { main { grid-template-columns: 1fr; } }
</style>
</head>
<body>
<header>Demo Shop</header>
<main>
  <div class="photo" role="img" aria-label="{{.P.Title}}"></div>
  <div>
    <h1>{{.P.Title}}</h1>
    <div class="price">{{printf "%.2f" .P.Price}} {{.P.Currency}}</div>
    <p>{{.P.Description}}</p>
    <div class="proof" data-svc-proof></div>
    <button type="button" onclick="svc('purchase',{order_id:'demo-'+Date.now(),currency:'{{.P.Currency}}',total_value:{{.P.Price}},items:[{product_id:'{{.P.ProductID}}',quantity:1,unit_price:{{.P.Price}}}]});this.textContent='Bought (for real, in the counts)'">Buy now</button>
    <p class="note">This page embeds the svc snippet for brand {{.P.BrandID}}. The product comes from the page's JSON-LD.
    Each browser tab is a session: open the page in more tabs and reload to see the count of viewers grow.</p>
  </div>
</main>
</body>
</html>
`))

// DemoPage serves a product page that embeds snippet, as a brand would.
func DemoPage(p DemoProduct, snippet string) (http.Handler, error) {
	ld, err := json.Marshal(map[string]any{
		"@context": "https://schema.org", "@type": "Product",
		"productID": p.ProductID, "sku": p.SKU, "name": p.Title, "description": p.Description, "url": p.URL,
		"offers": map[string]any{"@type": "Offer", "price": p.Price, "priceCurrency": p.Currency},
	})
	if err != nil {
		return nil, err
	}
	data := struct {
		P       DemoProduct
		JSONLD  template.JS
		Snippet template.HTML
	}{p, template.JS(ld), template.HTML(snippet)} // both built here, from escaped JSON
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_ = demoPage.Execute(w, data)
	}), nil
}
