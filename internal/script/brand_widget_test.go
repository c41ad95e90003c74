package script_test

import (
	"strings"
	"testing"
	"time"

	svc "github.com/svc-project/svc"
)

// A brand's widget settings from its proof: languages en,fr make a German
// page show English (the list's first), and position end puts the corner
// badge in the bottom-right corner and the toasts in the other one.
func TestBrandWidgetSettings(t *testing.T) {
	e := newEnv(t, func(b *svc.Brand) { b.WidgetPosition, b.Languages = "end", "en,fr" })
	e.seed("p-t0", 4, 0)
	e.bought("o-0", "p-t1", "Rain Jacket", 12*time.Minute, "DE", "Berlin")
	e.bought("o-1", "p-t2", "Wool Socks", 40*time.Minute, "DE", "Berlin")
	e.bought("o-2", "p-t3", "Sun Hat", 2*time.Hour, "DE", "Berlin")
	ld := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","productID":"p-t0","name":"Trail Shoe"}</script>`
	page := func(lang, path string) string {
		return e.page(path, productPage(lang, harness+e.snippet(), ld, `<main><h1>Trail Shoe</h1></main><span data-svc-variant="inline toasts"></span>`))
	}
	badge := `document.querySelector('body > div:not([data-svc-toasts])').shadowRoot.querySelector('.w')`
	badgeText := `[...` + badge + `.querySelectorAll('p')].map(p=>p.textContent).join('|')`

	t.Run("languages", func(t *testing.T) {
		e.t = t
		e.freshToasts(page("de", "/brand/de"))
		e.waitFor(badgeText + ` != ""`)
		if got := e.text(badgeText); !strings.HasSuffix(got, " people viewed this in the last hour") {
			t.Fatalf("German page, brand languages en,fr: widget says %q, want English", got)
		}
		// The toasts' corner code speaks the same language.
		if got := e.text(`document.querySelector('body > div:not([data-svc-toasts])').shadowRoot.querySelector('button').getAttribute('aria-label')`); got != "Dismiss product activity" {
			t.Fatalf("badge's close button %q, want English", got)
		}
		// French is in the list: a French page speaks French.
		e.freshToasts(page("fr", "/brand/fr"))
		e.waitFor(badgeText + ` != ""`)
		if got := e.text(badgeText); !strings.HasSuffix(got, " personnes ont consulté cet article au cours de la dernière heure") {
			t.Fatalf("French page: widget says %q, want French", got)
		}
		e.noErrors()
	})

	t.Run("position end", func(t *testing.T) {
		e.t = t
		e.freshToasts(page("en", "/brand/en"))
		e.firstToast()
		var p struct{ BadgeRight, ToastLeft, BadgeBottom float64 }
		e.eval(`(()=>{const t=`+toast+`.getBoundingClientRect(),b=`+badge+`.getBoundingClientRect();return {BadgeRight:innerWidth-b.right,ToastLeft:t.left,BadgeBottom:innerHeight-b.bottom}})()`, &p)
		if p.BadgeRight != 16 || p.ToastLeft != 16 || p.BadgeBottom != 16 {
			t.Fatalf("badge %g px from the right, toast %g px from the left; want 16 and 16 (%+v)", p.BadgeRight, p.ToastLeft, p)
		}
		e.shotOf("brand-end", `({getBoundingClientRect:()=>({x:0,y:0,width:innerWidth,height:innerHeight})})`)
		// A page without a product learns the corner from the feed's
		// first product's proof: alone, the toast sits at the end.
		home := e.page("/brand/home", productPage("en", harness+e.snippet(), "", `<main><h1>Home</h1></main><span data-svc-variant="toasts"></span>`))
		e.freshToasts(home)
		e.firstToast()
		var right float64
		e.eval(`innerWidth-`+toast+`.getBoundingClientRect().right`, &right)
		if right != 16 {
			t.Fatalf("page without a product: toast %g px from the right, want 16", right)
		}
		e.noErrors()
	})
}
