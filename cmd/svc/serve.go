package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/apidoc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/bots"
	"github.com/svc-project/svc/internal/dashboard"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/mail"
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/script"
	"github.com/svc-project/svc/internal/signing"
	"github.com/svc-project/svc/internal/tracker"
)

// snapshotFile is where, in the data folder, the counts are saved so that
// a restart need not replay every event (internal/snapshot).
const snapshotFile = "counts.snapshot"

// serveConfig is every option of svc serve.
type serveConfig struct {
	addr, publicURL, adminAddr string
	demo                       bool
	env                        environment // for the commands the demo's text prints
	retention                  time.Duration
	logFormat, logLevel        string
	shutdownTimeout            time.Duration
	snapshotInterval           time.Duration
	rateLimit                  float64
	rateBurst                  int
	trustedProxies             []netip.Prefix
	budget                     httpapi.Budget
	maxConnsPerAddress         int
	idleTimeout                time.Duration
	nowWindow                  time.Duration
	smtpURL, mailFrom          string
	digestInterval             time.Duration
}

// options is the table of serve's options; README.md lists the same (a
// test checks it).
func (c *serveConfig) options() []option {
	return []option{
		{name: "addr", env: "SVC_ADDR", def: "127.0.0.1:8080", set: addrOpt(&c.addr, false),
			usage: "address to listen on; port 0 picks a free one, 0.0.0.0:8080 listens on every interface"},
		{name: "public-url", env: "SVC_PUBLIC_URL", set: urlOpt(&c.publicURL),
			usage: "address shoppers and brands reach this service at (default http://ADDR)"},
		{name: "demo", env: "SVC_DEMO", def: "false", boolean: true, set: boolOpt(&c.demo),
			usage: "create a demo brand and product, serve /demo, and print how to try them"},
		{name: "retention", env: "SVC_RETENTION", def: "840h", set: durationOpt(&c.retention, svc.MaxPurchaseWindow, retentionWhy),
			usage: "how long raw events are kept (840h = 35 days); at least 720h"},
		{name: "log-format", env: "SVC_LOG_FORMAT", def: "text", set: choiceOpt(&c.logFormat, "text", "json"),
			usage: "log format: text or json"},
		{name: "log-level", env: "SVC_LOG_LEVEL", def: "info", set: choiceOpt(&c.logLevel, "debug", "info", "warn", "error"),
			usage: "least level logged: debug (adds one line per request), info, warn or error"},
		{name: "shutdown-timeout", env: "SVC_SHUTDOWN_TIMEOUT", def: "15s", set: durationOpt(&c.shutdownTimeout, time.Second, ""),
			usage: "how long in-flight requests may take to finish at shutdown"},
		{name: "snapshot-interval", env: "SVC_SNAPSHOT_INTERVAL", def: "5m", set: durationOpt(&c.snapshotInterval, 0, ""),
			usage: "how often the counts are saved to " + snapshotFile + " in the data folder, for a quick restart; 0 saves them only at shutdown"},
		{name: "rate-limit", env: "SVC_RATE_LIMIT", def: "20", set: floatOpt(&c.rateLimit, 0),
			usage: "anonymous API requests per second per client address; 0 for no limit"},
		{name: "rate-burst", env: "SVC_RATE_BURST", def: "100", set: intOpt(&c.rateBurst, 1),
			usage: "anonymous API requests a client address may send at once"},
		{name: "anon-new-products-per-address", env: "SVC_ANON_NEW_PRODUCTS_PER_ADDRESS", def: "120", set: floatOpt(&c.budget.NewProductsPerAddress, 0),
			usage: "products anonymous events from one client address may create a minute, as many at once; 0 for no limit"},
		{name: "anon-new-products-per-brand", env: "SVC_ANON_NEW_PRODUCTS_PER_BRAND", def: "6000", set: floatOpt(&c.budget.NewProductsPerBrand, 0),
			usage: "products anonymous events may create a minute per brand, as many at once; 0 for no limit"},
		{name: "anon-max-lines", env: "SVC_ANON_MAX_LINES", def: "50", set: intOpt(&c.budget.LinesPerOrder, 0),
			usage: "lines of one anonymous order; 0 for no limit"},
		{name: "anon-max-units", env: "SVC_ANON_MAX_UNITS", def: "100", set: intOpt(&c.budget.UnitsPerLine, 0),
			usage: "quantity of one line of an anonymous order; 0 for no limit"},
		{name: "max-conns-per-address", env: "SVC_MAX_CONNS_PER_ADDRESS", def: "256", set: intOpt(&c.maxConnsPerAddress, 0),
			usage: "connections one client address may hold open (trusted proxies are exempt); 0 for no limit"},
		{name: "idle-timeout", env: "SVC_IDLE_TIMEOUT", def: "30s", set: durationOpt(&c.idleTimeout, time.Second, ""),
			usage: "how long an idle keep-alive connection is kept open"},
		{name: "now-window", env: "SVC_NOW_WINDOW", def: "5m", set: nowWindowOpt(&c.nowWindow),
			usage: "how far back the proof's viewers_now looks: whole minutes from 1m to 60m"},
		{name: "trusted-proxy", env: "SVC_TRUSTED_PROXIES", list: true, set: prefixOpt(&c.trustedProxies),
			usage: "a proxy (IP or CIDR) whose X-Forwarded-For is believed"},
		{name: "admin-addr", env: "SVC_ADMIN_ADDR", set: addrOpt(&c.adminAddr, true),
			usage: "opt-in listener for pprof and metrics, such as 127.0.0.1:9090; keep it private"},
		{name: "smtp-url", env: "SVC_SMTP_URL", set: stringOpt(&c.smtpURL),
			usage: "mail server for sign-in links, invitations and digests: smtp://user:pass@host:587 (STARTTLS) or smtps://user:pass@host:465 (TLS); without it sign-in links are logged"},
		{name: "mail-from", env: "SVC_MAIL_FROM", set: stringOpt(&c.mailFrom),
			usage: "sender of the dashboard's mail, such as \"Shop stats <svc@shop.example>\"; required with --smtp-url"},
		{name: "digest-interval", env: "SVC_DIGEST_INTERVAL", def: "1h", set: durationOpt(&c.digestInterval, time.Minute, ""),
			usage: "how often each node looks for weekly digests due (one node sends each)"},
	}
}

// parseServe reads serve's flags and environment.
func parseServe(env environment, args []string) (*serveConfig, *storeFlags, error) {
	fs, sf := env.newFlags("serve")
	c := &serveConfig{env: env}
	if err := parseOptions(fs, env, c.options(), args); err != nil {
		return nil, nil, err
	}
	return c, sf, nil
}

func serve(ctx context.Context, env environment, args []string) error {
	c, sf, err := parseServe(env, args)
	if err != nil {
		return err
	}
	log := c.logger(env.stderr)
	raiseGOMAXPROCS(env, log)
	// The address first: a busy port must stop the server before it has
	// made a data folder or touched a snapshot.
	ln, err := listen(c.addr)
	if err != nil {
		return err
	}
	defer ln.Close() // Serve closes it too; this covers the early returns
	store, err := sf.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if store.lockServer != nil {
		release, err := store.lockServer()
		if err != nil {
			return err
		}
		defer release()
	}
	// An upgraded store's dashboard is right at once: the rollups are
	// built from its events before anything is served.
	if err := buildRollups(ctx, store.Store, log); err != nil {
		return err
	}
	// Admin commands on any machine print URLs on the address recorded here.
	if u := recordedURL(c.publicURL, ln.Addr(), sf.store == ""); u != "" {
		if err := store.SetSetting(ctx, svc.SettingPublicURL, u); err != nil {
			return err
		}
	}
	brands, err := auth.Open(ctx, store, 0, log)
	if err != nil {
		return err
	}
	defer brands.Close()
	m := metrics.New()
	// What enrichment reads beside the counts, which the core feeds.
	catalog := enrich.NewCatalog()
	tc := c.trackerConfig(store, sf.data, log, m)
	tc.Catalog = catalog
	t, err := tracker.Open(ctx, store, tc)
	if err != nil {
		return err
	}
	// Deferred after the store's Close, so run before it, and after the
	// HTTP server has finished its requests: whatever they queued is
	// committed.
	defer func() {
		t.Close()
		log.Info("stopped")
	}()
	base := c.publicURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	parts, err := c.serverParts(ctx, store, t, brands, base, m, log)
	if err != nil {
		return err
	}
	// The keys that sign answers, shared by every node of the store.
	keys, err := signing.Open(ctx, store, 0, nil, log)
	if err != nil {
		return err
	}
	defer keys.Close()
	parts.opts.Keys, parts.opts.PublicURL, parts.opts.Catalog = keys, c.publicURL, catalog
	// The weekly digests, stopped before the store closes; and the sign-in
	// mails on their way, sent before it too.
	digests, stopDigests := context.WithCancel(ctx)
	digestsDone := make(chan struct{})
	go func() { defer close(digestsDone); parts.dash.RunDigests(digests, c.digestInterval) }()
	defer func() { stopDigests(); <-digestsDone; parts.dash.Wait() }()
	api := httpapi.New(t, brands, log, parts.opts)
	srv := newHTTPServer(api.Handler(), c.idleTimeout, log)
	// What the parts made on the way (the bot list's automaton alone
	// allocates 54 MiB) is garbage now; at the operator's GOGC it would
	// stay resident, over a heap of 1 GiB after a large start, until the
	// heap doubled into it.
	debug.FreeOSMemory()
	served := make(chan error, 1)
	limits := httpapi.ConnLimits{PerAddress: c.maxConnsPerAddress, TrustedProxies: c.trustedProxies}
	go func() { served <- srv.Serve(httpapi.Listener(ln, limits, m)) }()
	log.Info("listening", "addr", ln.Addr().String(), "url", base, "script_bytes_gzip", parts.script.GzSize)
	fmt.Fprintf(env.stdout, "svc listening on %s\n", base)
	if c.adminAddr != "" {
		admin, err := serveAdmin(c.adminAddr, m, log)
		if err != nil {
			srv.Close()
			return fmt.Errorf("admin listener: %w", err)
		}
		defer admin.Close()
		fmt.Fprintf(env.stdout, "svc admin (pprof, metrics) on http://%s\n", admin.Addr)
	}
	if parts.demoText != "" {
		fmt.Fprint(env.stdout, parts.demoText) // even an empty write to a pipe waits for a reader
	}
	return c.waitAndDrain(ctx, api, srv, served, log)
}

// logger is the log of serve's options.
func (c *serveConfig) logger(stderr io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.logLevel)) // validated by its option
	opts := &slog.HandlerOptions{Level: level}
	if c.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(stderr, opts))
	}
	return slog.New(slog.NewTextHandler(stderr, opts))
}

// raiseGOMAXPROCS gives the group commit a second P on one CPU, unless the
// operator chose GOMAXPROCS. Its fsync holds its P until the runtime's
// monitor takes it back, which can take milliseconds: with one P no other
// request runs meanwhile, none joins the next batch, and batches shrink to
// one event (a third of the collect rate on one core, bench/RESULTS.md).
// With two the kernel shares the core.
func raiseGOMAXPROCS(env environment, log *slog.Logger) {
	if env.getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
		log.Info("GOMAXPROCS raised to 2 on one CPU, so that requests run during the group commit's fsync")
	}
}

// trackerConfig tells the core what the store offers: the embedded store
// saves its counts to a snapshot file in the data folder, and follows its
// change feed for what other processes (svc import) write to its file; the
// nodes of a shared one follow its change feed and rebuild from it.
func (c *serveConfig) trackerConfig(store *openedStore, data string, log *slog.Logger, m *metrics.Metrics) tracker.Config {
	tc := tracker.Config{Retention: c.retention, Logger: log, Metrics: m, SnapshotInterval: c.snapshotInterval,
		ChangeFeed: store.feed, EventLog: store.log, NowWindow: c.nowWindow, Tidy: store.tidy}
	if c.snapshotInterval == 0 {
		tc.SnapshotInterval = -1 // at shutdown only
	}
	if store.log != nil {
		tc.SnapshotPath = filepath.Join(data, snapshotFile)
	}
	return tc
}

// serverParts are the parts of the server beside the API.
type serverParts struct {
	opts     httpapi.Options
	dash     *dashboard.Handler
	script   *script.Script
	demoText string // what to print about the demo; "" without one
}

// serverParts builds the script, the OpenAPI document, the bot list, and
// the demo.
func (c *serveConfig) serverParts(ctx context.Context, store svc.Store, t *tracker.Tracker, brands *auth.Cache, base string, m *metrics.Metrics, log *slog.Logger) (*serverParts, error) {
	detector, err := bots.New()
	if err != nil {
		return nil, err
	}
	js, err := script.Build()
	if err != nil {
		return nil, err
	}
	openapi, err := apidoc.Handler()
	if err != nil {
		return nil, err
	}
	if o, ok := store.(*openedStore); ok {
		store = o.Store
	}
	src, ok := store.(insights.Source)
	if !ok {
		return nil, fmt.Errorf("the store keeps no rollups for the dashboard")
	}
	p := &serverParts{script: js, opts: httpapi.Options{Version: moduleVersion(), Script: js, OpenAPI: openapi, Metrics: m, IsBot: detector.IsBot,
		RateLimit: httpapi.RateLimit{PerSecond: c.rateLimit, Burst: c.rateBurst, TrustedProxies: c.trustedProxies}, Budget: c.budget,
		Insights: &insights.Cache{Store: src, Now: t.Now, TTL: insightsTTL, Stale: insightsStale}}}
	if ss, ok := store.(svc.OrderSessionStore); ok {
		p.opts.Sessions = ss
	}
	mailer, err := mail.New(mail.Config{URL: c.smtpURL, From: c.mailFrom, Log: log})
	if err != nil {
		return nil, usageError{err.Error()}
	}
	proxies := c.trustedProxies
	dash, err := dashboard.New(dashboard.Config{Store: store, Brands: brands, Tracker: t, Insights: p.opts.Insights,
		Metrics: m, Log: log, PublicURL: base, Now: t.Now, Mail: mailer,
		ClientIP:  func(r *http.Request) netip.Addr { return httpapi.ClientIP(r, proxies) },
		ProofJSON: httpapi.ProofJSON, RecentJSON: httpapi.RecentJSON, ProofQuery: httpapi.ParseProofQuery})
	if err != nil {
		return nil, err
	}
	p.opts.Dashboard, p.dash = dash, dash
	if !mailer.Enabled() {
		log.Info("no SMTP server (--smtp-url): dashboard sign-in links are written to this log")
	}
	if c.demo {
		if p.opts.Demo, p.demoText, err = setupDemo(ctx, store, t, brands, base); err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		if !mailer.Enabled() {
			p.demoText += "\nNo SMTP server (--smtp-url): the dashboard's sign-in emails are written to the log, with their link.\n" +
				"Make yourself an owner with: " + c.env.cmd("brands members add --brand %s --email you@example.com --role owner", demoBrandID) + "\n" +
				"then ask for a link at " + base + "/dashboard/signin\n"
		}
	}
	return p, nil
}

// insightsTTL is how long a brand's figures are reused: the dashboard's
// pages and the experiment read the brand's rollups, which many page
// loads together should not do each time.
const insightsTTL = 5 * time.Second

// insightsStale is how long past insightsTTL a brand's figures are still
// answered while one background reading replaces them: a page then never
// waits for a reading once the brand has been read, and is at most 30 s
// behind.
const insightsStale = 25 * time.Second

func newHTTPServer(h http.Handler, idle time.Duration, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      15 * time.Second,
		IdleTimeout:       idle, // an idle connection holds about 19 KB
		MaxHeaderBytes:    32 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// waitAndDrain serves until the server fails or ctx ends; then /readyz
// answers 503 while the requests in flight finish, for at most the
// shutdown timeout.
func (c *serveConfig) waitAndDrain(ctx context.Context, api *httpapi.Server, srv *http.Server, served <-chan error, log *slog.Logger) error {
	select {
	case err := <-served:
		return fmt.Errorf("server stopped: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests and flushing pending events")
	api.Drain()
	sctx, cancel := context.WithTimeout(context.Background(), c.shutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: requests still running after %s", c.shutdownTimeout)
	}
	return err
}

// listen listens on the server's address; when it is taken, it says how
// to choose another.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%s is already in use (by another svc serve?): choose another address with --addr or SVC_ADDR; port 0 picks a free one", addr)
	}
	if err != nil {
		return nil, fmt.Errorf("--addr %s: %w", addr, err)
	}
	return ln, nil
}

// serveAdmin starts the opt-in admin listener: pprof, which must never face
// the internet, and the metrics again.
func serveAdmin(addr string, m *metrics.Metrics, log *slog.Logger) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Addr: ln.Addr().String(), Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("admin listener", "err", err)
		}
	}()
	return srv, nil
}
