package urlcanon_test

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/svc-project/svc/internal/urlcanon"
)

// Real-world shapes of one product page's address: every one must reduce to
// the same string as the plain form.
func TestURLVariantsOfOnePage(t *testing.T) {
	for _, tc := range []struct {
		want     string
		variants []string
	}{
		{"shop.example/products/tee-black", []string{
			"https://shop.example/products/tee-black",
			"http://shop.example/products/tee-black",
			"https://www.shop.example/products/tee-black",
			"https://m.shop.example/products/tee-black",
			"https://SHOP.Example/products/tee-black/",
			"https://shop.example/products/tee-black#reviews",
			"https://shop.example:443/products/tee-black",
			"http://shop.example:80/products/tee-black",
			"https://shop.example./products/tee-black",
			"https://user:pw@shop.example/products/tee-black",
			"https://shop.example/products/./tee-black",
			"https://shop.example/products//tee-black",
			"https://shop.example/collections/../products/tee-black",
			"https://shop.example/products/tee-black?utm_source=google&utm_medium=cpc&utm_campaign=x",
			"https://shop.example/products/tee-black?gclid=Cj0KCQ&fbclid=IwAR3&msclkid=abc",
			"https://shop.example/products/tee-black?srsltid=AfmBOo&_gl=1*abc&mc_cid=1&mc_eid=2",
			"https://shop.example/products/tee-black?",
			"  https://shop.example/products/tee-black  ",
			"https://www.shop.example/products/tee-black/?utm_source=newsletter#top",
		}},
		{"shop.example/p?color=black&size=m", []string{
			"https://shop.example/p?color=black&size=m",
			"https://shop.example/p?size=m&color=black",
			"https://shop.example/p/?size=m&utm_source=x&color=black",
			"https://shop.example/p?size=m&color=black&UTM_Campaign=y&hsa_acc=1",
			"https://shop.example/p?color=%62lack&size=m",
		}},
		{"shop.example/produkte/m%C3%BCsli-500g", []string{
			"https://shop.example/produkte/müsli-500g",
			"https://shop.example/produkte/m%C3%BCsli-500g",
			"https://shop.example/produkte/m%c3%bcsli-500g/",
		}},
		{"shop.example/search?q=red+shoes", []string{
			"https://shop.example/search?q=red+shoes",
			"https://shop.example/search?q=red%20shoes",
		}},
		{"shop.example", []string{"https://shop.example", "https://shop.example/", "https://www.shop.example/#x"}},
		{"m.example/item/1", []string{"https://m.example/item/1"}}, // "m." is the domain itself, not a mobile host
		{"www.example/item/1", []string{"https://www.example/item/1"}},
		{"shop.example:8443/p/1", []string{"https://shop.example:8443/p/1"}},
		{"shop.example/P/Tee-Black", []string{"https://shop.example/P/Tee-Black"}}, // paths keep their case
	} {
		for _, v := range tc.variants {
			got, ok := urlcanon.URL(v)
			if !ok || got != tc.want {
				t.Errorf("URL(%q) = %q, %v; want %q", v, got, ok, tc.want)
			}
		}
	}
}

func TestURLKeepsWhatSelectsAProduct(t *testing.T) {
	distinct := []string{
		"https://shop.example/p/1",
		"https://shop.example/p/2",
		"https://shop.example/p/1?variant=2",
		"https://shop.example/p/1?variant=3",
		"https://other.example/p/1",
		"https://eu.shop.example/p/1",
		"https://shop.example/p/1?ref=2", // "ref" is a product reference at some shops
	}
	seen := map[string]string{}
	for _, v := range distinct {
		got, ok := urlcanon.URL(v)
		if !ok {
			t.Fatalf("URL(%q) refused", v)
		}
		if prev, dup := seen[got]; dup {
			t.Errorf("%q and %q both became %q", prev, v, got)
		}
		seen[got] = v
	}
}

func TestURLRefusesWhatIsNotAPage(t *testing.T) {
	for _, v := range []string{"", "shop.example/p/1", "/p/1", "ftp://shop.example/p", "javascript:alert(1)",
		"mailto:a@shop.example", "https://", "https:///p/1", "http://[::1", "data:text/html,x"} {
		if got, ok := urlcanon.URL(v); ok {
			t.Errorf("URL(%q) = %q, want refused", v, got)
		}
	}
}

func TestHost(t *testing.T) {
	for in, want := range map[string]string{
		"shop.example": "shop.example", "WWW.Shop.Example": "shop.example", "m.shop.example": "shop.example",
		"shop.example:443": "shop.example", "shop.example.": "shop.example", "www.example": "www.example",
		"a.b.shop.example": "a.b.shop.example", "": "", "shop.example/p": "", "a b": "",
	} {
		if got := urlcanon.Host(in); got != want {
			t.Errorf("Host(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzURL checks the properties every caller relies on: canonical forms are
// fixed points, carry no tracking parameter, fragment or scheme, and are
// valid UTF-8 whenever the input was.
func FuzzURL(f *testing.F) {
	for _, s := range []string{
		"https://www.shop.example/products/tee-black/?utm_source=x&b=2&a=1#frag",
		"http://m.Shop.Example:80/p/../q/./r//?gclid=1",
		"https://shop.example/produkte/m%C3%BCsli?q=a+b&q=c",
		"https://[2001:db8::1]:8080/p?x=%zz",
		"https://shop.example/%2e%2e/p;param?a=1;b=2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c, ok := urlcanon.URL(raw)
		if !ok {
			return
		}
		if c == "" || strings.Contains(c, "#") || strings.HasPrefix(c, "http") && strings.Contains(c, "://") {
			t.Fatalf("URL(%q) = %q: empty, or with a fragment or a scheme", raw, c)
		}
		again, ok := urlcanon.URL("https://" + c)
		if !ok || again != c {
			t.Fatalf("not a fixed point: URL(%q) = %q, then %q (%v)", raw, c, again, ok)
		}
		if i := strings.IndexByte(c, '?'); i >= 0 {
			q, err := url.ParseQuery(c[i+1:])
			if err != nil {
				t.Fatalf("canonical query of %q does not parse: %v", raw, err)
			}
			for name := range q {
				if urlcanon.Tracking(name) {
					t.Fatalf("URL(%q) = %q keeps tracking parameter %q", raw, c, name)
				}
			}
		}
		if utf8.ValidString(raw) && !utf8.ValidString(c) {
			t.Fatalf("URL(%q) = %q is not UTF-8", raw, c)
		}
	})
}
