package httpapi

import (
	"net/url"
	"testing"
)

// query must read a query exactly as url.Values does, and name each
// parameter that is read and given more than once, once.
func TestQueryMatchesURLValues(t *testing.T) {
	t.Parallel()
	raws := []string{
		"", "brand_id=br_1&product_id=p1", "brand_id=a&brand_id=b", "product_id=p%201&brand_id=br+x",
		"brand_id=%zz&brand_id=ok", "brand%5Fid=esc", "brand_id", "brand_id=&product_id=p", "a=1;brand_id=x&brand_id=y",
		"&&brand_id=z&", "window_views=5&window_views=", "product_id=%E2%82%AC", "=v&brand_id=w", "brand_id=a=b",
		"brand_id=a&brand%5Fid=b&brand_id=c", "a=1&a=2",
	}
	for _, raw := range raws {
		want, _ := url.ParseQuery(raw)
		q := query{raw: raw}
		var wantRepeated []string
		for _, name := range []string{"brand_id", "product_id", "window_views", "a", ""} {
			if got := q.Get(name); got != want.Get(name) {
				t.Errorf("%q: %s = %q, url.Values says %q", raw, name, got, want.Get(name))
			}
			q.Get(name) // read twice, named once
			if len(want[name]) > 1 {
				wantRepeated = append(wantRepeated, name)
			}
		}
		if len(q.repeated) != len(wantRepeated) {
			t.Fatalf("%q: repeated %v, want %v", raw, q.repeated, wantRepeated)
		}
		for i, e := range q.repeated {
			if e.Field != wantRepeated[i] || e.Message == "" {
				t.Errorf("%q: repeated %v, want %v", raw, q.repeated, wantRepeated)
			}
		}
	}
}
