package enrich

import (
	"testing"

	"golang.org/x/text/language"
)

func TestSearchBadge(t *testing.T) {
	one, twelve := int64(1), int64(12)
	shown := &proofOf{viewsShown: true, buysShown: true}
	shown.shown.Viewers, shown.shown.Purchases = &twelve, &one
	cases := []struct {
		name      string
		lang      language.Tag
		p         *proofOf
		msgs      []Message
		kind      string
		label     string
		wantEmpty bool
	}{
		{"unmatched, though cheapest", language.English, nil, []Message{{Kind: BadgeLowestPrice, Text: "Lowest price of these results"}}, "", "", true},
		{"matched, below thresholds", language.English, &proofOf{}, []Message{}, "", "", true},
		{"a comparison before counts", language.English, shown, []Message{{Kind: msgViews, Text: "v"}, {Kind: BadgeMostPurchased, Text: "m"}}, BadgeMostPurchased, "Most bought · 24 h", false},
		{"purchases before views, singular", language.English, shown, []Message{{Kind: msgViews, Text: "v"}, {Kind: msgPurchases, Text: "p"}}, msgPurchases, "1 bought · 24 h", false},
		{"views in German", language.German, shown, []Message{{Kind: msgViews, Text: "v"}}, msgViews, "12 Personen · letzte Stunde", false},
		{"purchases in French", language.French, shown, []Message{{Kind: msgPurchases, Text: "p"}}, msgPurchases, "1 achat · 24 h", false},
		{"trending in Spanish", language.Spanish, shown, []Message{{Kind: BadgeTrending, Text: "t"}}, BadgeTrending, "Tendencia · última hora", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := searchBadge(c.lang, c.p, c.msgs)
			if c.wantEmpty {
				if b != nil {
					t.Fatalf("badge %+v, want none", b)
				}
				return
			}
			if b == nil || b.Kind != c.kind || b.Label != c.label {
				t.Fatalf("badge %+v, want %s %q", b, c.kind, c.label)
			}
			if len(c.msgs) == 2 && b.Title != c.msgs[0].Text+" · "+c.msgs[1].Text {
				t.Errorf("title %q", b.Title)
			}
		})
	}
}
