package catalog

import (
	"slices"
	"testing"
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
	} {
		got := Words(in)
		if !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}
