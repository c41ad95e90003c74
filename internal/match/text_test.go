package match

import (
	"slices"
	"testing"

	"github.com/svc-project/svc"
)

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"Apple iPhone 15 128GB Black":        {"apple", "iphone", "15", "128gb", "black"},
		"apple iphone15 128 gb – black":      {"apple", "iphone", "15", "128gb", "black"},
		"Crème Brûlée Torch for the Kitchen": {"creme", "brulee", "torch", "kitchen"},
		"Müsli mit Früchten, 500 g":          {"musli", "fruchten", "500g"},
		"WH-1000XM5 Wireless Headphones":     {"wh", "1000", "xm", "5", "wireless", "headphones"},
		"T-Shirt (Größe M) | Shop":           {"t", "shirt", "grosse", "m", "shop"},
		"":                                   nil,
		"   ---   ":                          nil,
		"Ｆｕｌｌｗｉｄｔｈ ＴＶ ５５":                    {"fullwidth", "tv", "55"},
		"Galaxy A51 128 Go, 2To":             {"galaxy", "a", "51", "128gb", "2tb"},
		"1 to 4 players":                     {"1", "4", "players"},
		"Galaxy A21s 3+32GB":                 {"galaxy", "a", "21", "s", "3", "32gb"},
	} {
		got := Words(in)
		if !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNearMissesDoNotMatch(t *testing.T) {
	c := New()
	titles := []string{"Apple iPhone 15", "Apple iPhone 15 Pro 128GB Black", "Samsung Galaxy S24 128GB", "Sony WH-1000XM5 Headphones Black",
		"Tee Black M", "Tee Black L", "Nike Air Max 90 EU 42 White", "Anker PowerCore 10000 Power Bank", "Google Pixel 8 128GB"}
	brand := "br_1"
	for i, title := range titles {
		c.Put(&svc.Product{Ref: svc.ProductRef(i + 1), BrandID: brand, ProductID: title, Title: &title})
	}
	// Other shops sell accessories and other models, so "case", "charger",
	// "ultra" and "+" are product words: the catalog's vocabulary is what
	// tells a product word from a shop's slogan.
	for i, title := range []string{"Silicone Case for iPhone 15", "USB-C Charger 20W", "Screen Protector Galaxy S24", "Galaxy S23 Ultra", "Galaxy S24+ 256GB", "Google Pixel 8a 128GB"} {
		c.Put(&svc.Product{Ref: svc.ProductRef(100 + i), BrandID: "br_2", ProductID: title, Title: &title})
	}
	for query, want := range map[string]string{
		"iPhone 15 case":                        "",
		"Charger for Apple iPhone 15":           "",
		"Apple iPhone 14":                       "",
		"Apple iPhone 15 Pro 256GB Black":       "",
		"Samsung Galaxy S24+ 128GB":             "",
		"Samsung Galaxy S24 Ultra 128GB":        "",
		"Tee Black":                             "", // M or L: no way to tell
		"Nike Air Max 90 EU 43 White":           "",
		"Anker PowerCore 20000 Power Bank":      "",
		"Google Pixel 8a 128GB":                 "",
		"APPLE IPHONE 15":                       "Apple iPhone 15",
		"iPhone 15 128 GB Black Apple Pro":      "Apple iPhone 15 Pro 128GB Black",
		"Sony WH-1000XM5 Headphnoes Black":      "Sony WH-1000XM5 Headphones Black", // a typo
		"Tee Black (M)":                         "Tee Black M",
		"Samsung Galaxy S24 128GB - Buy online": "Samsung Galaxy S24 128GB",
	} {
		m, ok := c.ByTitle(brand, query, nil)
		switch {
		case want == "" && ok:
			t.Errorf("%q matched %q (%.3f)", query, m.Title, m.Confidence)
		case want != "" && (!ok || m.Title != want):
			t.Errorf("%q: got %q, %v; want %q", query, m.Title, ok, want)
		}
	}
}
