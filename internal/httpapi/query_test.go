package httpapi

import (
	"net/url"
	"testing"
)

// queryGetter must read a query exactly as url.Values does.
func TestQueryGetterMatchesURLValues(t *testing.T) {
	raws := []string{
		"", "brand_id=br_1&product_id=p1", "brand_id=a&brand_id=b", "product_id=p%201&brand_id=br+x",
		"brand_id=%zz&brand_id=ok", "brand%5Fid=esc", "brand_id", "brand_id=&product_id=p", "a=1;brand_id=x&brand_id=y",
		"&&brand_id=z&", "window_views=5&window_views=", "product_id=%E2%82%AC", "=v&brand_id=w", "brand_id=a=b",
	}
	for _, raw := range raws {
		want, _ := url.ParseQuery(raw)
		get := queryGetter(raw)
		for _, name := range []string{"brand_id", "product_id", "window_views", "a", ""} {
			if got := get(name); got != want.Get(name) {
				t.Errorf("%q: %s = %q, url.Values says %q", raw, name, got, want.Get(name))
			}
		}
	}
}
