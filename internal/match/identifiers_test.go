package match

import (
	"testing"

	"github.com/svc-project/svc"
)

// TestIdentifiers finds products by GTIN and by part number with maker,
// follows a changed GTIN, and refuses a title match whose GTIN clashes.
func TestIdentifiers(t *testing.T) {
	str := func(s string) *string { return &s }
	title := "Logitech MX Keys Wireless Keyboard"
	for _, how := range []string{"put", "load"} {
		c := New()
		ps := []svc.Product{
			{Ref: 1, BrandID: "a", ProductID: "a1", Title: &title, GTIN: str("097855157539"), Maker: str("Logitech")},
			{Ref: 2, BrandID: "b", ProductID: "b1", Title: str("Tastatur"), GTIN: str("0097855157539")},
			{Ref: 3, BrandID: "c", ProductID: "c1", Title: str("MX Keys"), MPN: str("920-011587"), Maker: str("Logitech")},
			{Ref: 4, BrandID: "c", ProductID: "c2", Title: &title, GTIN: str("4006381333931")},
		}
		if how == "put" {
			for i := range ps {
				c.Put(&ps[i])
			}
		} else {
			c.Load(func(put func(*svc.Product)) error {
				for i := range ps {
					put(&ps[i])
				}
				return nil
			})
		}
		if h, ok := c.Lookup("b", Query{Title: "anything", GTIN: "00097855157539"}); !ok || h.ProductID != "b1" || h.Method != MethodGTIN {
			t.Errorf("%s: by GTIN: %+v %v", how, h, ok)
		}
		if h, ok := c.Lookup("c", Query{MPN: "920 011587", Maker: "LOGITECH"}); !ok || h.ProductID != "c1" || h.Method != MethodMPN {
			t.Errorf("%s: by MPN: %+v %v", how, h, ok)
		}
		if h, ok := c.Lookup("c", Query{MPN: "920011587", Maker: "Razer"}); ok {
			t.Errorf("%s: by MPN of another maker: %+v", how, h)
		}
		if h, ok := c.Lookup("c", Query{Title: title, GTIN: "00097855157539"}); ok {
			t.Errorf("%s: a title match despite another GTIN: %+v", how, h)
		}
		offers := c.Offers("a", Query{Title: title, GTIN: "00097855157539"}, "", 10)
		if len(offers) != 1 || offers[0].ProductID != "b1" || offers[0].Method != MethodGTIN {
			t.Errorf("%s: offers %+v", how, offers)
		}
		// A new GTIN replaces the old one.
		c.Put(&svc.Product{Ref: 2, BrandID: "b", ProductID: "b1", GTIN: str("96385074")})
		if _, ok := c.Lookup("b", Query{GTIN: "00097855157539"}); ok {
			t.Errorf("%s: the old GTIN still matches", how)
		}
		if h, ok := c.Lookup("b", Query{GTIN: "00000096385074"}); !ok || h.ProductID != "b1" || h.GTIN != "00000096385074" {
			t.Errorf("%s: the new GTIN: %+v %v", how, h, ok)
		}
	}
}
