package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/svc-project/svc/internal/bots"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/script"
	"github.com/svc-project/svc/internal/tracker"
)

func serve(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("serve")
	addr := fs.String("addr", env.env("SVC_ADDR", "127.0.0.1:8080"), "address to listen on; port 0 picks a free one (env SVC_ADDR)")
	publicURL := fs.String("public-url", env.env("SVC_PUBLIC_URL", ""), "address shoppers and brands reach this service at, default http://ADDR (env SVC_PUBLIC_URL)")
	demo := fs.Bool("demo", false, "create a demo brand and product, and print how to try them")
	defRetention, err := envDuration(env, "SVC_RETENTION")
	if err != nil {
		return err
	}
	retention := fs.Duration("retention", defRetention, "how long raw events are kept, at least 720h (env SVC_RETENTION; default 840h = 35 days)")
	logFormat := fs.String("log-format", env.env("SVC_LOG_FORMAT", "text"), "log format: text or json (env SVC_LOG_FORMAT)")
	shutdownTimeout := fs.Duration("shutdown-timeout", 15*time.Second, "how long in-flight requests may take to finish at shutdown")
	rateLimit := fs.Float64("rate-limit", envFloat(env, "SVC_RATE_LIMIT", 20), "anonymous API requests per second per client address, 0 for no limit (env SVC_RATE_LIMIT)")
	rateBurst := fs.Int("rate-burst", int(envFloat(env, "SVC_RATE_BURST", 100)), "anonymous API requests a client address may send at once (env SVC_RATE_BURST)")
	adminAddr := fs.String("admin-addr", env.env("SVC_ADMIN_ADDR", ""), "opt-in listener for pprof and metrics, such as 127.0.0.1:9090; keep it private (env SVC_ADMIN_ADDR)")
	var proxies listFlag
	fs.Var(&proxies, "trusted-proxy", "a proxy (IP or CIDR) whose X-Forwarded-For is believed; repeat for more (env SVC_TRUSTED_PROXIES, comma-separated)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if len(proxies) == 0 && env.getenv("SVC_TRUSTED_PROXIES") != "" {
		proxies = strings.Split(env.getenv("SVC_TRUSTED_PROXIES"), ",")
	}
	limit := httpapi.RateLimit{PerSecond: *rateLimit, Burst: *rateBurst}
	for _, p := range proxies {
		prefix, err := parsePrefix(strings.TrimSpace(p))
		if err != nil {
			return usageError{fmt.Sprintf("--trusted-proxy %q: want an IP address or a CIDR such as 10.0.0.0/8", p)}
		}
		limit.TrustedProxies = append(limit.TrustedProxies, prefix)
	}
	if *rateLimit < 0 || *rateBurst < 1 {
		return usageError{"--rate-limit must be at least 0 and --rate-burst at least 1"}
	}
	var handler slog.Handler
	switch *logFormat {
	case "text":
		handler = slog.NewTextHandler(env.stderr, nil)
	case "json":
		handler = slog.NewJSONHandler(env.stderr, nil)
	default:
		return usageError{fmt.Sprintf("--log-format %q: want text or json", *logFormat)}
	}
	log := slog.New(handler)

	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	detector, err := bots.New()
	if err != nil {
		return err
	}
	m := metrics.New()
	t, err := tracker.Open(ctx, store, tracker.Config{Retention: *retention, Logger: log, IsBot: detector.IsBot, Metrics: m})
	if err != nil {
		return err
	}
	js, err := script.Build()
	if err != nil {
		t.Close()
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		t.Close()
		return err
	}
	base := strings.TrimSuffix(*publicURL, "/")
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	opts := httpapi.Options{Script: js, RateLimit: limit, Metrics: m}
	var demoText string
	if *demo {
		if opts.Demo, demoText, err = setupDemo(ctx, store, t, base); err != nil {
			ln.Close()
			t.Close()
			return fmt.Errorf("demo: %w", err)
		}
	}
	api := httpapi.New(t, log, opts)
	srv := &http.Server{
		Handler:           api.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      15 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    32 << 10,
		ErrorLog:          slog.NewLogLogger(handler, slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "url", base, "script_bytes_gzip", js.GzSize)
	fmt.Fprintf(env.stdout, "svc listening on %s\n", base)
	if *adminAddr != "" {
		admin, err := serveAdmin(*adminAddr, m, log)
		if err != nil {
			srv.Close()
			t.Close()
			return fmt.Errorf("admin listener: %w", err)
		}
		defer admin.Close()
		fmt.Fprintf(env.stdout, "svc admin (pprof, metrics) on http://%s\n", admin.Addr)
	}
	if demoText != "" {
		fmt.Fprint(env.stdout, demoText)
	}

	select {
	case err = <-served:
		err = fmt.Errorf("server stopped: %w", err)
	case <-ctx.Done():
		log.Info("shutting down: finishing requests and flushing pending events")
		api.Drain()
		sctx, cancel := context.WithTimeout(context.Background(), *shutdownTimeout)
		err = srv.Shutdown(sctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("shutdown: requests still running after %s", *shutdownTimeout)
		}
	}
	// Requests are done: commit whatever they queued before the store closes.
	t.Close()
	log.Info("stopped")
	return err
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

// envFloat reads a number from the environment, or def when unset or bad.
func envFloat(env environment, name string, def float64) float64 {
	if v, err := strconv.ParseFloat(env.getenv(name), 64); err == nil {
		return v
	}
	return def
}

// parsePrefix reads an IP address or a CIDR.
func parsePrefix(s string) (netip.Prefix, error) {
	if addr, err := netip.ParseAddr(s); err == nil {
		return netip.PrefixFrom(addr, addr.BitLen()), nil
	}
	return netip.ParsePrefix(s)
}

// envDuration reads a duration from the environment: 0 when unset, a usage
// error when it does not parse.
func envDuration(env environment, name string) (time.Duration, error) {
	v := env.getenv(name)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, usageError{fmt.Sprintf("%s=%q: want a duration such as 840h", name, v)}
	}
	return d, nil
}
