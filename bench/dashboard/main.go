// Command dashboard times the dashboard's pages on a data folder that
// bench/seed filled (bench/RESULTS.md, Dashboard): it builds the rollups
// from the events as the first start of serve does, starts the whole
// server on a port of its own, signs in, and reads every page of the
// largest brand (each date range of the overview and of the CSV
// downloads): first from a cold start (a new handle of the store and a
// new dashboard, nothing cached), then -n times with the figures computed
// again for each request (no cache: the worst case), then -n times warm,
// with the cache serve uses. It prints latencies and the resident memory
// each page took beyond the server's steady state.
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
	runtimemetrics "runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
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
	only := flag.String("pages", "", "time only the pages whose name matches this regular expression")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the pages' requests to this file")
	memprofile := flag.String("memprofile", "", "write a profile of what the pages allocated to this file")
	flag.Parse()
	if *data == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(context.Background(), *data, *n, *only, *profile, *memprofile); err != nil {
		fmt.Fprintln(os.Stderr, "dashboard:", err)
		os.Exit(1)
	}
}

// page is one address the tool reads.
type page struct {
	name string
	op   bool // the operator's page
	path string
}

// pages lists every page of the brand's dashboard, each date range of the
// overview and of the CSV downloads: the custom range is days 20 to 11
// before now, within the retention.
func pages(now time.Time, product string) []page {
	day := 24 * time.Hour
	custom := "range=custom&from=" + now.Add(-20*day).Format(time.DateOnly) + "&to=" + now.Add(-11*day).Format(time.DateOnly)
	ranges := []struct{ name, query string }{{"7d", "range=7d"}, {"today", "range=today"}, {"30d", "range=30d"}, {"custom", custom}}
	var ps []page
	for _, r := range ranges {
		ps = append(ps, page{name: "overview " + r.name, path: "?" + r.query})
	}
	if product != "" {
		ps = append(ps, page{name: "product", path: "products/" + product})
	}
	ps = append(ps, page{name: "realtime", path: "realtime"}, page{name: "settings", path: "settings"},
		page{name: "keys", path: "keys"}, page{name: "members", path: "members"}, page{name: "operator", op: true})
	for _, r := range ranges {
		for _, t := range []string{"totals", "chart", "countries", "widget"} {
			ps = append(ps, page{name: "csv " + t + " " + r.name, path: "csv/" + t + "?" + r.query})
		}
	}
	return append(ps, page{name: "csv products", path: "csv/products"})
}

// server is the dashboard over its own handle of the store: a cold start
// opens another, with its SQLite cache and the figures' cache empty.
type server struct {
	data    string
	tr      *tracker.Tracker
	brands  *auth.Cache
	m       *metrics.Metrics
	catalog *enrich.Catalog
	store   *sqlite.Store
	ins     *insights.Cache
	handler atomic.Pointer[http.Handler]
}

// restart opens the store again and makes a new dashboard on it, its
// figures computed for each request (TTL 0) or cached as serve does.
func (s *server) restart(ctx context.Context, cached bool) error {
	if s.store != nil {
		s.store.Close()
	}
	store, err := sqlite.Open(ctx, s.data)
	if err != nil {
		return err
	}
	s.store = store
	s.ins = &insights.Cache{Store: store, Now: s.tr.Now}
	if cached {
		s.ins.TTL, s.ins.Stale = 5*time.Second, 25*time.Second // as serve
	}
	log := slog.New(slog.DiscardHandler)
	dash, err := dashboard.New(dashboard.Config{Store: store, Brands: s.brands, Tracker: s.tr, Insights: s.ins, Metrics: s.m, Log: log, Now: s.tr.Now})
	if err != nil {
		return err
	}
	h := httpapi.New(s.tr, s.brands, log, httpapi.Options{Catalog: s.catalog, Insights: s.ins, Dashboard: dash, Metrics: s.m}).Handler()
	s.handler.Store(&h)
	return nil
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.handler.Load()).ServeHTTP(w, r)
}

func run(ctx context.Context, data string, n int, only, profile, memprofile string) error {
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

	s := &server{data: data, tr: tr, brands: brands, m: m, catalog: catalog}
	if err := s.restart(ctx, false); err != nil {
		return err
	}
	defer func() { s.store.Close() }()
	srv := httptest.NewServer(s)
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
	steady := settle()
	resetPeak()

	// The product page of the brand's top product, as the overview links it.
	var overview strings.Builder
	over, err := fetch(brandClient, base, &overview)
	if err != nil {
		return err
	}
	fmt.Printf("first overview after the start (cold): %s ms, %s ms CPU\n", ms(over.took), ms(over.cpu))
	product := ""
	if m := regexp.MustCompile(`/products/([^"]+)"`).FindStringSubmatch(overview.String()); m != nil {
		product = m[1]
	}
	var ps []page
	for _, p := range pages(tr.Now().UTC(), product) {
		if only == "" || regexp.MustCompile(only).MatchString(p.name) {
			ps = append(ps, p)
		}
	}
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
	fmt.Printf("\n%-20s %9s %9s %9s %9s %9s %9s %9s %9s %6s %7s\n", "page", "cold", "cold CPU", "unc. p50", "unc. p99", "unc. CPU", "unc. max", "warm p50", "warm p99", "+MiB", "MB/req")
	var all, warm, allCPU []time.Duration
	var worstMem int64
	for _, p := range ps {
		c, u := brandClient, base+p.path
		if p.op {
			c, u = opClient, srv.URL+"/dashboard/operator"
		}
		// Cold: a new store handle and dashboard, nothing cached, the
		// memory counted from the steady state.
		if err := s.restart(ctx, false); err != nil {
			return err
		}
		before := settle()
		resetPeak()
		cold, err := get(c, u)
		if err != nil {
			return err
		}
		var unc, cpu []time.Duration
		alloc0 := allocated()
		for range n {
			r, err := get(c, u)
			if err != nil {
				return err
			}
			unc, cpu = append(unc, r.took), append(cpu, r.cpu)
		}
		perRequest := (allocated() - alloc0) / uint64(n)
		mem := rss("VmHWM") - before
		worstMem = max(worstMem, mem)
		// Warm: the cache serve uses, after the first request.
		if err := s.restart(ctx, true); err != nil {
			return err
		}
		if _, err := get(c, u); err != nil {
			return err
		}
		var w []time.Duration
		for range n {
			r, err := get(c, u)
			if err != nil {
				return err
			}
			w = append(w, r.took)
		}
		all, warm, allCPU = append(all, unc...), append(warm, w...), append(allCPU, cpu...)
		slices.Sort(unc)
		slices.Sort(w)
		slices.Sort(cpu)
		fmt.Printf("%-20s %9s %9s %9s %9s %9s %9s %9s %9s %6d %7.1f\n", p.name, ms(cold.took), ms(cold.cpu), pct(unc, 50), pct(unc, 99), pct(cpu, 50),
			ms(unc[len(unc)-1]), pct(w, 50), pct(w, 99), mem>>20, float64(perRequest)/1e6)
	}
	slices.Sort(all)
	slices.Sort(warm)
	slices.Sort(allCPU)
	fmt.Printf("\nevery page, uncached: p50 %s, p99 %s over %d requests (CPU p50 %s, p99 %s); warm: p50 %s, p99 %s\n",
		pct(all, 50), pct(all, 99), len(all), pct(allCPU, 50), pct(allCPU, 99), pct(warm, 50), pct(warm, 99))
	fmt.Printf("resident memory: steady %d MiB; most a page took beyond its steady state +%d MiB; peak %d MiB\n", steady>>20, worstMem>>20, rss("VmHWM")>>20)
	if memprofile != "" {
		f, err := os.Create(memprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		return pprof.Lookup("allocs").WriteTo(f, 0)
	}
	return nil
}

// settle collects the garbage, returns it to the system and reads the
// resident memory.
func settle() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	return rss("VmRSS")
}

// largestBrand returns the brand with the most products.
func largestBrand(ctx context.Context, store *sqlite.Store) (string, int, error) {
	bs, err := store.Brands(ctx)
	if err != nil {
		return "", 0, err
	}
	best, most := "", -1
	for _, b := range bs {
		k, err := store.BrandProductsKey(ctx, b.ID)
		if err != nil {
			return "", 0, err
		}
		if n := int(k.Products); n > most {
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
	took time.Duration
	cpu  time.Duration // the process's CPU time meanwhile: with no other work, the request's
}

// get reads a page and throws its body away: the client runs in the
// server's process, and its copies of a 100,000-row CSV (io.ReadAll and a
// string, about 3 times the body) counted in the server's memory and CPU.
func get(c *http.Client, u string) (answer, error) { return fetch(c, u, io.Discard) }

// fetch reads a page into body.
func fetch(c *http.Client, u string, body io.Writer) (answer, error) {
	start, cpu0 := time.Now(), cpuTime()
	resp, err := c.Get(u)
	if err != nil {
		return answer{}, err
	}
	_, err = io.Copy(body, resp.Body)
	resp.Body.Close()
	took, cpu := time.Since(start), cpuTime()-cpu0
	if resp.StatusCode != http.StatusOK || strings.HasSuffix(resp.Request.URL.Path, "/signin") {
		return answer{}, fmt.Errorf("%s: %d at %s", u, resp.StatusCode, resp.Request.URL.Path)
	}
	return answer{took, cpu}, err
}

// cpuTime is the process's user and system CPU time: beside other work
// on the machine's cores, a steadier measure of a request than its wall
// time.
func cpuTime() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func pct(d []time.Duration, p int) string {
	i := (len(d)*p + 99) / 100
	return ms(d[max(0, min(len(d)-1, i-1))])
}

// ms writes a duration in milliseconds, to a tenth.
func ms(d time.Duration) string { return strconv.FormatFloat(d.Seconds()*1000, 'f', 1, 64) }

// allocated is the bytes the process has allocated on the heap so far:
// the server's and this client's, which throws bodies away (get).
func allocated() uint64 {
	m := []runtimemetrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	runtimemetrics.Read(m)
	return m[0].Value.Uint64()
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
