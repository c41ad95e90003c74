// Package httpapi is the HTTP interface of svc: every route; the decoding
// and authentication of requests, whose events then go through the checks
// of internal/collect to the core; and the single place where errors
// become problem+json.
package httpapi

import (
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/rs/cors"
	"golang.org/x/time/rate"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/collect"
	"github.com/svc-project/svc/internal/enrich"
	"github.com/svc-project/svc/internal/insights"
	"github.com/svc-project/svc/internal/metrics"
	"github.com/svc-project/svc/internal/shops"
	"github.com/svc-project/svc/internal/signing"
	"github.com/svc-project/svc/internal/tracker"
)

// Server answers the HTTP API from a Tracker, for the brands and keys of
// an auth.Cache.
type Server struct {
	tracker  *tracker.Tracker
	auth     *auth.Cache
	enrich   *enrich.Service
	log      *slog.Logger
	draining atomic.Bool
	handler  http.Handler
	opts     Options
	limiter  *limiter
	budgets  *budgets
	pipeline *collect.Pipeline       // every event's checks, single, batch and webhook
	bodies   *webhookBodies          // unverified webhook bytes
	signers  atomic.Pointer[signers] // of the current key
	// widgetWrites bounds the widget reports written (widget.go).
	widgetWrites *rate.Limiter
}

// Options are the parts of the server beside the API.
type Options struct {
	Script    http.Handler     // serves /svc.js
	Demo      http.Handler     // serves /demo; nil unless serve --demo
	RateLimit RateLimit        // for anonymous API requests; zero: none
	Budget    Budget           // what anonymous events may create; zero: no limit
	Metrics   *metrics.Metrics // served at /metrics; nil: none
	OpenAPI   http.Handler     // serves /openapi.json; nil: none
	// IsBot tells known bots by User-Agent; their anonymous events are
	// answered but not counted. Nil counts everything.
	IsBot func(userAgent string) bool
	// Insights reads a brand's figures for the experiment endpoint; nil:
	// no such endpoint.
	Insights *insights.Cache
	// Sessions ties shop platforms' orders to sessions: the webhooks'
	// order keys and POST /api/collect/order-session; nil: no such
	// endpoint, and the keys are not kept.
	Sessions svc.OrderSessionStore
	// Dashboard serves /dashboard and everything under it; nil: none.
	Dashboard http.Handler
	// Keys sign the answers of the counts (signed in routes) and are
	// published at /.well-known/svc-keys.json; nil: unsigned.
	Keys *signing.Keyring
	// PublicURL is the address clients call, which signatures cover
	// (@target-uri); "": the request's scheme and Host.
	PublicURL string
	// Version is the binary's version, which / names.
	Version string
	// Catalog is what enrichment reads beside the counts: the one the
	// tracker feeds (its Config.Catalog). Nil is an empty one, which
	// matches nothing.
	Catalog *enrich.Catalog
}

// New returns the API server; Handler serves it.
func New(t *tracker.Tracker, a *auth.Cache, log *slog.Logger, opts Options) *Server {
	s := &Server{tracker: t, auth: a, enrich: enrich.New(opts.Catalog, a, t), log: log, opts: opts, limiter: newLimiter(opts.RateLimit),
		budgets: newBudgets(opts.Budget, opts.RateLimit, t.KnownProduct), bodies: newWebhookBodies(MaxWebhookBytesInFlight, MaxWebhookBytesPerAddress), widgetWrites: newWidgetWrites()}
	s.pipeline = &collect.Pipeline{Now: t.Now, Retention: t.Retention(), Authorize: a.Authorize, Budget: s.budgets, Core: t}
	mux := http.NewServeMux()
	allowed := map[string][]string{}
	for _, rt := range s.routes() {
		mux.Handle(rt.Method+" "+muxPath(rt.Path), opts.Metrics.Instrument(rt.Path, rt.handler))
		allowed[rt.Path] = append(allowed[rt.Path], rt.Method)
	}
	// Every error is problem+json, the mux's own 404 and 405 included.
	for path, methods := range allowed {
		mux.Handle(muxPath(path), s.handle(func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("Allow", strings.Join(methods, ", "))
			return svc.Errorf(svc.EMETHOD, "%s does not answer %s; it answers %s", path, r.Method, strings.Join(methods, ", "))
		}))
	}
	// The dashboard is pages for people, not the API: docs/dashboard.md
	// describes it, and it answers its own 404s and 405s as HTML.
	if opts.Dashboard != nil {
		dash := opts.Metrics.Instrument("/dashboard", opts.Dashboard)
		mux.Handle("/dashboard", dash)
		mux.Handle("/dashboard/", dash)
	}
	mux.Handle("/", opts.Metrics.Instrument("other", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return svc.Errorf(svc.ENOTFOUND, "no such endpoint: %s", r.URL.Path)
	})))
	// Browsers on any brand's page call the API: preflights are answered
	// for every origin, and which origin may act for which brand is decided
	// per request, when the brand is known (docs/decisions.md, Authentication).
	c := cors.New(cors.Options{
		AllowOriginFunc: func(string) bool { return true },
		AllowedMethods:  []string{http.MethodGet, http.MethodPost},
		AllowedHeaders:  []string{"Content-Type", APIKeyHeader, "Idempotency-Key", "Content-Digest", "Accept-Signature"},
		ExposedHeaders:  []string{"Idempotent-Replayed", "Retry-After", "Content-Digest", "Signature-Input", "Signature"},
		MaxAge:          86400,
	})
	// /metrics answers no CORS at all: no web page may read it (docs/security.md);
	// neither does the dashboard, whose pages only its own origin uses.
	// It stays on this listener unless --admin-addr moves it.
	withCORS := c.Handler(mux)
	s.handler = accessLog(log, securityHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" || isDashboard(r.URL.Path) {
			mux.ServeHTTP(w, r)
			return
		}
		withCORS.ServeHTTP(w, r)
	})))
	return s
}

// muxPath is a route's pattern for the mux: "/" alone is "/{$}", since
// "/" would match every path.
func muxPath(path string) string {
	if path == "/" {
		return "/{$}"
	}
	return path
}

// Handler is the root handler of the API.
func (s *Server) Handler() http.Handler { return s.handler }

// Drain makes /readyz answer 503, so that a load balancer stops sending
// traffic while in-flight requests finish.
func (s *Server) Drain() { s.draining.Store(true) }

// Route is one endpoint of the API.
type Route struct {
	Method, Path string
	handler      http.Handler
}

// Routes lists every endpoint; the OpenAPI document is tested against it.
func (s *Server) Routes() []Route { return s.routes() }

func (s *Server) routes() []Route {
	routes := []Route{
		// Writes: a committed write's answer is never cut by the write
		// timeout (answer.go).
		{"POST", "/api/collect/product-view", answerInTime(s.limit("view", s.handle(s.collectView)))},
		{"POST", "/api/collect/product-purchase", answerInTime(s.limit("purchase", s.handle(s.collectPurchase)))},
		{"POST", "/api/collect/order-cancel", answerInTime(s.limit("cancel", s.handle(s.collectCancel)))},
		{"POST", "/api/collect/batch", answerInTime(s.limit("batch", s.handle(s.collectBatch)))},
		{"POST", "/api/collect/product-cart", answerInTime(s.limit("cart", s.handle(s.collectCart)))},
		// The widget's reads are signed when asked (Accept-Signature); the
		// enrichments, which exist for the extension, always are.
		{"GET", "/api/svc/product-proof", s.limit("", s.signedOnRequest(s.handle(s.productProof)))},
		{"GET", "/api/svc/recent-activity", s.limit("", s.signedOnRequest(s.handle(s.recentActivity)))},
		{"POST", "/api/svc/search-enrich", s.limit("", s.signed(s.handle(s.searchEnrich)))},
		{"POST", "/api/svc/product-enrich", s.limit("", s.signed(s.handle(s.productEnrich)))},
		// Shop platforms' webhooks: signed, so neither rate limited nor
		// told apart from bots (connect.go).
		{"POST", shops.WebhookPath(svc.PlatformShopify, "{brand_id}"), answerInTime(s.handle(s.shopifyWebhook))},
		{"POST", shops.WebhookPath(svc.PlatformWooCommerce, "{brand_id}"), answerInTime(s.handle(s.wooCommerceWebhook))},
		{"GET", "/", s.handle(s.root)},
		{"GET", "/healthz", s.handle(s.healthz)},
		{"GET", "/readyz", s.handle(s.readyz)},
	}
	if s.opts.Script != nil {
		routes = append(routes, Route{"GET", "/svc.js", s.opts.Script})
		// The widget's drawing, its badge and the toasts, which svc.js loads.
		routes = append(routes, Route{"GET", "/svc-corner.js", s.opts.Script})
		// What it loads on shop platforms to tie orders to sessions.
		routes = append(routes, Route{"GET", "/svc-shop.js", s.opts.Script})
	}
	if s.opts.Demo != nil {
		routes = append(routes, Route{"GET", "/demo", s.opts.Demo})
	}
	if s.opts.Metrics != nil {
		routes = append(routes, Route{"GET", "/metrics", s.opts.Metrics.Handler()})
	}
	if s.opts.OpenAPI != nil {
		routes = append(routes, Route{"GET", "/openapi.json", s.opts.OpenAPI})
	}
	if s.opts.Insights != nil {
		routes = append(routes, Route{"GET", "/api/svc/experiment", s.limit("", s.handle(s.experiment))})
	}
	if s.tracker.Widgets() != nil {
		// The widget's impressions and clicks, for the dashboard (widget.go).
		routes = append(routes, Route{"POST", "/api/collect/widget", answerInTime(s.limit("widget", s.handle(s.collectWidget)))})
	}
	if s.opts.Sessions != nil {
		routes = append(routes, Route{"POST", "/api/collect/order-session", answerInTime(s.limit("", s.handle(s.collectOrderSession)))})
	}
	if s.opts.Keys != nil {
		routes = append(routes, Route{"GET", "/.well-known/svc-keys.json", s.handle(s.keysJWKS)})
	}
	return routes
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, []byte(`{"status":"ok"}`+"\n"))
	return nil
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	if s.draining.Load() {
		return svc.Errorf(svc.EUNAVAILABLE, "shutting down")
	}
	if err := s.tracker.Ready(r.Context()); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, []byte(`{"status":"ready"}`+"\n"))
	return nil
}

// securityHeaders sends the standard headers. API answers are data, never
// a document: they may not be framed or run anything. The demo page sets its
// own type and may be framed by nobody either.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header(), r.URL.Path == "/demo" || isDashboard(r.URL.Path))
		h.ServeHTTP(w, r)
	})
}

// isDashboard reports whether a path is the dashboard's: its pages are
// documents with their own Content-Security-Policy, for its own origin
// only, so no CORS either.
func isDashboard(path string) bool {
	return path == "/dashboard" || strings.HasPrefix(path, "/dashboard/")
}

// setSecurityHeaders sets the standard headers on hd; a document (the demo
// page) sets its own Content-Security-Policy.
func setSecurityHeaders(hd http.Header, document bool) {
	// Shared values rather than Set's new slice for each: the headers were
	// a fifth of the bytes allocated per request. Nothing appends to them
	// in place (their capacity is their length).
	hd["X-Content-Type-Options"] = hNosniff
	hd["Referrer-Policy"] = hNoReferrer
	hd["X-Frame-Options"] = hDeny
	if !document {
		hd["Content-Security-Policy"] = hCSP
	}
}

var (
	hNosniff    = []string{"nosniff"}
	hNoReferrer = []string{"no-referrer"}
	hDeny       = []string{"DENY"}
	hCSP        = []string{"default-src 'none'; frame-ancestors 'none'"}
	hJSON       = []string{"application/json"}
	hNoStore    = []string{"no-store"}
)
