package script_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// reports returns the kinds of the widget reports the page sent.
func (e *env) reports() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var kinds []string
	for _, b := range e.bodies["/api/collect/widget"] {
		var r struct {
			SessionID string `json:"session_id"`
			Kind      string `json:"kind"`
		}
		json.Unmarshal([]byte(b), &r)
		if r.SessionID == "" {
			kinds = append(kinds, "no session")
			continue
		}
		kinds = append(kinds, r.Kind)
	}
	return kinds
}

func (e *env) waitReports(n int) []string {
	e.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if r := e.reports(); len(r) >= n {
			return r
		}
	}
	e.t.Fatalf("reports: %v, want %d", e.reports(), n)
	return nil
}

// svc.js reports the widget seen once a page, and a click on it; a click
// on the corner badge's close button is no click on the widget, and a
// page whose widget shows nothing reports nothing.
func TestWidgetReports(t *testing.T) {
	e := newEnv(t)
	e.seed("p-seen", 4, 1)
	e.seed("p-none", 1, 0)
	inline := productPage("en", e.snippet()+`<script>svc("product",{product_id:"p-seen"})</script>`, "", `<div data-svc-proof></div>`)
	e.run(chromedp.Navigate(e.page("/seen", inline)))
	e.waitFor(widgetText + ` != ""`)
	if r := e.waitReports(1); len(r) != 1 || r[0] != "seen" {
		t.Fatalf("after the widget showed: %v", r)
	}
	var ok bool
	e.eval(`document.querySelector('[data-svc-proof]').shadowRoot.querySelector('.w p').click(),true`, &ok)
	if r := e.waitReports(2); r[1] != "click" {
		t.Fatalf("after a click: %v", r)
	}
	e.eval(`document.body.click(),true`, &ok) // the page itself
	time.Sleep(200 * time.Millisecond)

	e.run(chromedp.Navigate(e.page("/none", productPage("en", e.snippet()+`<script>svc("product",{product_id:"p-none"})</script>`, "", `<div data-svc-proof></div>`))))
	e.waitProofs(0)
	time.Sleep(300 * time.Millisecond)

	corner := productPage("en", e.snippet()+`<script>svc("product",{product_id:"p-seen"})</script>`, "", `<p>content</p>`)
	e.run(chromedp.Navigate(e.page("/corner", corner)))
	e.waitFor(`document.body.lastElementChild.shadowRoot&&document.body.lastElementChild.shadowRoot.querySelector('.w:not([hidden]):not(.e) button')`)
	e.waitReports(3)
	e.eval(`document.body.lastElementChild.shadowRoot.querySelector('.w button').click(),true`, &ok)
	time.Sleep(300 * time.Millisecond)
	if r := e.reports(); len(r) != 3 || r[2] != "seen" {
		t.Fatalf("reports %v: want seen, click, then seen for the badge and nothing for its close button nor the page", r)
	}
}
