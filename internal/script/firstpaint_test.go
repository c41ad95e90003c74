package script_test

import (
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/svc-project/svc/internal/chrometest"
)

// BenchmarkWidgetFirstPaint measures the widget's time to first paint in
// Chromium: from the page's navigation to the first frame with the
// widget's text, every request to the service held 50 ms (a network's
// round trip). A benchmark, not a test: it asserts nothing about time. It
// reports the median of every load (15 an iteration), inline and corner,
// for the figures of docs/client-script.md (Size):
//
//	go test -run '^$' -bench WidgetFirstPaint -benchtime 1x -v ./internal/script/
func BenchmarkWidgetFirstPaint(b *testing.B) {
	e := newEnv(b)
	e.seed("p-paint", 5, 2)
	e.latency.Store(int64(50 * time.Millisecond))
	// The page notes the first animation frame in which the widget has text.
	const probe = `<script>(function f(){const h=document.querySelector('[data-svc-proof]')||document.body&&document.body.lastElementChild,w=h&&h.shadowRoot&&h.shadowRoot.querySelector('.w p');if(w)window.painted=performance.now();else requestAnimationFrame(f)})()</script>`
	kinds := []string{"inline", "corner"}
	times := make([][]float64, len(kinds)) // every load's, of every iteration
	for b.Loop() {
		for k, kind := range kinds {
			body := `<main><h1>Shoe</h1></main>`
			if kind == "inline" {
				body = `<main><h1>Shoe</h1><div data-svc-proof></div></main>`
			}
			url := e.page("/paint/"+kind, productPage("en", probe+e.snippet()+`<script>svc("product",{product_id:"p-paint"})</script>`, "", body))
			for range 15 {
				// A new tab each time, a new session, nothing cached.
				ctx, cancel := chromedp.NewContext(e.ctx)
				var ms float64
				if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
					b.Fatal(err)
				}
				chrometest.Run(b, ctx, chromedp.Navigate(url))
				chrometest.WaitFor(b, ctx, `window.painted`)
				chrometest.Eval(b, ctx, `window.painted`, &ms)
				cancel()
				times[k] = append(times[k], ms)
			}
		}
	}
	for k, kind := range kinds {
		ts := times[k]
		slices.Sort(ts)
		b.Logf("%s widget: first paint at %.0f ms (median of %d; min %.0f, max %.0f), 50 ms per request to the service",
			kind, ts[len(ts)/2], len(ts), ts[0], ts[len(ts)-1])
		b.ReportMetric(ts[len(ts)/2], kind+"-paint-ms")
	}
}
