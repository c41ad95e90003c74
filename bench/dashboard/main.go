// Command dashboard times the dashboard's pages on a data folder that
// bench/seed filled (bench/RESULTS.md, Dashboard): it builds the rollups
// from the events as the first start of serve does, starts the whole
// server on a port of its own, signs in, and reads every page of the
// largest brand, first from a cold start, then many times with the
// figures computed again for each request (no cache), then with the
// cache serve uses. It prints latencies and the resident memory the pages
// took beyond the server's steady state.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/dashboard"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/tracker"
)

func main() {
	data := flag.String("data", "", "a data folder bench/seed filled (required)")
	n := flag.Int("n", 30, "requests per page and mode")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the pages' requests to this file")
	flag.Parse()
	if *data == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(context.Background(), *data, *n, *profile); err != nil {
		fmt.Fprintln(os.Stderr, "dashboard:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, data string, n int, profile string) error {
	store, err := sqlite.Open(ctx, data)
	if err != nil {
		return err
	}
	defer store.Close()
	start := time.Now()
	if err := store.RebuildRollups(ctx, true, func(day time.Time, done, total int) {
		fmt.Printf("rollups: %s (%d of %d days), %s\n", day.Format(time.DateOnly), done, total, time.Since(start).Round(time.Second))
	}); err != nil {
		return err
	}
	fmt.Printf("rollups built in %s (nothing to do if an earlier run built them)\n", time.Since(start).Round(time.Millisecond))

	log := slog.New(slog.DiscardHandler)
	brands, err := auth.Open(ctx, store, 0, log)
	if err != nil {
		return err
	}
	defer brands.Close()
	m := metrics.New()
	start = time.Now()
	catalog := enrich.NewCatalog()
	tr, err := tracker.Open(ctx, store, tracker.Config{Catalog: catalog, Logger: log, Metrics: m, SnapshotInterval: -1})
	if err != nil {
		return err
	}
	defer tr.Close()
	fmt.Printf("tracker ready in %s\n", time.Since(start).Round(time.Millisecond))

	brand, products, err := largestBrand(ctx, store)
	if err != nil {
		return err
	}
	fmt.Printf("brand %s: %d products\n", brand, products)

	ins := &insights.Cache{Store: store, Now: tr.Now} // no TTL: every request computes its figures
	dash, err := dashboard.New(dashboard.Config{Store: store, Brands: brands, Tracker: tr, Insights: ins, Metrics: m, Log: log, Now: tr.Now})
	if err != nil {
		return err
	}
	srv := httptest.NewServer(httpapi.New(tr, brands, log, httpapi.Options{Catalog: catalog, Insights: ins, Dashboard: dash, Metrics: m}).Handler())
	defer srv.Close()
	brandClient, err := signIn(ctx, store, srv.URL, brand)
	if err != nil {
		return err
	}
	opClient, err := signIn(ctx, store, srv.URL, "")
	if err != nil {
		return err
	}
	base := srv.URL + "/dashboard/brands/" + url.PathEscape(brand) + "/"

	// The steady state: the server ready, its garbage collected.
	runtime.GC()
	debug.FreeOSMemory()
	steady := rss("VmRSS")
	resetPeak()

	// The product page of the brand's top product, as the overview links it.
	over, err := get(brandClient, base)
	if err != nil {
		return err
	}
	product := regexp.MustCompile(`/products/([^"]+)"`).FindStringSubmatch(over.body)
	pages := []struct {
		name string
		c    *http.Client
		url  string
	}{{"overview", brandClient, base}, {"over 30d", brandClient, base + "?range=30d"}, {"realtime", brandClient, base + "realtime"},
		{"settings", brandClient, base + "settings"}, {"operator", opClient, srv.URL + "/dashboard/operator"}}
	if product != nil {
		pages = append(pages, struct {
			name string
			c    *http.Client
			url  string
		}{"product", brandClient, base + "products/" + product[1]})
	}
	fmt.Printf("first overview after the start (cold): %s\n", over.took.Round(time.Microsecond))
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("\n%-9s %-8s %10s %10s %10s %10s\n", "page", "mode", "p50", "p99", "max", "n")
	var all []time.Duration
	for _, mode := range []string{"uncached", "cached"} {
		if mode == "cached" {
			ins.TTL, ins.Stale = 5*time.Second, 25*time.Second // as serve
		}
		for _, p := range pages {
			var took []time.Duration
			for range n {
				r, err := get(p.c, p.url)
				if err != nil {
					return err
				}
				took = append(took, r.took)
			}
			if mode == "uncached" {
				all = append(all, took...)
			}
			slices.Sort(took)
			fmt.Printf("%-9s %-8s %10s %10s %10s %10d\n", p.name, mode, pct(took, 50), pct(took, 99), took[len(took)-1].Round(time.Microsecond), len(took))
		}
	}
	slices.Sort(all)
	fmt.Printf("\nevery page, uncached: p50 %s, p99 %s over %d requests\n", pct(all, 50), pct(all, 99), len(all))
	fmt.Printf("resident memory: steady %d MiB, peak while serving the pages %d MiB (+%d MiB)\n", steady>>20, rss("VmHWM")>>20, (rss("VmHWM")-steady)>>20)
	return nil
}

// largestBrand returns the brand with the most products.
func largestBrand(ctx context.Context, store *sqlite.Store) (string, int, error) {
	bs, err := store.Brands(ctx)
	if err != nil {
		return "", 0, err
	}
	best, most := "", -1
	for _, b := range bs {
		n := 0
		if err := store.BrandProducts(ctx, b.ID, func(int64, string, string) { n++ }); err != nil {
			return "", 0, err
		}
		if n > most {
			best, most = b.ID, n
		}
	}
	return best, most, nil
}

// signIn opens a dashboard session of the brand ("" for the operator), as
// a person following a sign-in link does.
func signIn(ctx context.Context, store *sqlite.Store, base, brand string) (*http.Client, error) {
	token, link := svc.NewSignInLink(brand, time.Now())
	if err := store.CreateSignInLink(ctx, link); err != nil {
		return nil, err
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 5 * time.Minute}
	// The sign-in form must say it comes from the service's own page.
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/dashboard/signin", strings.NewReader(url.Values{"token": {token}}.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return c, nil
}

type answer struct {
	body string
	took time.Duration
}

func get(c *http.Client, u string) (answer, error) {
	start := time.Now()
	resp, err := c.Get(u)
	if err != nil {
		return answer{}, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != http.StatusOK || strings.HasSuffix(resp.Request.URL.Path, "/signin") {
		return answer{}, fmt.Errorf("%s: %d at %s", u, resp.StatusCode, resp.Request.URL.Path)
	}
	return answer{string(b), took}, err
}

func pct(d []time.Duration, p int) time.Duration {
	i := (len(d)*p + 99) / 100
	return d[max(0, min(len(d)-1, i-1))].Round(time.Microsecond)
}

// rss reads a size from /proc/self/status, in bytes.
func rss(field string) int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// resetPeak makes VmHWM the current RSS (Linux: clear_refs 5).
func resetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }
