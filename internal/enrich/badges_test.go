package enrich

import (
	"reflect"
	"testing"

	"github.com/svc-project/svc"
)

func TestSearchBadges(t *testing.T) {
	shown := func(viewers, purchases int64) *proofOf {
		return &proofOf{viewers: viewers, purchases: purchases, viewsShown: true, buysShown: true}
	}
	hidden := func(viewers, purchases int64) *proofOf { return &proofOf{viewers: viewers, purchases: purchases} }
	price := func(p float64, cur string) svc.SearchResult { return svc.SearchResult{Price: &p, Currency: &cur} }
	none := svc.SearchResult{}
	for _, tc := range []struct {
		name    string
		results []svc.SearchResult
		proofs  []*proofOf
		want    [][]string
	}{
		{"the highest shown counts win", []svc.SearchResult{none, none, none}, []*proofOf{shown(9, 1), shown(4, 3), nil},
			[][]string{{"most_viewed"}, {"most_purchased"}, nil}},
		{"one matched result is no comparison", []svc.SearchResult{none, none}, []*proofOf{shown(9, 3), nil},
			[][]string{nil, nil}},
		{"a tie has no winner", []svc.SearchResult{none, none, none}, []*proofOf{shown(5, 2), shown(5, 2), shown(1, 1)},
			[][]string{nil, nil, nil}},
		{"a withheld count wins nothing, but is compared", []svc.SearchResult{none, none}, []*proofOf{hidden(2, 0), shown(1, 0)},
			[][]string{nil, nil}},
		{"zero wins nothing", []svc.SearchResult{none, none}, []*proofOf{shown(0, 0), shown(0, 0)},
			[][]string{nil, nil}},
		{"lowest price per currency, unmatched results too", []svc.SearchResult{price(10, "EUR"), price(9, "EUR"), price(5, "USD"), price(7, "USD"), price(1, "GBP")},
			[]*proofOf{nil, nil, nil, nil, nil}, [][]string{nil, {"lowest_price"}, {"lowest_price"}, nil, nil}},
		{"equal lowest prices: none", []svc.SearchResult{price(9, "EUR"), price(9, "EUR"), price(12, "EUR")},
			[]*proofOf{nil, nil, nil}, [][]string{nil, nil, nil}},
		{"trending is the product's own", []svc.SearchResult{none}, []*proofOf{{trending: true, viewsShown: true}},
			[][]string{{"trending"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := searchBadges(tc.results, tc.proofs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
