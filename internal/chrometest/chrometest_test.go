package chrometest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/svc-project/svc/internal/chrometest"
)

func TestMain(m *testing.M) { os.Exit(chrometest.Main(m)) }

// A tab of the shared browser has the viewport a browser of its own
// would have at that window size, and sees none of another tab's cookies
// or storage: tests that moved from Start to Tab see what they saw.
func TestTabIsAFreshWindowOfItsSize(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<!doctype html><title>tab</title><p>tab")
	}))
	defer srv.Close()
	viewport := func(ctx context.Context) [2]int {
		t.Helper()
		chrometest.Run(t, ctx, chromedp.Navigate(srv.URL))
		var v [2]int
		chrometest.Eval(t, ctx, "[innerWidth, innerHeight]", &v)
		return v
	}
	for _, size := range [][2]int{{1000, 700}, {1280, 900}} {
		want := viewport(chrometest.Start(t, size[0], size[1]))
		tab := chrometest.Tab(t, size[0], size[1])
		if got := viewport(tab); got != want {
			t.Errorf("a %v tab's viewport is %v; a browser of its own has %v", size, got, want)
		}
		var seen string
		chrometest.Eval(t, tab, "document.cookie + '|' + localStorage.length", &seen)
		if seen != "|0" {
			t.Errorf("a new tab sees another tab's cookies or storage: %q", seen)
		}
		chrometest.Eval(t, tab, "document.cookie = 'c=1; max-age=60', localStorage.setItem('k', '1'), document.cookie + '|' + localStorage.length", &seen)
		if seen != "c=1|1" {
			t.Fatalf("cookie and storage set: %q", seen)
		}
	}
}
